#!/usr/bin/env bash
# The Debian/Ubuntu packages grade_submissions.py needs to grade on the CPU backend in its sandbox:
# g++ (with binutils' nm for the symbol checks), GoogleTest through pkg-config (otherwise meson
# downloads it at each build), bubblewrap and util-linux (prlimit, setpriv) for the sandbox, and
# python3-venv (grade_submissions.py puts meson, ninja and numpy into the project's .venv).
# Used by the Gradescope template (gradescope/setup.sh), the GitHub Classroom workflow
# (classroom/setup_github_machine.sh) and a PrairieLearn grader image (handouts/instructor-guide.md).
# Installs only what is missing (apt-get update first, then), as root or through sudo -n.
set -euo pipefail
packages=(python3 python3-venv python3-pip g++ binutils pkg-config libgtest-dev bubblewrap util-linux)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "grading tools: every package is installed (${packages[*]})"
  exit 0
fi
as_root=()
if [[ "$(id -u)" != 0 ]]; then
  if ! sudo -n true 2>/dev/null; then
    echo "error: these packages are missing and this user cannot install them (no root, no" \
      "sudo without a password): ${missing[*]}" >&2
    exit 1
  fi
  as_root=(sudo -n)
fi
echo "grading tools: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
