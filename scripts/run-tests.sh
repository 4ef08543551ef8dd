#!/usr/bin/env bash
# `make test`: runs the XCTest suite (no Swift Testing tests exist, so its runner and its "0 tests passed"
# line are left out) and ends with one verdict line with counts, after how many tests were skipped and why.
# Exits non-zero when a test failed or the suite did not build or run to its end.
set -uo pipefail
cd "$(dirname "$0")/.."
# The run's temporary files, SwiftPM's own among them, go in one folder removed at the end.
# A short name: test sockets made inside must stay within the 108 bytes of a Unix socket path.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/xzt.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
log="$TMPDIR/swift-test.log"
"${SWIFT:-swift}" test --disable-swift-testing "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# XCTest's last "Executed N tests, with S tests skipped and F failures" line covers the whole run.
summary=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?, with' "$log" | tail -1)
count() { sed -nE "s/.* ([0-9]+) $1.*/\\1/p" <<<"$summary" | head -1; }
executed=$(sed -nE 's/^[[:space:]]*Executed ([0-9]+) test.*/\1/p' <<<"$summary")
skipped=$(count 'tests? skipped'); skipped=${skipped:-0}
failures=$(count 'failures?'); failures=${failures:-0}

if [ "$skipped" -gt 0 ]; then
  echo "Skipped $skipped:"
  # Skips share their reason's first words ("corpus not found: NAME ..."): one line per reason.
  sed -nE 's/.*Test skipped - (.*)$/\1/p' "$log" \
    | sed -E 's/^(corpus not found): [^;]*; (.*)$/\1 (\2)/' | sort | uniq -c | sort -rn
fi
if [ -z "$summary" ]; then
  echo "make test: FAILED — the tests did not build or did not run to the end (exit status $status)"
  exit 1
fi
passed=$((executed - skipped))
if [ "$status" -ne 0 ] || [ "$failures" -gt 0 ]; then
  echo "make test: FAILED — $failures failures; $executed tests run, $skipped skipped"
  exit 1
fi
echo "make test: passed — $passed tests passed, $skipped skipped"
