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
