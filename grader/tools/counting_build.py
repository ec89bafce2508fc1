"""Builds a lab's count driver (count_drivers/labNN_count.cu) with a lab file, for the CPU
backend's counting mode or (plain) for the ordinary CPU backend, from the libraries of a meson build
folder configured with the CPU backend built (any CPU build, or a cuda build with project tests).
No GPU needed. Used by count_kernels.py (the CLI) and the counting tests.

The lab file is transformed (transform_launches.py, --counting when counting) and compiled with
-fsanitize=thread but linked with the counting library instead of libtsan; the driver is compiled
without instrumentation. Builds land in BUILD/counting/<key>/, key = a hash of the inputs."""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(GRADER)
BACKEND = os.path.join(GRADER, 'cpu_backend')
DRIVERS = os.path.join(GRADER, 'tools', 'count_drivers')
LIBRARIES = {'backend': 'grader/cpu_backend/libcuda_cpu_backend.a',
             'counting': 'grader/cpu_backend/counting/libcpu_backend_counting.a'}
# What meson's cpu_backend_cpp_args and counting/meson.build's cpu_backend_counting_cpp_args add.
COMMON_FLAGS = ['-std=c++17', '-O3', '-DCUDA_CPU_BACKEND=1', '-include', os.path.join(BACKEND, 'include', 'cuda_runtime.h'),
                '-Wno-unknown-pragmas', '-fno-strict-aliasing', '-Wno-unused-const-variable', '-pthread']
COUNTING_FLAGS = ['-include', os.path.join(BACKEND, 'counting', 'counting.hpp'), '-DCUDA_CPU_BACKEND_COUNTING=1']
INSTRUMENT_FLAGS = ['-fsanitize=thread', '-g', '-fno-tree-vectorize', '-fno-tree-slp-vectorize', '-fno-store-merging']


# False: use the libraries the build folder has (meson's tests, which depend on them; a second
# ninja in the same folder while meson test runs would race).
REBUILD_LIBRARIES = True


class BuildError(Exception):
    pass


def lab_folder(lab):
    """'04' -> ('04-thread-per-bin', 'lab04_thread_per_bin.cu') from labs/labs.txt."""
    with open(os.path.join(ROOT, 'labs', 'labs.txt'), encoding='utf-8') as f:
        for line in f:
            folder = line.split('#')[0].strip()
            if folder.split('-')[0] == lab:
                return folder, 'lab' + folder.replace('-', '_') + '.cu'
    raise BuildError(f'no lab {lab} in labs/labs.txt')


def compiler(build_dir):
    """The C++ compiler meson configured (without ccache: the flags differ per build anyway)."""
    with open(os.path.join(build_dir, 'meson-info', 'intro-compilers.json'), encoding='utf-8') as f:
        exelist = json.load(f)['host']['cpp']['exelist']
    return [e for e in exelist if os.path.basename(e) != 'ccache'] or ['c++']


def ensure_libraries(build_dir, counting):
    """Builds the backend (and counting) library in the meson build folder; returns their paths."""
    if not os.path.isfile(os.path.join(build_dir, 'meson-info', 'intro-compilers.json')):
        raise BuildError(f'{build_dir} is not a configured meson build folder '
                         '(meson setup BUILD -Dkernel_backend=cpu)')
    wanted = [LIBRARIES['backend']] + ([LIBRARIES['counting']] if counting else [])
    if not REBUILD_LIBRARIES and all(os.path.isfile(os.path.join(build_dir, w)) for w in wanted):
        return [os.path.join(build_dir, w) for w in reversed(wanted)]
    made = subprocess.run(['ninja', '-C', build_dir] + wanted, capture_output=True, text=True)
    if made.returncode != 0:
        raise BuildError(f'building the CPU backend in {build_dir} failed:\n{made.stdout[-3000:]}{made.stderr[-2000:]}')
    return [os.path.join(build_dir, w) for w in reversed(wanted)]


def _archive_members(path):
    """The object files of a thin archive (meson's static libraries are): the archive's own bytes
    stay the same when only their code changes, so a build key must read them."""
    with open(path, 'rb') as f:
        if f.read(8) != b'!<thin>\n':
            return []
    folder = os.path.dirname(os.path.abspath(path))
    listed = subprocess.run(['ar', 't', os.path.abspath(path)], cwd=folder, capture_output=True, text=True)
    return [os.path.join(folder, member) for member in listed.stdout.split()]


def _digest(paths, extra):
    h = hashlib.sha256(repr(extra).encode())
    for path in paths:
        with open(path, 'rb') as f:
            h.update(path.encode() + f.read())
    return h.hexdigest()[:16]


def _run(command, what):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f'{what} failed:\n$ {" ".join(command)}\n{done.stdout[-4000:]}{done.stderr[-4000:]}')


# The grader's yardsticks count like a lab: their driver runs yardstick_launches.cu, its "lab file".
YARDSTICKS = 'yardsticks'


def driver_target(lab):
    """(name, folder of its headers, driver, headers its build depends on, folders whose files are
    the project's own) of a lab ('01'..'06') or of the yardsticks."""
    if lab == YARDSTICKS:
        return (YARDSTICKS, DRIVERS, os.path.join(DRIVERS, 'yardsticks_count.cu'),
                [os.path.join(DRIVERS, 'yardstick_launches.cuh'), os.path.join(GRADER, 'core', 'yardstick_kernels.cuh')],
                [DRIVERS])
    folder, _ = lab_folder(lab)
    lab_dir = os.path.join(ROOT, 'labs', folder)
    headers = sorted(os.path.join(lab_dir, f) for f in os.listdir(lab_dir) if f.endswith(('.cuh', '.hpp')))
    own = [os.path.join(ROOT, d) for d in ('solutions', 'starter', os.path.join('labs', folder, 'known_wrong'))]
    return f'lab{lab}', lab_dir, os.path.join(DRIVERS, f'lab{lab}_count.cu'), headers, own


# Defines for the lab file alone: lab 00's file is a whole program, whose main() its driver calls.
LAB_FILE_DEFINES = {'00': ['main=lab00_program_main']}


def build_driver(build_dir, lab, submission_file, counting=True, defines=()):
    """Returns the path of the built driver for `lab` ('01'..'06', or YARDSTICKS) and the lab .cu
    file (the yardsticks': count_drivers/yardstick_launches.cu)."""
    name, lab_dir, driver, headers, own = driver_target(lab)
    if not os.path.isfile(driver):
        raise BuildError(f'lab {lab} has no count driver ({driver})')
    libraries = ensure_libraries(build_dir, counting)
    # The key also covers how a driver is made: this file and the launch transform.
    sources = [submission_file, driver, os.path.join(DRIVERS, 'count_driver.cuh'), os.path.realpath(__file__),
               os.path.join(BACKEND, 'transform_launches.py')] + headers
    members = [m for library in libraries for m in _archive_members(library)]
    key = _digest(sources + libraries + members, (lab, os.path.realpath(submission_file), counting, list(defines)))
    out = os.path.join(os.path.abspath(build_dir), 'counting', f'{name}-{"count" if counting else "plain"}-{key}')
    program = os.path.join(out, f'{name}_count')
    if os.path.isfile(program):
        return program
    os.makedirs(out, exist_ok=True)
    # Tests build the same driver in parallel: one builds under the lock, in a folder of its own,
    # and moves the finished program into place; the others wait and take it.
    with open(out + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isfile(program):
            # A submission's own copy of the lab header is not the lab's: graded builds ignore it too.
            shown_as = os.path.abspath(submission_file)  # what #line, and so every site, names
            if os.path.realpath(os.path.dirname(submission_file)) not in map(os.path.realpath, own):
                copy = os.path.join(out, os.path.basename(submission_file))
                shutil.copyfile(submission_file, copy)
                submission_file = copy
            work = tempfile.mkdtemp(prefix='build-', dir=out)
            try:
                os.replace(_compile(build_dir, name, lab_dir, driver, submission_file, counting, defines,
                                    libraries, work, shown_as), program)
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return program


def _compile(build_dir, name, lab_dir, driver, submission_file, counting, defines, libraries, out, shown_as):
    """Transforms, compiles and links into the folder `out`; returns the program's path there.
    `shown_as`: the path the #line directives give the submission (its own, not a copy's)."""
    cxx = compiler(build_dir)
    includes = ['-I', ROOT, '-I', lab_dir, '-I', DRIVERS, '-I', os.path.join(BACKEND, 'include')]
    mode = COUNTING_FLAGS if counting else []
    transformed = os.path.join(out, 'lab.cpp')
    _run(['python3', os.path.join(BACKEND, 'transform_launches.py'), submission_file, transformed, '-I', lab_dir]
         + (['--counting'] if counting else []), 'the launch transform')
    if os.path.abspath(submission_file) != shown_as:
        with open(transformed, encoding='utf-8') as f:
            text = f.read()
        named = f'"{os.path.abspath(submission_file)}"', f'"{submission_file}"'
        lines = [line.replace(named[0], f'"{shown_as}"').replace(named[1], f'"{shown_as}"')
                 if line.startswith('#line ') else line for line in text.split('\n')]
        with open(transformed, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
    flags = COMMON_FLAGS + mode + includes + [f'-D{d}' for d in defines] + ['-DGRADER_RUNNER_SIDE']
    quiet = ['-w']  # the student's warnings are the graded build's business
    lab_only = [f'-D{d}' for d in LAB_FILE_DEFINES.get(name[len('lab'):], [])]
    _run(cxx + flags + lab_only + (INSTRUMENT_FLAGS if counting else []) + quiet + ['-c', transformed, '-o', os.path.join(out, 'lab.o')],
         f'compiling {submission_file}')
    _run(cxx + flags + ['-x', 'c++', '-c', driver, '-o', os.path.join(out, 'driver.o')], f'compiling {driver}')
    program = os.path.join(out, f'{name}_count')
    _run(cxx + ['-pthread', os.path.join(out, 'lab.o'), os.path.join(out, 'driver.o')] + libraries + ['-ldl', '-o', program],
         'linking')
    return program


def run_driver(program, n=65536, input_kind='uniform', seed=1, only=None, counts_file=None, timeout=600,
               trace=None, sms=None):
    """Runs a built driver; returns (exit status, stdout, stderr). counts_file: where the counting
    mode writes its JSON (CUDA_CPU_BACKEND_COUNTS); trace: 'LABEL' or 'LABEL:BLOCK:WARP', one warp
    whose accesses the JSON gets under 'trace' (CUDA_CPU_BACKEND_TRACE); sms: the multiprocessor
    count the kernels see (CUDA_CPU_BACKEND_SM_COUNT), a GPU's, so grids sized by it match it."""
    args = [program, f'--n={n}', f'--input={input_kind}', f'--seed={seed}'] + ([f'--only={only}'] if only else [])
    env = dict(os.environ)
    env.pop('CUDA_CPU_BACKEND_COUNTS', None)
    env.pop('CUDA_CPU_BACKEND_TRACE', None)
    env.pop('CUDA_CPU_BACKEND_SM_COUNT', None)
    if sms:
        env['CUDA_CPU_BACKEND_SM_COUNT'] = str(sms)
    if counts_file:
        env['CUDA_CPU_BACKEND_COUNTS'] = counts_file
    if trace:
        env['CUDA_CPU_BACKEND_TRACE'] = trace
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)
    return done.returncode, done.stdout, done.stderr
