#!/bin/sh
# SPDX-License-Identifier: MIT
# Every example runs: those of the EXAMPLES section of `softpmu --help`
# and of each command's --help (taken from the manuals as they print), and
# those of README.md's sh blocks, each with the exit status it promises
# (0, or N where its description says "Exits N"), and no deprecation
# warning.
#   test_examples.sh SOFTPMU CC ROOT [PLUGIN]
# ROOT: the source tree. PLUGIN: libsoftpmu-qemu.so, "" when not built.
#
# They run in one scratch directory, in the manuals' order (softpmu's,
# then the commands', then README's), so that report reads the files
# record wrote, with examples/ linked in. Fixtures stand in for what an
# example needs from the machine:
#   ./prog       a small C program (calls, loads, stores, cache misses)
#   softpmu      the built tool; `softpmu show` reads files laid out as
#                /dev/cpu/N/msr and cpuid are (--msr-file, --cpuid-file:
#                a perfmon v4 PMU with PMC3 counting) instead of root-only
#                devices
#   sudo         runs its command as the current user; `sudo modprobe`
#                does nothing (the files stand in for the drivers)
#   flamegraph.pl, when not installed: checks its input is folded stacks
#                ("a;b;c N") and writes an empty SVG
# Skipped, each with its reason: stat, record and report without
# qemu-x86_64 or the plugin (required with SOFTPMU_REQUIRE_QEMU=1), perf
# without perf (required with SOFTPMU_REQUIRE_PERF=1), jq without jq, and
# README's commands that build or boot whole systems.
SOFTPMU=$1 CC=$2 ROOT=$3 PLUGIN=${4:-}
. "$(dirname "$0")/test_lib.sh"

work=$tmp/work bin=$tmp/bin fix=$tmp/fix
mkdir -p "$work" "$bin" "$fix"
ln -s "$ROOT/examples" "$work/examples"

# ---- fixtures -----------------------------------------------------------------

cat >"$tmp/prog.c" <<'EOF'
/* Calls, loads and stores, and a walk over 512 KiB of new lines. */
static unsigned char buf[1 << 19];

__attribute__((noinline)) static unsigned long step(unsigned long x)
{
  return x * 2654435761u + 1;
}

int main(int argc, char **argv)
{
  unsigned long x = (unsigned long)argc, i;

  (void)argv;
  for (i = 0; i < 20000; i++) {
    x = step(x);
    buf[(i * 64) % sizeof buf] += (unsigned char)x;
  }
  return buf[x % sizeof buf] == 255;
}
EOF
"$CC" -O1 -g -o "$work/prog" "$tmp/prog.c" || fail "the fixture prog does not build"

# The v4 PMU of test_cli.sh's show tests: Skylake's CPUID.0AH, PMC3
# counting instructions with a PMI (SDM 18.2.4.3 for INUSE).
put "$fix/cpuid" 10 0x0000000007300404
put "$fix/cpuid" 18 0x0000060300000000
put "$fix/msr" 0x189 0x5300c0
put "$fix/msr" 0x1a0 0x1880
put "$fix/msr" 0x38d 0xb0
put "$fix/msr" 0x38f 0x8
put "$fix/msr" 0x392 0x8000000200000008

cat >"$bin/softpmu" <<EOF
#!/bin/sh
if [ "\${1:-}" = show ]; then
  shift
  exec "$SOFTPMU" show --msr-file "$fix/msr" --cpuid-file "$fix/cpuid" "\$@"
fi
exec "$SOFTPMU" "\$@"
EOF
cat >"$bin/sudo" <<'EOF'
#!/bin/sh
[ "$1" = modprobe ] && exit 0
exec "$@"
EOF
if ! command -v flamegraph.pl >/dev/null 2>&1; then
  cat >"$bin/flamegraph.pl" <<'EOF'
#!/bin/sh
awk '!/^[^ ]+ [0-9]+$/ { print "not a folded stack: " $0 > "/dev/stderr"; bad = 1 }
     END { exit bad + (NR == 0) }' || exit 1
echo '<svg xmlns="http://www.w3.org/2000/svg"/>'
EOF
fi
chmod +x "$bin"/*
export PATH="$bin:$PATH"

have_qemu=1
# No plugin in this build (the sanitizer builds make none): skipped even
# with SOFTPMU_REQUIRE_QEMU=1, which asks for qemu-x86_64 where the plugin
# is built.
if [ -z "$PLUGIN" ] || ! find_qemu; then
  have_qemu=0
  [ -n "$PLUGIN" ] && [ "${SOFTPMU_REQUIRE_QEMU:-0}" = 1 ] &&
    fail "qemu-x86_64 is required (SOFTPMU_REQUIRE_QEMU=1)"
fi
export SOFTPMU_QEMU_PLUGIN="$PLUGIN"
have_perf=1
if ! command -v perf >/dev/null 2>&1 || ! perf version >/dev/null 2>&1; then
  have_perf=0
  [ "${SOFTPMU_REQUIRE_PERF:-0}" = 1 ] &&
    fail "perf is required (SOFTPMU_REQUIRE_PERF=1)"
fi

# ---- the examples -------------------------------------------------------------

# examples_of: the EXAMPLES section on stdin, one example per record of
# $tmp/ex (records end with a line "%%", the first line is the exit
# status): a line indented by 4 starts a command, one ending in \ or |
# goes on on the next line, lines indented further describe it ("Exits
# N"). An assignment (v=$(...)) is run with the command after it.
# installed_examples: the manuals name the example scripts where they are
# installed (DOCDIR/examples/scripts/); this build is not installed, so
# they are run from the source tree's examples/, the files installed there.
installed_examples() {
  sed 's|[^ ]*/share/doc/softpmu/examples/|examples/|g'
}

examples_of() {
  awk '
    function flush() {
      if (cmd != "") { print status; print cmd; print "%%" }
      cmd = ""; status = 0
    }
    /^EXAMPLES$/ { on = 1; next }
    !on { next }
    more { cmd = cmd "\n" $0; more = /[\\|]$/; next }
    /^    [^ ]/ {
      line = substr($0, 5)
      more = /[\\|]$/
      if (held != "") { cmd = held "\n" line; held = ""; next }
      flush()
      cmd = line
      if (!more && cmd ~ /^[A-Za-z_][A-Za-z0-9_]*=/) { held = cmd; cmd = "" }
      next
    }
    /^      / { if (match($0, /Exits [0-9]+/))
                  status = substr($0, RSTART + 6, RLENGTH - 6); next }
    END { flush() }
  '
}

# skip_reason EXAMPLE: why EXAMPLE cannot run here, or nothing.
skip_reason() {
  case $1 in
  *"softpmu stat"* | *"softpmu record"* | *"softpmu report"*)
    [ "$have_qemu" = 1 ] ||
      echo "softpmu stat and record need qemu-x86_64 and the plugin (report reads what record wrote)"
    ;;
  esac
  case $1 in
  *"perf report"* | *"perf script"*)
    [ "$have_perf" = 1 ] || echo "perf is not installed"
    [ "$have_qemu" = 1 ] ||
      echo "perf reads what softpmu record wrote, which needs qemu-x86_64 and the plugin"
    ;;
  esac
  case $1 in
  *"jq ."*) command -v jq >/dev/null 2>&1 || echo "jq is not installed" ;;
  esac
}

# run_example FROM STATUS TEXT
run_example() {
  why=$(skip_reason "$3" | head -n 1)
  if [ -n "$why" ]; then
    printf 'skip (%s): %s: %s\n' "$1" "$3" "$why"
    return
  fi
  checks=$((checks + 1))
  (cd "$work" && eval "$3") >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  if [ "$rc" != "$2" ]; then
    fail "$1: exit status $rc, expected $2:
$3
$(tail -n 5 "$tmp/err")"
  elif grep -q deprecated "$tmp/err"; then
    fail "$1: a deprecated spelling: $3: $(cat "$tmp/err")"
  fi
}

# run_all FROM: every example in $tmp/ex.
run_all() {
  while IFS= read -r st; do
    text=
    while IFS= read -r line && [ "$line" != "%%" ]; do
      text=${text:+$text
}$line
    done
    run_example "$1" "$st" "$text"
  done <"$tmp/ex"
}

"$SOFTPMU" --help | examples_of | installed_examples >"$tmp/ex"
run_all "softpmu --help"
# The commands in the order the manual lists them (record before report).
for cmd in $("$SOFTPMU" --help | awk '/^COMMANDS$/ { on = 1; next }
    on && /^    [a-z]/ { print $1 } on && /^$/ { exit }'); do
  "$SOFTPMU" "$cmd" --help | examples_of | installed_examples >"$tmp/ex"
  checks=$((checks + 1))
  [ -s "$tmp/ex" ] || fail "softpmu $cmd --help: no examples found"
  run_all "softpmu $cmd --help"
done

# README.md's sh blocks, one command a line (build/cli/softpmu is the
# tool), but for those that build or boot whole systems, which other
# tests cover.
readme_skip() {
  case $1 in
  scripts/demo*) echo "builds the tree in build/; demo_events checks its events on every preset" ;;
  scripts/check*) echo "the test command, which runs this test" ;;
  "cc -o "*) echo "the reader's program against an installed softpmu; install_pkgconfig builds such programs" ;;
  integrations/qemu/guest*) echo "builds QEMU and boots a guest; qemu_system_guest runs it" ;;
  scripts/package*) echo "builds the Debian packages (minutes; run by hand, README says how)" ;;
  scripts/qemu-user*) echo "builds QEMU in user mode (minutes; scripts/check builds QEMU 10.0 with it)" ;;
  "apt-get install ./build-deb/"* | "sudo apt-get install ./build-deb/"*) echo "installs the packages scripts/package built, as root" ;;
  esac
}
awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on && NF' "$ROOT/README.md" |
  sed 's|^build/cli/softpmu |softpmu |' >"$tmp/readme"
while IFS= read -r line; do
  why=$(readme_skip "$line")
  if [ -n "$why" ]; then
    printf 'skip (README.md): %s: %s\n' "$line" "$why"
    continue
  fi
  run_example README.md 0 "$line"
done <"$tmp/readme"

finish
