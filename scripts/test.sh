#!/usr/bin/env bash
# `npm test`: every layer, fastest feedback first (README "Tests").
set -euo pipefail
cd "$(dirname "$0")/.."

npm run -s lint:proto
# `npm run build` in two parts: the TypeScript projects first (typed lint reads their declarations), then the
# web app's build beside lint, ahead of the unit layer.
npm run -s generate
npx tsc -b
# Lint and the unit layer side by side: neither needs the other, each is mostly one busy core, and either
# failing fails the run (after both have said what they found).
npm run -s lint &
lint=$!
unit=0
npm run -s build:web || unit=$?
npx jest --ci --selectProjects unit || unit=$?
# The SDK on the wire (a local server) and the web app's component and hook tests (jsdom): Vitest.
(cd clients/sdk && npx vitest run) || unit=$?
(cd clients/web && npx vitest run) || unit=$?
lint_status=0
wait "$lint" || lint_status=$?
if [ "$unit" -ne 0 ] || [ "$lint_status" -ne 0 ]; then
  echo "test: unit layer exit $unit, lint exit $lint_status" >&2
  exit 1
fi
# Integration and end-to-end files two at a time, on one PostgreSQL and one RabbitMQ for the run.
npx jest --ci --maxWorkers=2 --selectProjects integration e2e
