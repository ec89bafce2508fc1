#!/usr/bin/env python3
"""The tools a build needs, found and checked the same way by grade.py and meson.build.

Standard library only: it runs before .venv exists (grade.py) and under whatever python3 meson
found. Functions:

  find_cuda_toolkit()        nvcc: on PATH, else CUDA_PATH/CUDA_HOME, /usr/local/cuda/bin, the newest
                             /usr/local/cuda-X.Y/bin, /opt/cuda/bin (where NVIDIA's installers and
                             distributions put it, often not on PATH)
  nvcc_version(nvcc)         "12.4", "13.0", or None
  nvcc_archs(nvcc)           the compute capabilities it builds for that this project supports
  environment_with_nvcc(...) an environment whose PATH holds nvcc's folder (meson looks for the
                             CUDA compiler on PATH only)
  meson_version_ok(path)     (ok, version, why): meson too old for meson.build is the commonest
                             set-up failure (Ubuntu 22.04 ships 0.61)
  venv_available()           (ok, why): Debian/Ubuntu/Colab python3 lacks ensurepip without the
                             python3-venv package, and `python3 -m venv` then half-makes the folder
  detected_archs()           the compute capabilities of the NVIDIA GPUs present (nvidia-smi), none
                             when no GPU is visible, so the build falls back to the CPU backend
  free_memory_mib(device)    a GPU's free memory (grade.py: how many labs it grades side by side)
  backend_of(build_dir)      "cuda" or "cpu", the backend a build was configured with, or None

Command line (meson.build calls the first three):
  toolchain.py gpu-archs      the GPUs' compute capabilities, comma-separated ("86", "80,90"), or
                              nothing
  toolchain.py cuda-toolkit   four lines: nvcc path, version, architectures (comma-separated),
                              "on-path" or "off-path"; empty lines when no toolkit is found
  toolchain.py write-line FILE [TEXT...]   FILE holds TEXT on one line, or nothing
  toolchain.py check          a readable summary of all of the above
"""
import glob
import os
import re
import shutil
import subprocess
import sys

# meson.build's `meson_version: '>=1.0.1'` (a unit test keeps the two equal).
MIN_MESON = (1, 0, 1)
# Volta and later: independent thread scheduling, which the labs' _sync warp code assumes.
MIN_ARCH = 70
# For an nvcc too old to have --list-gpu-arch (before CUDA 11.0): never a supported toolkit, but
# the message should still say which architectures it has.
FALLBACK_ARCHS = ['70', '72', '75']


def version_tuple(text):
    """'1.3.2' -> (1, 3, 2); the leading numeric part only ('1.4.0rc1' -> (1, 4, 0))."""
    numbers = []
    for part in text.strip().split('.'):
        digits = re.match(r'\d+', part)
        if not digits:
            break
        numbers.append(int(digits.group(0)))
    return tuple(numbers)


def _run(command, timeout=60):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout + done.stderr if done.returncode == 0 else None


def _is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def cuda_search_dirs(env=None):
    """Folders that may hold nvcc besides PATH, in the order they are searched."""
    env = os.environ if env is None else env
    dirs = []
    for variable in ('CUDA_PATH', 'CUDA_HOME'):
        if env.get(variable):
            dirs.append(os.path.join(env[variable], 'bin'))
    dirs.append('/usr/local/cuda/bin')
    versioned = glob.glob('/usr/local/cuda-*/bin')
    versioned.sort(key=lambda d: version_tuple(os.path.basename(os.path.dirname(d))[len('cuda-'):]),
                   reverse=True)
    dirs += versioned
    dirs.append('/opt/cuda/bin')
    return dirs


def find_cuda_toolkit(env=None, search_dirs=None):
    """The path of nvcc, or None. PATH first: what the user chose wins."""
    env = os.environ if env is None else env
    on_path = shutil.which('nvcc', path=env.get('PATH', os.defpath))
    if on_path:
        return os.path.abspath(on_path)
    for folder in cuda_search_dirs(env) if search_dirs is None else search_dirs:
        candidate = os.path.join(folder, 'nvcc')
        if _is_executable(candidate):
            return candidate
    return None


def nvcc_on_path(nvcc, env=None):
    env = os.environ if env is None else env
    found = shutil.which('nvcc', path=env.get('PATH', os.defpath))
    return bool(found) and os.path.realpath(found) == os.path.realpath(nvcc)


def environment_with_nvcc(nvcc, env=None):
    """A copy of env whose PATH starts with nvcc's folder (unchanged if nvcc is already found)."""
    env = dict(os.environ if env is None else env)
    if nvcc and not nvcc_on_path(nvcc, env):
        env['PATH'] = os.path.dirname(nvcc) + os.pathsep + env.get('PATH', os.defpath)
    return env


def nvcc_version(nvcc):
    """'12.4' from 'Cuda compilation tools, release 12.4, V12.4.131'; None if nvcc does not run."""
    out = _run([nvcc, '--version'])
    match = re.search(r'release (\d+\.\d+)', out or '')
    return match.group(1) if match else None


def parse_arch_list(text):
    """`nvcc --list-gpu-arch` output -> ['70', '72', ...]: the plain compute_NN of MIN_ARCH and up
    (no 'a'/'f' variants: they run on one architecture only), in the toolkit's order, sorted."""
    archs = set()
    for token in text.split():
        match = re.fullmatch(r'(?:compute|sm)_(\d+)', token.strip())
        if match and int(match.group(1)) >= MIN_ARCH:
            archs.add(match.group(1))
    return sorted(archs, key=int)


def nvcc_archs(nvcc):
    out = _run([nvcc, '--list-gpu-arch'])
    if out is None:
        return list(FALLBACK_ARCHS)
    return parse_arch_list(out)


def meson_version_ok(path=None, minimum=MIN_MESON):
    """(ok, version, why) for the meson at `path`, or the one on PATH when path is None."""
    meson = path or shutil.which('meson')
    if not meson:
        return False, None, 'meson is not installed (not on PATH)'
    out = _run([meson, '--version'])
    if out is None:
        return False, None, f'{meson} does not run (`{meson} --version` failed)'
    version = out.strip().splitlines()[-1].strip() if out.strip() else ''
    wanted = '.'.join(str(n) for n in minimum)
    if not version_tuple(version):
        return False, version or None, f'{meson} printed no version number'
    if version_tuple(version) < minimum:
        return False, version, f'{meson} is meson {version}; this project needs meson >= {wanted}'
    return True, version, f'{meson} is meson {version} (>= {wanted})'


def venv_available(python=None):
    """(ok, why): can `python -m venv` make a virtual environment with pip in it?"""
    python = python or sys.executable
    probe = 'import venv, ensurepip'
    try:
        done = subprocess.run([python, '-c', probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f'{python} does not run: {error}'
    if done.returncode == 0:
        return True, f'{python} -m venv works'
    return False, (f'{python} cannot make a virtual environment: its ensurepip module is missing. '
                   f'On Debian/Ubuntu (and Colab) install the python3-venv package '
                   f'(sudo apt install python3-venv; for another python3.X, python3.X-venv), then '
                   f'delete any half-made .venv folder and run again')


def _nvidia_smi(query, timeout, check=True):
    """nvidia-smi's answer to `query` (arguments), or None without one. The one place the grader
    reads nvidia-smi for the student's loop."""
    nvidia_smi = shutil.which('nvidia-smi')
    if nvidia_smi is None:
        return None
    try:
        return subprocess.run([nvidia_smi] + query, capture_output=True, text=True, timeout=timeout,
                              check=check).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def detected_archs():
    """The compute capabilities of the GPUs present, each once (['90', '86']); [] without any."""
    archs = []
    for line in (_nvidia_smi(['--query-gpu=compute_cap', '--format=csv,noheader'], 30) or '').splitlines():
        major, _, minor = line.strip().partition('.')
        if major.isdigit() and minor.isdigit() and major + minor not in archs:
            archs.append(major + minor)
    return archs


def free_memory_mib(device):
    """The free memory of GPU `device` (an index, as CUDA_VISIBLE_DEVICES names it) in MiB, or
    None when nvidia-smi is missing or does not answer."""
    words = (_nvidia_smi(['--query-gpu=memory.free', '--format=csv,noheader,nounits', f'--id={device}'], 20, check=False)
             or '').split()
    return int(words[0]) if words and words[0].isdigit() else None


def backend_of(build_dir):
    """"cuda" or "cpu" as meson configured build_dir (its backend.txt), or None."""
    try:
        with open(os.path.join(build_dir, 'backend.txt'), encoding='utf-8') as f:
            return f.read().strip()
    except OSError:
        return None


def cuda_toolkit_lines(env=None):
    """What `toolchain.py cuda-toolkit` prints: path, version, archs, on-path/off-path."""
    nvcc = find_cuda_toolkit(env)
    if not nvcc:
        return ['', '', '', '']
    version = nvcc_version(nvcc) or 'unknown'
    return [nvcc, version, ','.join(nvcc_archs(nvcc)),
            'on-path' if nvcc_on_path(nvcc, env) else 'off-path']


def main(argv):
    command = argv[1] if len(argv) > 1 else 'check'
    if command == 'gpu-archs':
        print(','.join(detected_archs()))
        return 0
    if command == 'cuda-toolkit':
        print('\n'.join(cuda_toolkit_lines()))
        return 0
    if command == 'write-line':  # meson.build: build/backend-reason.txt, empty or one line
        text = ' '.join(argv[3:]).strip()
        with open(argv[2], 'w', encoding='utf-8') as out:
            out.write(text + '\n' if text else '')
        return 0
    if command == 'check':
        ok, version, why = meson_version_ok()
        print(f'meson: {"ok" if ok else "NOT OK"}: {why}')
        nvcc = find_cuda_toolkit()
        if nvcc:
            where = 'on PATH' if nvcc_on_path(nvcc) else 'not on PATH (grade.py adds its folder)'
            print(f'CUDA: {nvcc}, CUDA {nvcc_version(nvcc)}, {where}; builds for '
                  f'{", ".join(nvcc_archs(nvcc))}')
        else:
            print('CUDA: no nvcc found (PATH, CUDA_PATH, CUDA_HOME, /usr/local/cuda*, /opt/cuda)')
        ok, why = venv_available()
        print(f'venv: {"ok" if ok else "NOT OK"}: {why}')
        return 0
    print(f'usage: {argv[0]} [gpu-archs|cuda-toolkit|write-line FILE TEXT|check]', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
