#!/usr/bin/env bash
# `npm test`: every layer, fastest feedback first (README "Tests").
set -euo pipefail
cd "$(dirname "$0")/.."

npm run -s lint:proto
# `npm run build` in two parts: the TypeScript projects first (typed lint reads their declarations), then the
# web app's build beside lint, ahead of the unit layer.
npm run -s generate
npx tsc -b
# Lint beside the unit layer and, when it takes longer, beside the start of the integration layer: neither
# needs the other, typed ESLint is one busy core for minutes, and a core left idle while it finishes is time lost.
# Either failing fails the run, after both have said what they found.
npm run -s lint &
lint=$!
unit=0
npm run -s build:web || unit=$?
npx jest --ci --selectProjects unit || unit=$?
# The SDK on the wire (a local server) and the web app's component and hook tests (jsdom): Vitest.
(cd clients/sdk && npx vitest run) || unit=$?
(cd clients/web && npx vitest run) || unit=$?
lint_status=""
if ! kill -0 "$lint" 2>/dev/null; then
  lint_status=0
  wait "$lint" || lint_status=$?
fi
if [ "$unit" -ne 0 ] || [ "${lint_status:-0}" -ne 0 ]; then
  [ -n "$lint_status" ] || { lint_status=0; wait "$lint" || lint_status=$?; }
  echo "test: unit layer exit $unit, lint exit $lint_status" >&2
  exit 1
fi
# Integration and end-to-end files two at a time, on one PostgreSQL and one RabbitMQ for the run.
integration=0
npx jest --ci --maxWorkers=2 --selectProjects integration e2e || integration=$?
if [ -z "$lint_status" ]; then
  lint_status=0
  wait "$lint" || lint_status=$?
fi
if [ "$integration" -ne 0 ] || [ "$lint_status" -ne 0 ]; then
  echo "test: integration and end-to-end exit $integration, lint exit $lint_status" >&2
  exit 1
fi
