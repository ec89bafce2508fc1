"""Builds and runs a lab's count program (labs/NN-*/labNN_count.cu: each graded function once, on a
seeded input) with a lab file, for the CPU backend's counting mode or (plain) for the ordinary CPU
backend, from the libraries of a meson build folder configured with the CPU backend built (any CPU
build, or a cuda build with project tests or explanations). No GPU needed. Used by
count_kernels.py (the CLI), explain/ and the counting tests.

The lab file is transformed (transform_launches.py, --counting when counting) and compiled with
the counting mode's instrumentation but linked with the counting library instead of libtsan; the
count program's own file is compiled without instrumentation. Every compiler flag comes from the
meson build (grader/counting/meson.build writes them into BUILD/grader/counting/counting-flags.json),
none is copied here. Builds land in BUILD/counting/<key>/, key = a hash of the inputs."""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections import namedtuple

from runs import labs as lab_list

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ROOT = os.path.dirname(GRADER)
BACKEND = os.path.join(GRADER, 'cpu_backend')
COUNTING = os.path.join(GRADER, 'counting')
PROGRAM_HEADER = os.path.join(COUNTING, 'count_program.cuh')  # what every count program shares
CORE = os.path.join(GRADER, 'core')
LIBRARIES = {'backend': 'grader/cpu_backend/libcuda_cpu_backend.a',
             'counting': 'grader/cpu_backend/counting/libcpu_backend_counting.a'}
FLAGS_FILE = os.path.join('grader', 'counting', 'counting-flags.json')

# False: use the libraries the build folder has (meson's tests, which depend on them; a second
# ninja in the same folder while meson test runs would race).
REBUILD_LIBRARIES = True

# The grader's yardsticks count like a lab: their count program runs core/yardstick_launches.cu,
# its "lab file".
YARDSTICKS = 'yardsticks'
YARDSTICK_LAB_FILE = os.path.join(CORE, 'yardstick_launches.cu')

# Defines for the lab file alone: lab 00's file is a whole program, whose main() its count program
# calls.
LAB_FILE_DEFINES = {'00': ['main=lab00_program_main']}

# A count program: its name (lab04, yardsticks), the folder of its headers, its own .cu file, the
# headers its build depends on, and the folders whose lab files are the project's own.
Target = namedtuple('Target', 'name folder main headers own')


class BuildError(Exception):
    pass


def counted_labs():
    """The numbers of the labs whose kernels the counting mode counts for the Why lines: those with
    a counters.json (runs/labs.py, kernel_lab_numbers)."""
    return lab_list.kernel_lab_numbers()


def lab_folder(lab):
    """'04' -> ('04-thread-per-bin', 'lab04_thread_per_bin.cu'), from runs/labs.py."""
    for found in lab_list.discover_labs(ROOT):
        if found.number == lab:
            return found.folder, found.submission_file
    raise BuildError(f'no lab {lab} in labs/labs.txt')


def target(lab):
    """The count program of a lab ('00'..'06') or of the yardsticks."""
    if lab == YARDSTICKS:
        return Target(YARDSTICKS, CORE, os.path.join(CORE, 'yardsticks_count.cu'),
                      [os.path.join(CORE, 'yardstick_launches.cuh'), os.path.join(CORE, 'yardstick_kernels.cuh')],
                      [CORE])
    folder, _ = lab_folder(lab)
    lab_dir = os.path.join(ROOT, 'labs', folder)
    headers = sorted(os.path.join(lab_dir, f) for f in os.listdir(lab_dir) if f.endswith(('.cuh', '.hpp')))
    own = [os.path.join(ROOT, d) for d in ('solutions', 'starter', os.path.join('labs', folder, 'known_wrong'))]
    return Target(f'lab{lab}', lab_dir, os.path.join(lab_dir, f'lab{lab}_count.cu'), headers, own)


def compiler(build_dir):
    """The C++ compiler meson configured (without ccache: the flags differ per build anyway)."""
    with open(os.path.join(build_dir, 'meson-info', 'intro-compilers.json'), encoding='utf-8') as f:
        exelist = json.load(f)['host']['cpp']['exelist']
    return [e for e in exelist if os.path.basename(e) != 'ccache'] or ['c++']


def compile_flags(build_dir):
    """The meson build's flags: {'cpp': every transformed file's, 'counting': the counting mode's
    (both files), 'instrument': the lab file's alone when counting, 'nvcc': a cuda build's}."""
    path = os.path.join(build_dir, FLAGS_FILE)
    if not os.path.isfile(path):
        raise BuildError(f'{build_dir} has no {FLAGS_FILE}: its CPU backend is not configured '
                         f'(meson setup --reconfigure {build_dir}, or a CPU build: -Dkernel_backend=cpu)')
    with open(path, encoding='utf-8') as f:
        return json.load(f)


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


def build(build_dir, lab, lab_file, counting=True, defines=(), out_root=None):
    """Returns the path of the count program of `lab` ('00'..'06', or YARDSTICKS) built with the lab
    .cu file `lab_file` (the yardsticks': YARDSTICK_LAB_FILE). `out_root`: where it is built
    (default BUILD/counting; the batch gives a folder of the submission's own, the build folder
    being read-only in its sandbox)."""
    made = target(lab)
    if not os.path.isfile(made.main):
        raise BuildError(f'lab {lab} has no count program ({made.main})')
    flags = compile_flags(build_dir)
    libraries = ensure_libraries(build_dir, counting)
    # The key also covers how a count program is made: this file, the launch transform, the flags.
    sources = [lab_file, made.main, PROGRAM_HEADER, os.path.realpath(__file__),
               os.path.join(BACKEND, 'transform_launches.py')] + made.headers
    members = [m for library in libraries for m in _archive_members(library)]
    key = _digest(sources + libraries + members, (lab, os.path.realpath(lab_file), counting, list(defines), flags))
    out = os.path.join(os.path.abspath(out_root or os.path.join(build_dir, 'counting')),
                       f'{made.name}-{"count" if counting else "plain"}-{key}')
    program = os.path.join(out, f'{made.name}_count')
    if os.path.isfile(program):
        return program
    os.makedirs(out, exist_ok=True)
    # Tests build the same program in parallel: one builds under the lock, in a folder of its own,
    # and moves the finished program into place; the others wait and take it.
    with open(out + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isfile(program):
            # A submission's own copy of the lab header is not the lab's: graded builds ignore it too.
            shown_as = os.path.abspath(lab_file)  # what #line, and so every site, names
            if os.path.realpath(os.path.dirname(lab_file)) not in map(os.path.realpath, made.own):
                copy = os.path.join(out, os.path.basename(lab_file))
                shutil.copyfile(lab_file, copy)
                lab_file = copy
            work = tempfile.mkdtemp(prefix='build-', dir=out)
            try:
                os.replace(_compile(build_dir, flags, made, lab_file, counting, defines, libraries, work, shown_as),
                           program)
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return program


def _compile(build_dir, flags, made, lab_file, counting, defines, libraries, out, shown_as):
    """Transforms, compiles and links into the folder `out`; returns the program's path there.
    `shown_as`: the path the #line directives give the lab file (its own, not a copy's)."""
    cxx = compiler(build_dir)
    includes = ['-I', ROOT, '-I', made.folder, '-I', COUNTING, '-I', os.path.join(BACKEND, 'include')]
    transformed = os.path.join(out, 'lab.cpp')
    _run(['python3', os.path.join(BACKEND, 'transform_launches.py'), lab_file, transformed, '-I', made.folder]
         + (['--counting'] if counting else []), 'the launch transform')
    if os.path.abspath(lab_file) != shown_as:
        with open(transformed, encoding='utf-8') as f:
            text = f.read()
        named = f'"{os.path.abspath(lab_file)}"', f'"{lab_file}"'
        lines = [line.replace(named[0], f'"{shown_as}"').replace(named[1], f'"{shown_as}"')
                 if line.startswith('#line ') else line for line in text.split('\n')]
        with open(transformed, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
    common = (flags['cpp'] + (flags['counting'] if counting else []) + includes + [f'-D{d}' for d in defines]
              + ['-DGRADER_RUNNER_SIDE'])
    quiet = ['-w']  # the student's warnings are the graded build's business
    lab_only = [f'-D{d}' for d in LAB_FILE_DEFINES.get(made.name[len('lab'):], [])]
    _run(cxx + common + lab_only + (flags['instrument'] if counting else []) + quiet
         + ['-c', transformed, '-o', os.path.join(out, 'lab.o')], f'compiling {lab_file}')
    main = main_object(build_dir, made, counting, defines, out)
    program = os.path.join(out, f'{made.name}_count')
    _run(cxx + ['-pthread', os.path.join(out, 'lab.o'), main] + libraries + ['-ldl', '-o', program],
         'linking')
    return program


def main_object(build_dir, made, counting, defines=(), scratch=None):
    """The count program's own file compiled (half a count program's build): kept in
    BUILD/counting under a key of its sources and flags, so each lab file after the first compiles
    only itself. Where that folder cannot be written (the batch's sandbox sees the build read-only,
    its set-up having made them), it is compiled into `scratch`."""
    flags = compile_flags(build_dir)
    backend_headers = sorted(os.path.join(d, f) for d, _, names in os.walk(os.path.join(BACKEND, 'include'))
                             for f in names)
    backend_headers += sorted(os.path.join(BACKEND, 'counting', f) for f in os.listdir(os.path.join(BACKEND, 'counting'))
                              if f.endswith('.hpp'))
    key = _digest([made.main, PROGRAM_HEADER, os.path.realpath(__file__)] + made.headers + backend_headers,
                  (made.name, counting, list(defines), flags))
    kept = os.path.join(os.path.abspath(build_dir), 'counting', f'{made.name}-main-{key}.o')
    if os.path.isfile(kept):
        return kept
    includes = ['-I', ROOT, '-I', made.folder, '-I', COUNTING, '-I', os.path.join(BACKEND, 'include')]
    command = (compiler(build_dir) + flags['cpp'] + (flags['counting'] if counting else []) + includes
               + [f'-D{d}' for d in defines] + ['-DGRADER_RUNNER_SIDE', '-x', 'c++', '-c', made.main])
    try:
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        partial = tempfile.mkdtemp(prefix='main-', dir=os.path.dirname(kept))
    except OSError:
        if scratch is None:
            raise
        _run(command + ['-o', os.path.join(scratch, 'main.o')], f'compiling {made.main}')
        return os.path.join(scratch, 'main.o')
    try:
        _run(command + ['-o', os.path.join(partial, 'main.o')], f'compiling {made.main}')
        os.replace(os.path.join(partial, 'main.o'), kept)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return kept


def run(program, n=65536, input_kind='uniform', seed=1, only=None, counts_file=None, timeout=600,
        trace=None, sms=None, races=False, counts=True):
    """Runs a built count program; returns (exit status, stdout, stderr). counts_file: where the
    counting mode writes its JSON (CUDA_CPU_BACKEND_COUNTS); trace: 'LABEL' or 'LABEL:BLOCK:WARP',
    one warp whose accesses the JSON gets under 'trace' (CUDA_CPU_BACKEND_TRACE); sms: the
    multiprocessor count the kernels see (CUDA_CPU_BACKEND_SM_COUNT), a GPU's, so grids sized by it
    match it; races: the race detector on (CUDA_CPU_BACKEND_RACES=1), its witnesses in the JSON
    under 'races'; counts: False leaves the counts out (CUDA_CPU_BACKEND_COUNTING=0, faster)."""
    args, settings = command(program, n, input_kind, seed, only, counts_file, trace, sms, races, counts)
    env = {k: v for k, v in os.environ.items() if k not in RUN_VARIABLES}
    done = subprocess.run(args, capture_output=True, text=True, env=dict(env, **settings), timeout=timeout)
    return done.returncode, done.stdout, done.stderr


RUN_VARIABLES = ('CUDA_CPU_BACKEND_COUNTS', 'CUDA_CPU_BACKEND_TRACE', 'CUDA_CPU_BACKEND_SM_COUNT',
                 'CUDA_CPU_BACKEND_RACES', 'CUDA_CPU_BACKEND_COUNTING')


def command(program, n=65536, input_kind='uniform', seed=1, only=None, counts_file=None, trace=None,
            sms=None, races=False, counts=True):
    """How run() starts a count program: (argv, the environment variables it is given, of
    RUN_VARIABLES); the batch starts it so in its sandbox."""
    args = [program, f'--n={n}', f'--input={input_kind}', f'--seed={seed}'] + ([f'--only={only}'] if only else [])
    settings = {}
    if races:
        settings['CUDA_CPU_BACKEND_RACES'] = '1'
    if not counts:
        settings['CUDA_CPU_BACKEND_COUNTING'] = '0'
    if sms:
        settings['CUDA_CPU_BACKEND_SM_COUNT'] = str(sms)
    if counts_file:
        settings['CUDA_CPU_BACKEND_COUNTS'] = counts_file
    if trace:
        settings['CUDA_CPU_BACKEND_TRACE'] = trace
    return args, settings
