"""grade_submissions.py: grade a folder of submissions, or merge the reports of several shards."""
import argparse
import os
import sys

from . import project, submissions
from .cpus import available_cpus
from .session import Batch

USAGE_EPILOG = """\
examples:
  grade_submissions.py class/ --out report/                     every lab, CUDA on every GPU
  grade_submissions.py class/ --out report/ --labs 01 --seed 90210
  grade_submissions.py class/ --out r1/ --shard 1/2             (and --shard 2/2 on a 2nd machine)
  grade_submissions.py merge --out report/ r1/ r2/
Exit status: 0 every submission graded (whatever its score), 1 some could not be graded,
2 usage or set-up error.
"""


def default_jobs():
    """Half the CPUs this process was given (a Slurm job's allocation, not the whole node), 1 to 4."""
    return max(1, min(4, available_cpus() // 2))


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
                        help="cuda (default: timings need a GPU) or cpu (correctness only)")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="parallel builds (worker build folders); on the cpu backend also "
                             "parallel runs (default: half the CPUs this process was given, by "
                             "Slurm or its affinity mask, at most 4)")
    parser.add_argument("--shard", help="K/N: grade the K-th of N slices of the class")
    parser.add_argument("--seed", type=int, help="hidden seed: generated inputs and the data file "
                        "(visible to other users of this machine in the process list: prefer "
                        "--seed-file)")
    parser.add_argument("--seed-file", metavar="FILE",
                        help="a file holding the hidden seed (keep it readable by you alone)")
    parser.add_argument("--data-count", type=int, help="hidden size of the data file (samples)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one test may run before it is killed (default 60)")
    parser.add_argument("--budget", type=float,
                        help="seconds all of one submission's runs may take (default 10 x --timeout)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already graded")
    parser.add_argument("--gpu-archs", default="auto", help="compute capabilities to build for")
    parser.add_argument("--integrity", choices=["zero", "report"], default="zero",
                        help="library shortcuts and grader tampering: withhold the lab's score "
                             "(zero, default) or only report them")
    from .gradescope import add_visibility_arguments  # --visibility, --test-visibility KIND=VALUE
    add_visibility_arguments(parser)
    parser.add_argument("--sanitizers", default="auto",
                        help="cuda backend: compute-sanitizer tools each passing correctness test "
                             "runs under again on small inputs, a hazard failing the test: "
                             "racecheck,synccheck (default auto: both when the tool is present), "
                             "or none")
    parser.add_argument("--run-as", default="nobody",
                        help="unprivileged user student code runs as when the grader is root "
                             "(default nobody)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade even where no bubblewrap sandbox can be set up: student code "
                             "then runs unconfined (as --run-as when root, else as you); the "
                             "report says so at its top")
    parser.add_argument("--work-dir", help="worker builds and caches (default REPORT_DIR/.work)")
    parser.add_argument("--no-matplotlib", action="store_true", help="SVG plots even if matplotlib "
                        "is installed")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.timeout <= 0:
        parser.error("--jobs and --timeout must be positive")
    if args.seed_file:
        if args.seed is not None:
            parser.error("give --seed or --seed-file, not both")
        try:
            with open(args.seed_file) as f:
                args.seed = int(f.read().strip())
        except (OSError, ValueError) as error:
            parser.error(f"--seed-file {args.seed_file}: {error}; it must hold one integer")
    if args.seed is not None and args.seed < 0:
        parser.error("--seed must be a non-negative integer")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        from .merge import merge_main
        return merge_main(argv[1:])
    args = parse_args(argv)
    try:
        labs = project.select_labs(project.discover_labs(), args.labs)
        if args.shard:
            shard = submissions.parse_shard(args.shard)
        entries, warnings = submissions.discover(args.submissions)
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not labs:
        print("error: no labs found (labs/*/meson.build)", file=sys.stderr)
        return 2
    own = {os.path.abspath(args.out), os.path.abspath(args.work_dir or os.path.join(args.out, ".work"))}
    entries = [e for e in entries if os.path.abspath(e.path) not in own]  # --out inside SUBMISSIONS
    if args.shard:
        entries = submissions.shard(entries, *shard)
    for warning in warnings:
        print(f"warning: {warning}")
    batch = Batch(args, labs)
    from .pipeline import run_batch
    try:
        return run_batch(batch, entries)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
