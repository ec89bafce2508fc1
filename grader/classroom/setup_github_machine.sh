#!/usr/bin/env bash
# The Classroom workflow's set-up on GitHub's hosted runner (ubuntu-latest), before
# grade_repo.py: the packages grading on the CPU backend needs (the batch's list), and user
# namespaces for its sandbox. grade_submissions.py then puts meson, ninja and numpy into .venv.
# Runs as the runner's user (sudo without a password) or as root; changes only what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash grader/batch/install_cpu_tools.sh
as_root=()
if [[ "$(id -u)" != 0 ]]; then
  as_root=(sudo -n)
fi
# The sandbox (bubblewrap) runs as this user in a user namespace of its own. Ubuntu 24.04's
# AppArmor refuses those to unprivileged programs, and some kernels switch them off; without
# them the grader refuses to grade (it never runs student code unconfined on its own).
if [[ "$(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null || echo 0)" == 1 ]]; then
  "${as_root[@]}" sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0
fi
if [[ "$(sysctl -n kernel.unprivileged_userns_clone 2>/dev/null || echo 1)" == 0 ]]; then
  "${as_root[@]}" sysctl -q -w kernel.unprivileged_userns_clone=1
fi
echo "set-up done: the grader's packages are installed and user namespaces are allowed"
