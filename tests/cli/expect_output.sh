#!/usr/bin/env bash
# Runs a command and passes only when it exits with the expected status *and* its output
# matches a pattern (ctest's PASS_REGULAR_EXPRESSION alone ignores the exit code).
#   expect_output.sh [--status N] [--absent PATTERN] PATTERN COMMAND [ARGS...]
# --status N: the exit status expected (default 0); --absent PATTERN: the output must not match.
set -uo pipefail
expected=0
absent=""
while [ $# -gt 0 ]; do
  case "$1" in
    --status) expected=$2; shift 2 ;;
    --absent) absent=$2; shift 2 ;;
    *) break ;;
  esac
done
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected" ]; then
  echo "expect_output: '$1' exited with $status, expected $expected" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$output"; then
  echo "expect_output: the output does not match '$pattern'" >&2
  exit 1
fi
if [ -n "$absent" ] && grep -Eq -- "$absent" <<<"$output"; then
  echo "expect_output: the output matches '$absent', which it must not" >&2
  exit 1
fi
