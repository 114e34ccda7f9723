#!/bin/sh
# SPDX-License-Identifier: MIT
# Choosing qemu-x86_64: `--qemu PATH` and $SOFTPMU_QEMU (the option wins),
# a chosen binary refused before the program runs when it is missing, not
# executable or cannot load plugins (status 2, perf's for a bad option),
# and stat -v naming the QEMU that ran, its version and the plugin API
# version. The binaries are stand-ins written here: shell scripts that
# print a version and exec the real qemu-x86_64, or refuse -plugin as a
# static build does.
#   test_qemu_select.sh SOFTPMU PLUGIN
# Skipped (77) without qemu-x86_64, unless SOFTPMU_REQUIRE_QEMU=1.
SOFTPMU=$1 PLUGIN=$2
. "$(dirname "$0")/../../cli/test_lib.sh"
need_qemu
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
unset SOFTPMU_QEMU
REAL=$(command -v qemu-x86_64)
NEWEST=$(sed -n 's/^#define SPMU_QEMU_PLUGIN_API \([0-9]*\).*/\1/p' \
  "$(dirname "$0")/../../frontends/qemu/qemu_plugin_api.h")
# The API version the plugin runs at under a QEMU whose --version says
# "version X.Y..." (frontends/qemu/api.c): 1 before 9, 2 on 9.0 and 9.1,
# else the newest; 1 for a version that is not a number.
api_of() {
  set -- $(echo "$1" | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  if [ $# -ne 2 ] || [ "$1" -lt 9 ]; then echo 1
  elif [ "$1" = 9 ] && [ "$2" -lt 2 ]; then echo 2
  else echo "$NEWEST"; fi
}

# fake NAME: a qemu-x86_64 that prints version NAME for --version and
# leaves its name in $tmp/ran when it runs a program (through the real one).
fake() {
  cat >"$tmp/$1" <<FAKE
#!/bin/sh
for a; do [ "\$a" = --version ] && { echo "qemu-x86_64 version $1"; exit 0; }; done
echo $1 >"$tmp/ran"
exec "$REAL" "\$@"
FAKE
  chmod +x "$tmp/$1"
}
fake one
fake two

# ran NAME: the last run went through fake NAME.
ran() {
  checks=$((checks + 1))
  [ "$(cat "$tmp/ran" 2>/dev/null)" = "$1" ] ||
    fail "$2: ran '$(cat "$tmp/ran" 2>/dev/null)', expected '$1'"
  rm -f "$tmp/ran"
}

# --qemu runs the given binary; $SOFTPMU_QEMU too; the option wins.
run stat -x , -e instructions --qemu "$tmp/one" -- /bin/true
[ "$rc" = 0 ] || fail "--qemu: status $rc"
ran one "--qemu"
SOFTPMU_QEMU="$tmp/two" run stat -x , -e instructions -- /bin/true
[ "$rc" = 0 ] || fail "SOFTPMU_QEMU: status $rc"
ran two "SOFTPMU_QEMU"
SOFTPMU_QEMU="$tmp/two" run record -o "$tmp/perf.data" --qemu "$tmp/one" \
  -- /bin/true
[ "$rc" = 0 ] || fail "record --qemu over SOFTPMU_QEMU: status $rc"
ran one "record: --qemu wins over SOFTPMU_QEMU"

# stat -v: the QEMU that ran, its version's first line, the plugin API
# version the plugin runs at with it (api_of), before the counts.
run stat -v -x , -e instructions --qemu "$tmp/one" -- /bin/true
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "stat -v: status $rc"
[ "$(head -n 1 "$tmp/err")" = "softpmu: stat: qemu: $tmp/one (qemu-x86_64 version one), plugin API version 1" ] ||
  fail "stat -v: first line '$(head -n 1 "$tmp/err")'"
ran one "stat -v"
# With no choice: PATH's qemu-x86_64 and its real version.
run stat -v -x , -e instructions -- /bin/true
checks=$((checks + 1))
V=$("$REAL" --version | head -n 1)
[ "$(head -n 1 "$tmp/err")" = "softpmu: stat: qemu: $REAL ($V), plugin API version $(api_of "$V")" ] ||
  fail "stat -v, PATH's: first line '$(head -n 1 "$tmp/err")'"

# Refused before the program runs (it would leave $tmp/ran): a missing
# path, a file that is not executable, a static build's refusal of -plugin.
run stat --qemu "$tmp/missing" -- "$tmp/one"
expect "--qemu missing" 2 "" "softpmu: stat: --qemu $tmp/missing: No such file or directory: give the path of a qemu-x86_64 binary (Debian's qemu-user installs /usr/bin/qemu-x86_64)"
printf 'not a program\n' >"$tmp/plain"
SOFTPMU_QEMU="$tmp/plain" run record -o "$tmp/perf.data" -- /bin/true
expect "SOFTPMU_QEMU not executable" 2 "" "softpmu: record: SOFTPMU_QEMU=$tmp/plain: not an executable file: give the path of a qemu-x86_64 binary (or make this one executable)"
cat >"$tmp/static" <<STATIC
#!/bin/sh
echo run >"$tmp/ran"
echo "qemu-x86_64: unknown option 'plugin'" >&2
exit 1
STATIC
chmod +x "$tmp/static"
run stat --qemu "$tmp/static" -- /bin/true
expect "--qemu static build" 2 "" "softpmu: stat: --qemu $tmp/static cannot load plugins (qemu-x86_64: unknown option 'plugin'): give a qemu-x86_64 built with them, such as Debian 12's qemu-user or one softpmu's scripts/qemu-user builds"
rm -f "$tmp/ran"
# One that dies of a signal asking (an old or broken build) is refused too.
printf '#!/bin/sh\nkill -9 $$\n' >"$tmp/broken"
chmod +x "$tmp/broken"
run stat --qemu "$tmp/broken" -- /bin/true
expect "--qemu broken" 2 "" "softpmu: stat: --qemu $tmp/broken cannot load plugins (it failed): give a qemu-x86_64 built with them, such as Debian 12's qemu-user or one softpmu's scripts/qemu-user builds"

# With no choice, PATH's qemu-x86_64 is passed over when it is a static
# build (no PT_INTERP; it cannot load plugins) for the one scripts/qemu-user
# built in ${XDG_CACHE_HOME:-$HOME/.cache}/softpmu/qemu-user-X.Y/build/,
# 10.0 before 7.2; with none there, or no qemu-x86_64 at all, stat says
# what to do. Debian's ldconfig, statically linked, stands in for Debian
# 13's static qemu-user (it is never run).
unset XDG_CACHE_HOME
mkdir -p "$tmp/static-bin" "$tmp/no-bin"
cp /sbin/ldconfig "$tmp/static-bin/qemu-x86_64"
if readelf -l "$tmp/static-bin/qemu-x86_64" 2>/dev/null | grep -q INTERP; then
  echo "/sbin/ldconfig is not statically linked here: the static checks are skipped"
else
  PATH="$tmp/static-bin:$PATH" run stat -x , -e instructions -- /bin/true
  expect "PATH's static, none built" 2 "" "softpmu: stat: $tmp/static-bin/qemu-x86_64 is a static build, which cannot load plugins: build a qemu-x86_64 that can with softpmu's scripts/qemu-user (used from then on), or give one with --qemu PATH"
  mkdir -p "$HOME/.cache/softpmu/qemu-user-7.2/build" \
    "$HOME/.cache/softpmu/qemu-user-10.0/build" \
    "$tmp/xdg/softpmu/qemu-user-7.2/build"
  cp "$tmp/one" "$HOME/.cache/softpmu/qemu-user-7.2/build/qemu-x86_64"
  PATH="$tmp/static-bin:$PATH" run stat -x , -e instructions -- /bin/true
  [ "$rc" = 0 ] || fail "PATH's static, 7.2 built: status $rc"
  ran one "PATH's static: the cache's 7.2"
  cp "$tmp/two" "$HOME/.cache/softpmu/qemu-user-10.0/build/qemu-x86_64"
  PATH="$tmp/static-bin:$PATH" run record -o "$tmp/perf.data" -- /bin/true
  [ "$rc" = 0 ] || fail "PATH's static, 10.0 built: status $rc"
  ran two "PATH's static: the cache's 10.0 before its 7.2"
  cp "$tmp/one" "$tmp/xdg/softpmu/qemu-user-7.2/build/qemu-x86_64"
  XDG_CACHE_HOME="$tmp/xdg" PATH="$tmp/static-bin:$PATH" \
    run stat -x , -e instructions -- /bin/true
  [ "$rc" = 0 ] || fail "XDG_CACHE_HOME: status $rc"
  ran one "PATH's static: \$XDG_CACHE_HOME's cache"
  # A dynamic qemu-x86_64 on PATH is still the one that runs.
  cp "$tmp/two" "$tmp/xdg/softpmu/qemu-user-7.2/build/qemu-x86_64"
  cp "$tmp/one" "$tmp/no-bin/qemu-x86_64"
  XDG_CACHE_HOME="$tmp/xdg" PATH="$tmp/no-bin:$PATH" \
    run stat -x , -e instructions -- /bin/true
  ran one "PATH's dynamic qemu-x86_64 before the cache's"
  rm -f "$tmp/no-bin/qemu-x86_64"
fi
XDG_CACHE_HOME="$tmp/empty" PATH="$tmp/no-bin" run stat -e instructions -- /bin/true
expect "no qemu-x86_64" 2 "" "softpmu: stat: qemu-x86_64 not found: install it with \`sudo apt-get install qemu-user\` (or scripts/deps; where the distribution's is a static build, scripts/qemu-user builds one)"

finish
