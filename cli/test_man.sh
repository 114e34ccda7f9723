#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages the build made from the manuals (softpmu help --roff):
# each renders without a warning (man --warnings, as lintian runs it, or
# groff -ww), has its command's NAME line and names every option that
# the command's --help lists. Skipped (77) without man or groff.
#   test_man.sh SOFTPMU MAN_DIR COMMAND...
set -u
softpmu=$1
dir=$2
shift 2
. "$(dirname "$0")/test_lib.sh"

if command -v man >/dev/null 2>&1; then
  render() { MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -P cat "$1" 2>"$tmp/warn" | sed 's/.\x08//g'; }
elif command -v groff >/dev/null 2>&1; then
  render() { groff -man -ww -Tutf8 -P-cbou "$1" 2>"$tmp/warn"; }
else
  echo "neither man nor groff: skipped"
  exit 77
fi

# check_page PAGE COMMAND...: PAGE.1 against `softpmu COMMAND --help`.
check_page() {
  page=$1
  shift
  checks=$((checks + 1))
  file=$dir/$page.1
  [ -s "$file" ] || { fail "$page: no $file"; return; }
  render "$file" >"$tmp/text"
  [ -s "$tmp/warn" ] && fail "$page: warnings: $(cat "$tmp/warn")"
  # NAME: "softpmu-stat - run a program ...", the summary of the manual.
  summary=$("$softpmu" "$@" --help | sed -n '2s/^ *softpmu[a-z ]* - //p')
  sed -n '/^NAME$/,/^[A-Z]/{/^[A-Z]/d;p;}' "$tmp/text" | tr '\n' ' ' |
    tr -s ' ' | grep -qF "$page - $summary" ||
    fail "$page: no NAME line '$page - $summary'"
  # Every option of the OPTIONS section: -x and --long.
  "$softpmu" "$@" --help | sed -n '/^OPTIONS$/,/^[A-Z]/p' |
    grep -o '^    -[^ ,]*\|, --[a-z-]*\|^    --[a-z-]*' | sed 's/^[ ,]*//' |
    sort -u >"$tmp/options"
  [ -s "$tmp/options" ] || fail "$page: no options in --help"
  while read -r opt; do
    grep -qF -e "$opt" "$tmp/text" || fail "$page: option $opt missing"
  done <"$tmp/options"
}

check_page softpmu
for cmd in "$@"; do
  check_page "softpmu-$cmd" "$cmd"
done
finish
