#!/usr/bin/env python3
"""Print the compute capabilities of the NVIDIA GPUs present, comma-separated (e.g. "86" or "80,90").

Prints nothing when no GPU is visible (no driver, no nvidia-smi, or nvidia-smi fails), so the build
can fall back to the CPU backend. Used by meson.build at configure time; grade.py asks it for the
free memory of the GPU it grades on (free_memory_mib). The one place the grader reads nvidia-smi
for the student's loop.
"""
import shutil
import subprocess


def detected_archs():
    nvidia_smi = shutil.which("nvidia-smi")
    if nvidia_smi is None:
        return []
    try:
        out = subprocess.run([nvidia_smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    archs = []
    for line in out.splitlines():
        major, _, minor = line.strip().partition(".")
        if major.isdigit() and minor.isdigit():
            arch = major + minor
            if arch not in archs:
                archs.append(arch)
    return archs


def free_memory_mib(device):
    """The free memory of GPU `device` (an index, as CUDA_VISIBLE_DEVICES names it) in MiB, or
    None when nvidia-smi is missing or does not answer."""
    nvidia_smi = shutil.which("nvidia-smi")
    if nvidia_smi is None:
        return None
    try:
        out = subprocess.run([nvidia_smi, "--query-gpu=memory.free", "--format=csv,noheader,nounits",
                              f"--id={device}"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.split()
    return int(words[0]) if words and words[0].isdigit() else None


if __name__ == "__main__":
    print(",".join(detected_archs()))
