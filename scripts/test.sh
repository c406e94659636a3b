#!/usr/bin/env bash
# `npm test`: every layer, fastest feedback first (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

npm run -s lint:proto
npm run -s generate
# Two lanes until the integration layer, so that neither core waits:
# - the TypeScript projects (`tsc -b`), then lint (typed ESLint reads their declarations: one busy core for minutes);
# - the unit layer, which needs neither (jest and Vitest compile the sources themselves), and the web app's build.
# Lint goes on beside the start of the integration layer when it outlasts the unit lane. Either failing fails the
# run, after both have said what they found.
npx tsc -b &
types=$!
unit=0
(
  status=0
  npm run -s build:web || status=$?
  npx jest --ci --selectProjects unit || status=$?
  # The SDK on the wire (a local server) and the web app's component and hook tests (jsdom): Vitest.
  (cd clients/sdk && npx vitest run) || status=$?
  (cd clients/web && npx vitest run) || status=$?
  exit "$status"
) &
unit_lane=$!
types_status=0
wait "$types" || types_status=$?
lint=""
if [ "$types_status" -eq 0 ]; then
  npm run -s lint &
  lint=$!
fi
wait "$unit_lane" || unit=$?
if [ "$types_status" -ne 0 ]; then
  echo "test: tsc -b exit $types_status, unit layer exit $unit" >&2
  exit 1
fi
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
