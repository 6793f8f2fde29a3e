#!/usr/bin/env bash
# The dashboard in a real terminal: runs dashboard_demo inside tmux, captures the screen, checks
# that it shows the progress (epoch, iteration, ETA), the metrics table and the plots, then
# presses q and checks that the run stopped with a checkpoint; then runs it again and stops it
# with Ctrl-C. Skips (77) without tmux.
set -euo pipefail
demo=$1
command -v tmux >/dev/null || { echo "tmux is not installed: skipped"; exit 77; }
work=$(mktemp -d)
session=ember_dashboard_$$
# Each run has its own server socket: a new session started right after the last one of a
# server was killed can reach the exiting server ("server exited unexpectedly", seen in CI).
socket=${session}_1
tmx() { tmux -L "$socket" "$@"; }
trap 'tmux -L ${session}_1 kill-server 2>/dev/null || true
      tmux -L ${session}_2 kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
tmx -u new-session -d -s "$session" -x 120 -y 45 \
  "LANG=C.UTF-8 TERM=xterm-256color '$demo' '$work/result'; echo \$? > '$work/exit'; sleep 60"
screen=$work/screen.txt
# Wait for the first validation read so both splits have values and points, and for training
# to be running again (its iterations of 15; the validation pass shows its own 4).
for _ in $(seq 1 100); do
  tmx capture-pane -p -t "$session" > "$screen"
  if grep -qE "^ *Loss +[0-9.]+ +[0-9.]+" "$screen" &&  # a valid value in the table
     grep -qE "Ember +train +epoch" "$screen"; then
    break
  fi
  sleep 0.2
done
cat "$screen"
status=0
check() {
  if ! grep -qE "$1" "$screen"; then echo "FAIL: the screen lacks: $2"; status=1; fi
}
check 'epoch [0-9]+/1000' 'epoch N/1000'
check 'iteration [0-9]+/15' 'the iteration of 15'
check 'ETA [0-9]' 'an ETA'
check '\[#*\.*\] +[0-9]+%' 'a progress bar'
check '^ *Loss +[0-9.]+ +' 'the Loss row of the table'
check '^ *Accuracy +[0-9.]+ %' 'the Accuracy row of the table'
check 'Loss  \* train  o valid' 'the plot of Loss'
check 'Accuracy \(%\)  \* train  o valid' 'the plot of Accuracy'
check '[|] *[*o]' 'points in a plot'
check 'q: stop with a checkpoint' 'the hint for q'
tmx send-keys -t "$session" q
for _ in $(seq 1 100); do [ -f "$work/exit" ] && break; sleep 0.1; done
if [ "$(cat "$work/exit" 2>/dev/null)" != 0 ]; then echo "FAIL: the demo did not exit cleanly"; exit 1; fi
result=$(cat "$work/result")
echo "result: $result"
case "$result" in
  interrupted=1*checkpoints=*[0-9],*) ;;
  *) echo "FAIL: q did not stop the run with a checkpoint"; status=1 ;;
esac
# Ctrl-C: the same stop, through SIGINT.
rm -f "$work/exit" "$work/result"
tmx kill-server
socket=${session}_2
tmx -u new-session -d -s "$session" -x 120 -y 45 \
  "LANG=C.UTF-8 TERM=xterm-256color '$demo' '$work/result'; echo \$? > '$work/exit'; sleep 60"
for _ in $(seq 1 100); do
  tmx capture-pane -p -t "$session" > "$screen"
  grep -qE "^ *Loss +[0-9.]+" "$screen" && break
  sleep 0.1
done
tmx send-keys -t "$session" C-c
for _ in $(seq 1 100); do [ -f "$work/exit" ] && break; sleep 0.1; done
result=$(cat "$work/result" 2>/dev/null || true)
echo "after Ctrl-C: exit $(cat "$work/exit" 2>/dev/null), $result"
case "$result" in
  interrupted=1*checkpoints=*[0-9],*) ;;
  *) echo "FAIL: Ctrl-C did not stop the run with a checkpoint"; status=1 ;;
esac
exit $status
