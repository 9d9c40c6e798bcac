#!/usr/bin/env bash
# No adapter process outlives locksim (issue 39): neither after a normal exit
# (the zygote dies with its thread) nor after a SIGKILL of locksim mid-run
# (PR_SET_PDEATHSIG on the zygote and on each process it forks). Every
# process locksim starts inherits a mark in its environment; after the end,
# no live process carries it.
set -euo pipefail
bin=$1
mark="zygote-orphans-$$"
marked() { grep -lsa "LOCKSIM_TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null | grep -v "^/proc/$2/" | wc -l; }
settled() {  # waits up to 5 s for no marked process but $1 (the dead locksim: none)
  for _ in $(seq 50); do [ "$(marked x "$1")" -eq 0 ] && return 0; sleep 0.1; done
  echo "processes outlived locksim:"; grep -lsa "LOCKSIM_TEST_MARK=$mark" /proc/[0-9]*/environ; return 1
}
LOCKSIM_TEST_MARK=$mark "$bin" run gc-pause --lock lib:redis-py >/dev/null || [ $? -eq 1 ]
settled none
echo "after a normal exit: no process left"
for attempt in $(seq 20); do
  LOCKSIM_TEST_MARK=$mark "$bin" run gc-pause --lock lib:redis-py >/dev/null 2>&1 &
  pid=$!
  # Kill it once a process it started is there (the zygote, or a child).
  while kill -0 "$pid" 2>/dev/null && [ "$(marked x "$pid")" -eq 0 ]; do sleep 0.005; done
  if kill -KILL "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    settled "$pid"
    echo "after a SIGKILL of locksim mid-run (attempt $attempt): no process left"
    exit 0
  fi
  wait "$pid" 2>/dev/null || true
done
echo "locksim ended before it could be killed, 20 times"
exit 1
