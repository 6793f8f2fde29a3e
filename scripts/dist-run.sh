#!/usr/bin/env bash
# Runs N copies of a command as the ranks of one group, one GPU each, the way torchrun would:
# RANK, WORLD_SIZE, LOCAL_RANK and EMBER_DIST_INIT (a fresh file) set for each.
#   scripts/dist-run.sh [--timeout S] N command args...
# Rank r's output lines are prefixed with "[r] ". When a rank fails, the others get
# --grace seconds (default 60) to exit on their own (Ember's NCCL watchdog ends them) before
# they are killed; the exit status is the first failing rank's, or 124 when a rank had to be
# killed (it hung).
set -uo pipefail
grace=60
while [ $# -gt 0 ]; do
  case "$1" in
    --grace) grace=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: $0 [--grace S] N command args..." >&2
  exit 2
fi
n=$1
shift
init=$(mktemp -u /tmp/ember-dist-XXXXXX)
pids=()
for ((r = 0; r < n; r++)); do
  RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r EMBER_DIST_INIT="file:$init" \
    "$@" > >(sed -u "s/^/[$r] /") 2>&1 &
  pids+=($!)
done
status=0
failed_at=""
remaining=$n
declare -A done_rank
while [ "$remaining" -gt 0 ]; do
  for ((r = 0; r < n; r++)); do
    [ -n "${done_rank[$r]:-}" ] && continue
    if ! kill -0 "${pids[$r]}" 2>/dev/null; then
      wait "${pids[$r]}"
      rc=$?
      done_rank[$r]=1
      remaining=$((remaining - 1))
      echo "dist-run: rank $r exited with status $rc" >&2
      if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
        status=$rc
        failed_at=$(date +%s)
      fi
    fi
  done
  if [ -n "$failed_at" ] && [ $(($(date +%s) - failed_at)) -gt "$grace" ]; then
    for ((r = 0; r < n; r++)); do
      if [ -z "${done_rank[$r]:-}" ]; then
        echo "dist-run: rank $r still running $grace s after a rank failed: killed (hung)" >&2
        kill -9 "${pids[$r]}" 2>/dev/null
      fi
    done
    rm -f "$init"
    exit 124
  fi
  sleep 0.2
done
rm -f "$init"
exit "$status"
