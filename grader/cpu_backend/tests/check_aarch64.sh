#!/usr/bin/env bash
# The CPU backend on aarch64 Linux, from an x86-64 machine: cross-builds the backend, its tests and
# lab 01 (graded on solutions/) with g++-aarch64-linux-gnu, runs them under qemu-user, and checks
# that lab 01's solutions get every correctness point (speed tests skip on the CPU backend). Also
# prints the fiber switch costs measured under qemu (an emulator: relative figures only).
#
#   grader/cpu_backend/tests/check_aarch64.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds in a new temporary folder and removes it (a reused folder could hold
# a build of another checkout); with BUILD_DIR it reuses that build.
#
# Needs the Debian/Ubuntu packages g++-aarch64-linux-gnu and qemu-user (exit 77, skipped, without
# them) and GoogleTest's sources (/usr/src/googletest, package googletest) or the wrap's download:
# the machine's own libgtest is x86-64. The cross file: grader/cpu_backend/cross/aarch64-linux-gnu.ini.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
for tool in aarch64-linux-gnu-g++ qemu-aarch64 meson; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (apt install g++-aarch64-linux-gnu qemu-user; meson from requirements.txt)"
    exit 77
  fi
done
if [ $# -ge 1 ]; then
  build="$1"
else
  build="$(mktemp -d "${TMPDIR:-/tmp}/workbook-aarch64.XXXXXX")"
  trap 'rm -rf "$build"' EXIT
fi

if [ ! -f "$build/meson-private/coredata.dat" ]; then
  meson setup "$build" "$root" --cross-file "$root/grader/cpu_backend/cross/aarch64-linux-gnu.ini" \
    -Dkernel_backend=cpu -Dlabs=01 -Dsubmission=solutions -Dproject_tests=false
fi
grep -q "CPU backend fibers: assembly (linux aarch64)" "$build/meson-logs/meson-log.txt" ||
  { echo "FAIL: the aarch64 build does not use the hand-written aarch64 switch"; exit 1; }

# Only what is run here: the backend's tests and benchmark, lab 01's checker and runner, the data.
targets=(lab01_checker lab01_runner_graded grader_yardstick_runner standard-data cpu_backend_fiber_switch_bench)
for name in atomics barrier indexing launch memory qualifiers runtime schedule shared_memory warp; do
  targets+=("cpu_backend_test_${name}")
done
meson compile -C "$build" "${targets[@]}"
for program in labs/lab01_checker labs/lab01_runner_graded; do
  file "$build/$program" | grep -q "ARM aarch64" || { echo "FAIL: $program is not an aarch64 program"; exit 1; }
done

# meson runs the aarch64 programs through the cross file's exe_wrapper (qemu-aarch64). One death
# test is left out: its "threadsafe" style re-executes /proc/self/exe, which qemu-user cannot do
# without binfmt_misc ("Exec format error"); the rest of its program runs.
backend_tests=(atomics_test barrier_test indexing_test launch_test memory_test runtime_test schedule_test
               schedule_environment_test shared_memory_test warp_test transform_launches_test)
meson test -C "$build" --no-rebuild --print-errorlogs "${backend_tests[@]}"
qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/grader/cpu_backend/tests/cpu_backend_test_qualifiers" \
  --gtest_filter=-Qualifiers.DeviceAssertIsTheHostsAssert
# Lab 01's graded test is grade.py's harness (grader/grade_lab.py), which starts the checker; the
# checker starts lab 01's runner. Both through qemu (GRADER_CHECKER_WRAPPER, GRADER_RUNNER_WRAPPER,
# one argument a line), as qemu-user does not follow an exec of another aarch64 program.
qemu=$'qemu-aarch64\n-L\n/usr/aarch64-linux-gnu'
GRADER_CHECKER_WRAPPER="$qemu" GRADER_RUNNER_WRAPPER="$qemu" \
  meson test -C "$build" --no-rebuild --suite lab01 --print-errorlogs || true  # judged from its results file below

python3 - "$build/results/lab01.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
tests = results["tests"]
skipped = [t for t in tests if t["status"] == "skipped"]
failed = [t for t in tests if t["status"] not in ("passed", "skipped")]
# Speed tests skip on the CPU backend: every point of the tests that ran must be earned.
correctness = sum(t["max_score"] for t in tests if t["status"] != "skipped")
print(f"lab01 on aarch64 (qemu), solutions: {results['score']}/{correctness} correctness points "
      f"({results['max_score']} with the speed tests a GPU runs); {len(tests) - len(skipped) - len(failed)} "
      f"tests passed, {len(skipped)} skipped, {len(failed)} failed")
for t in failed:
    print(f"  FAILED {t.get('name')}: {t.get('message', '')[:200]}")
sys.exit(1 if failed or results["score"] != correctness or correctness == 0 else 0)
PY

qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/grader/cpu_backend/cpu_backend_fiber_switch_bench"
echo "ok: the CPU backend and lab 01 pass on aarch64"
