#!/usr/bin/env bash
# The ember-autotune command line: `cli_test.sh BINARY CASE`.
set -euo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $2 in
  help)
    out=$("$bin" --help)
    grep -q '^usage: ember-autotune' <<<"$out"
    ;;
  list-missing)
    # A database that does not exist yet (nor its directory) lists as empty.
    out=$("$bin" list --db "$work/missing/dir/autotune.sqlite" 2>"$work/err")
    [ -z "$out" ] || { echo "unexpected entries: $out"; exit 1; }
    [ ! -s "$work/err" ] || { cat "$work/err"; exit 1; }
    [ "$("$bin" export --db "$work/missing/dir/autotune.sqlite")" = "[]" ]
    [ "$("$bin" --db="$work/missing/dir/autotune.sqlite" clear)" = "removed 0 entries" ]
    ;;
  corrupt)
    # A damaged database is set aside (kept as .damaged) and rebuilt, with one warning; the
    # next run finds a clean cache (it used to stay unusable: "removed 0 entries" forever).
    head -c 8192 /dev/urandom > "$work/a.sqlite"
    out=$("$bin" --db="$work/a.sqlite" clear 2>"$work/err")
    [ "$out" = "removed 0 entries" ] || { echo "clear printed: $out"; exit 1; }
    grep -q 'damaged' "$work/err" || { echo "no warning:"; cat "$work/err"; exit 1; }
    [ -f "$work/a.sqlite.damaged" ] || { echo "damaged file not kept"; exit 1; }
    out=$("$bin" list --db "$work/a.sqlite" 2>"$work/err2")
    [ -z "$out" ] && [ ! -s "$work/err2" ] || { echo "rebuilt cache not clean:"; cat "$work/err2"; exit 1; }
    ;;
  bad-args)
    for args in "" "frobnicate" "list extra" "export a b" "--db" "--nope list"; do
      rc=0
      # shellcheck disable=SC2086
      "$bin" $args >/dev/null 2>"$work/err" || rc=$?
      [ "$rc" = 2 ] || { echo "ember-autotune $args: exit $rc, expected 2"; exit 1; }
      grep -q '^usage: ember-autotune' "$work/err" || { echo "no usage for: $args"; exit 1; }
    done
    ;;
  *)
    echo "unknown case $2"
    exit 2
    ;;
esac
