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
expect "--qemu static build" 2 "" "softpmu: stat: --qemu $tmp/static cannot load plugins (qemu-x86_64: unknown option 'plugin'): give a qemu-x86_64 built with them, such as Debian's qemu-user (not qemu-user-static)"
rm -f "$tmp/ran"
# One that dies of a signal asking (an old or broken build) is refused too.
printf '#!/bin/sh\nkill -9 $$\n' >"$tmp/broken"
chmod +x "$tmp/broken"
run stat --qemu "$tmp/broken" -- /bin/true
expect "--qemu broken" 2 "" "softpmu: stat: --qemu $tmp/broken cannot load plugins (it failed): give a qemu-x86_64 built with them, such as Debian's qemu-user (not qemu-user-static)"

finish
