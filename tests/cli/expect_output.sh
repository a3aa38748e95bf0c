#!/usr/bin/env bash
# Runs a command and passes only when it exits 0 *and* its output matches a pattern (ctest's
# PASS_REGULAR_EXPRESSION alone ignores the exit code).
#   expect_output.sh PATTERN COMMAND [ARGS...]
set -uo pipefail
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "expect_output: '$1' exited with $status" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$output"; then
  echo "expect_output: the output does not match '$pattern'" >&2
  exit 1
fi
