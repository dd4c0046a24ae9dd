#!/bin/sh
# expect_exit.sh STATUS TEXT COMMAND [ARGS...]: runs COMMAND, prints its output, and
# succeeds only if it exited with STATUS and printed TEXT (a fixed string) on stdout or
# stderr. ctest's own PASS_REGULAR_EXPRESSION ignores the exit status; this checks both.
want=$1 text=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then
  echo "expect_exit.sh: exit status $status, expected $want" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -qF -- "$text"; then
  echo "expect_exit.sh: the output lacks: $text" >&2
  exit 1
fi
