#!/usr/bin/env bash
# Configures the cpu and the cuda backend with a given meson release: by default the oldest one
# meson.build claims (`meson_version: '>=X'`), which is what Debian 12 ships and what students'
# distributions may have; `latest` for the newest on PyPI. Each meson is pip-installed into its own
# virtual environment (kept between runs, under $TMPDIR), with ninja and numpy.
#
#   grader/tools/check_old_meson.sh              # the minimum version
#   grader/tools/check_old_meson.sh 1.3.2 latest # any others
#
# Both backends are configured in temporary build folders (-Dlabs=01, project tests on, the cuda one
# with -Dgpu_archs=75: no GPU needed) and one small host program is compiled in each. The cuda
# backend is left out, with a note, where no nvcc is found (grader/toolchain.py searches PATH,
# CUDA_PATH, CUDA_HOME, /usr/local/cuda*, /opt/cuda). Exits non-zero at the first failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
minimum="$(sed -n "s/.*meson_version: *'>=\([0-9.]*\)'.*/\1/p" "$root/meson.build" | head -n 1)"
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=("$minimum")

nvcc="$(python3 "$root/grader/toolchain.py" cuda-toolkit | sed -n 1p)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/meson-versions.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

for version in "${versions[@]}"; do
  venv="${TMPDIR:-/tmp}/workbook-meson-$version"
  if [ ! -x "$venv/bin/meson" ]; then
    spec="meson==$version"
    [ "$version" = latest ] && spec=meson
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec" ninja numpy
  fi
  # The venv first: its python3 (with numpy) is the one meson.build finds; nvcc's folder too, since
  # meson looks for the CUDA compiler on PATH only.
  path="$venv/bin:$PATH"
  [ -n "$nvcc" ] && path="$venv/bin:$(dirname "$nvcc"):$PATH"
  found="$(PATH="$path" meson --version)"
  backends=(cpu)
  if [ -n "$nvcc" ]; then backends+=(cuda); else echo "meson $found: no nvcc found, cuda backend not configured"; fi
  for backend in "${backends[@]}"; do
    build="$scratch/$version-$backend"
    options=(-Dkernel_backend="$backend" -Dlabs=01 -Dproject_tests=true)
    [ "$backend" = cuda ] && options+=(-Dgpu_archs=75)
    if ! PATH="$path" meson setup "$build" "$root" "${options[@]}" > "$scratch/setup.log" 2>&1; then
      cat "$scratch/setup.log"
      echo "FAIL: meson $found could not configure the $backend backend"
      exit 1
    fi
    if ! PATH="$path" meson compile -C "$build" first_bins > "$scratch/compile.log" 2>&1; then
      cat "$scratch/compile.log"
      echo "FAIL: meson $found configured the $backend backend, but its build of first_bins failed"
      exit 1
    fi
    echo "ok: meson $found configures the $backend backend and builds first_bins"
  done
done
