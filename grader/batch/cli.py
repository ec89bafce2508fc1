"""grade_submissions.py's command line: its options, their checks and error messages, made into
one Settings (settings.py). Nothing here grades: pipeline.grade_class does, from the Settings."""
import argparse
import os
import sys

from batch import project, submissions
from batch.cpus import available_cpus
from batch.paths import ReportPaths, WorkPaths, default_work_dir
from batch.settings import MAX_SECRET, Seeds, Settings

USAGE_EPILOG = """\
examples:
  grade_submissions.py class/ --out report/                     every lab, CUDA on every GPU
  grade_submissions.py class/ --out report/ --labs 01 --seed-file seeds.txt
  grade_submissions.py class/ --out r1/ --shard 1/2             (and --shard 2/2 on a 2nd machine)
  grade_submissions.py merge --out report/ r1/ r2/
Hidden seeds: --input-seed draws the inputs the lab checkers generate; --data-seed (and
--data-count) make the data file the tests read. Each is a secret (an integer below 2^256, e.g.
python3 -c "import secrets; print(secrets.randbits(128))"): every submission is graded with
seeds of its own, derived from it, the student and their files. A seed file holds either or
both, one a line ("input-seed N", "data-seed N"), or one integer for both.
Exit status: 0 every submission graded (whatever its score), 1 some could not be graded,
2 usage or set-up error.
"""
SEED_NAMES = {"input-seed": "input_seed", "data-seed": "data_seed"}  # in a seed file: args' names
SEED_FLAGS = {key: "--" + name for name, key in SEED_NAMES.items()}


def default_jobs():
    """Half the CPUs this process was given (a Slurm job's allocation, not the whole node), 1 to 4."""
    return max(1, min(4, available_cpus() // 2))


def non_negative(text):
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def read_seed_file(path):
    """{"input_seed": N, "data_seed": M} (either may be absent) from a seed file: lines
    "input-seed N" and "data-seed N" ('#' starts a comment), or one integer for both."""
    with open(path) as f:
        lines = [line.split("#")[0].strip() for line in f]
    lines = [line for line in lines if line]
    if len(lines) == 1 and lines[0].isdigit():
        return {"input_seed": int(lines[0]), "data_seed": int(lines[0])}
    seeds = {}
    for line in lines:
        name, _, value = line.replace("=", " ").partition(" ")
        if name not in SEED_NAMES or SEED_NAMES[name] in seeds:
            raise ValueError(f"{line!r}: give each of {', '.join(SEED_NAMES)} once, as NAME N")
        seeds[SEED_NAMES[name]] = non_negative(value.strip())
    if not seeds:
        raise ValueError("it holds no seed")
    return seeds


def seed_file_text(seeds):
    """A seed file holding `seeds` ({"input_seed": N, "data_seed": M}): one integer when equal."""
    if seeds.get("input_seed") is not None and seeds.get("input_seed") == seeds.get("data_seed"):
        return str(seeds["input_seed"])
    return "\n".join(f"{name} {seeds[key]}" for name, key in SEED_NAMES.items()
                     if seeds.get(key) is not None)


def add_seed_arguments(parser):
    parser.add_argument("--input-seed", type=int, metavar="N",
                        help="secret the hidden seeds of the inputs the lab checkers generate "
                             "are derived from, per submission (visible to "
                             "other users of this machine in the process list: prefer --seed-file)")
    parser.add_argument("--data-seed", type=int, metavar="N",
                        help="secret the hidden seeds of the data file the tests read are "
                             "derived from: a file generated per submission (data/generate.py "
                             "--keyed; default: the project's data file)")
    parser.add_argument("--data-count", type=int, metavar="N",
                        help="size of the generated data file (samples)")
    parser.add_argument("--seed-file", metavar="FILE",
                        help="a file holding the hidden seeds (keep it readable by you alone): "
                             "'input-seed N' and/or 'data-seed N', one a line, or one integer "
                             "for both")


def check_seeds(parser, args):
    """Resolves --seed-file into args.input_seed, args.data_seed;
    args.seed becomes the text of a seed file holding what those two gave (or None), which
    grader/gradescope/make_autograder_zip.py copies into the autograder's own seed file."""
    given = {key: getattr(args, key) for key in SEED_NAMES.values() if getattr(args, key) is not None}
    carried = {}
    if args.seed_file:
        try:
            carried = read_seed_file(args.seed_file)
        except (OSError, ValueError) as error:
            parser.error(f"--seed-file {args.seed_file}: {error}; it holds 'input-seed N' and/or "
                         "'data-seed N', one a line, or one integer for both")
    twice = sorted(set(given) & set(carried))
    if twice:
        parser.error(f"{SEED_FLAGS[twice[0]]} is given twice (and by --seed-file)")
    for key, value in dict(given, **carried).items():
        if not 0 <= value < MAX_SECRET:
            parser.error(f"{SEED_FLAGS[key]} must be a non-negative integer below 2^256")
        setattr(args, key, value)
    args.seed = seed_file_text(carried) if carried else None


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="grade_submissions.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Grade every submission in SUBMISSIONS (one folder or .zip/.tar.gz per "
                    "student) and write per-student Gradescope results and a class report.",
        epilog=USAGE_EPILOG)
    parser.add_argument("submissions", metavar="SUBMISSIONS")
    parser.add_argument("--out", required=True, metavar="REPORT_DIR")
    parser.add_argument("--labs", default="all", help="labs to grade, e.g. 01,03 (default: all)")
    parser.add_argument("--backend", choices=["cuda", "cpu"], default="cuda",
                        help="cuda (default: timings need a GPU) or cpu (correctness and technique, no speed)")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="parallel builds (worker build folders); on the cpu backend also "
                             "parallel runs (default: half the CPUs this process was given, by "
                             "Slurm or its affinity mask, at most 4)")
    parser.add_argument("--shard", help="K/N: grade the K-th of N slices of the class")
    add_seed_arguments(parser)
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one test may run before it is killed (default 60)")
    parser.add_argument("--budget", type=float,
                        help="seconds all of one submission's runs may take (default 10 x --timeout)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already graded")
    parser.add_argument("--gpu-archs", default="auto", help="compute capabilities to build for")
    parser.add_argument("--integrity", choices=["zero", "report"], default="zero",
                        help="library shortcuts and grader tampering: withhold the lab's score "
                             "(zero, default) or only report them")
    from gradescope.results_format import add_visibility_arguments  # --visibility, --test-visibility KIND=VALUE
    add_visibility_arguments(parser)
    parser.add_argument("--sanitizers", default="auto",
                        help="cuda backend: compute-sanitizer tools each passing correctness test "
                             "runs under again on small inputs, a hazard failing the test: "
                             "racecheck,synccheck (default auto: both when the tool is present), "
                             "or none")
    parser.add_argument("--run-as", default="nobody",
                        help="unprivileged user student code runs as when the grader is root "
                             "(default nobody)")
    parser.add_argument("--sandbox", choices=["bubblewrap", "uid"], default="bubblewrap",
                        help="how student code is confined: bubblewrap (default: its own view of "
                             "the machine, no network); uid, where no namespace can be made (a "
                             "container such as PrairieLearn's): as root, each run as a uid of its "
                             "own with limits, one submission per batch, after checking that no "
                             "secret of the grader is readable (batch/uid_sandbox.py)")
    parser.add_argument("--cgroup", default="auto",
                        help="what holds each run's memory as a whole, its tmpfs pages included: "
                             "auto (a systemd scope where systemd delegates one, else each "
                             "process's own limit and the tmpfs sizes, said in the report), none, "
                             "or a cgroup v2 folder this user may create children in, with the "
                             "memory controller (batch/memory_cgroup.py)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade even where no bubblewrap sandbox can be set up: student code "
                             "then runs unconfined (as --run-as when root, else as you); the "
                             "report says so at its top")
    parser.add_argument("--work-dir", help="worker builds and caches (default REPORT_DIR/.work)")
    parser.add_argument("--no-matplotlib", action="store_true", help="SVG plots even if matplotlib "
                        "is installed")
    parser.add_argument("--no-counting", action="store_true",
                        help="leave out the counting step: each submission's kernels counted with "
                             "the CPU backend's counting mode after its tests and compared with the "
                             "reference's, for the class report (advice, never points)")
    if any(arg == "--seed" or arg.startswith("--seed=") for arg in argv):
        parser.error("--seed was removed (it set both seeds): give --seed-file FILE (one integer "
                     "there sets both), or --input-seed and --data-seed")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0 or (args.budget is not None and args.budget <= 0):
        parser.error("--jobs, --timeout and --budget must be positive")
    if args.sandbox == "uid" and args.unsafe_no_sandbox:
        parser.error("--sandbox uid and --unsafe-no-sandbox: choose one")
    if args.data_count is not None and args.data_count <= 0:
        parser.error("--data-count must be positive")
    check_seeds(parser, args)
    return args


def settings_from(args):
    """The Settings of parsed options; ValueError names an option whose value does not fit the
    project (an unknown lab, a malformed shard)."""
    labs = project.select_labs(project.discover_labs(), args.labs)
    if not labs:
        raise ValueError("no labs found (labs/labs.txt)")
    out = os.path.abspath(args.out)
    return Settings(
        submissions=os.path.abspath(args.submissions), report=ReportPaths(out),
        work=WorkPaths(os.path.abspath(args.work_dir or default_work_dir(out))),
        labs=tuple(labs), backend=args.backend, jobs=args.jobs,
        shard=submissions.parse_shard(args.shard) if args.shard else None,
        seeds=Seeds(args.input_seed, args.data_seed, args.data_count),
        timeout_s=args.timeout, budget_s=args.budget or 10 * args.timeout, force=args.force,
        gpu_archs=args.gpu_archs, integrity=args.integrity, visibility=args.visibility,
        sanitizers=args.sanitizers, run_as=args.run_as, sandbox=args.sandbox,
        seed_file=os.path.abspath(args.seed_file) if args.seed_file else None,
        unsafe_no_sandbox=args.unsafe_no_sandbox,
        matplotlib=not args.no_matplotlib, cgroup=args.cgroup, counting=not args.no_counting)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        from batch.merge import merge_main
        return merge_main(argv[1:])
    args = parse_args(argv)
    try:
        settings = settings_from(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from batch.pipeline import grade_class  # the running side, given the settings alone
    return grade_class(settings)
