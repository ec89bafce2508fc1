#!/usr/bin/env python3
"""What a GPU's evidence pass counted, beside the graded runner's machine code: a diagnosis aid
for the technique checks' evidence (runner/evidence_cuda.cu), no grade. Runs the tests a check
needs once in evidence mode, as technique/selftest.py does, keeps the evidence file in OUT, and
prints per call how many instructions came back, the first few, and how many of them the runner's
SASS listing names (kernel and offset): 0 entries (nothing patched or counted), names the listing
lacks, or offsets it lacks each point at a different fault.

  python3 grader/technique/probe_evidence.py BUILD LAB RUNNER OUT -- INSPECT_KERNELS_ARGS
  e.g. ... build lab03 labs/lab03_runner_graded /tmp/probe -- --nvcc nvcc --check 'v1 shared slices'
       --kernel histogram_v1_shared_slices_kernel --requires 'shared_atomic>=1'
       --ran 'kernel.shared_atomic >= 0.9 * all.global_load_words'
       --needs 'v1 shared slices=Lab03SharedSlices.MatchesCpuOnUniformSamples'
(BUILD: a cuda build; RUNNER relative to it.)"""
import json
import os
import shutil
import sys

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from counting import sass  # noqa: E402
from runs import evidence_pass  # noqa: E402
from technique import evidence, selftest  # noqa: E402


class KeptFolder:
    """selftest.py's temporary results folder, kept at OUT."""
    out = None

    def __init__(self, prefix=""):
        os.makedirs(self.out, exist_ok=True)

    def __enter__(self):
        return self.out

    def __exit__(self, *_):
        return False


def main(argv):
    if "--" not in argv or len(argv[:argv.index("--")]) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    build, lab, runner, out = argv[:4]
    KeptFolder.out = os.path.abspath(out)
    selftest.tempfile.TemporaryDirectory = KeptFolder
    os.chdir(build)
    status = selftest.main(["--checker", f"labs/{lab}_checker", f"--lab={lab}", "--data=data/data.bin",
                            "--yardstick-runner=grader/grader_yardstick_runner", f"--runner={runner}",
                            "--"] + argv[argv.index("--") + 1:] + ["--runner", runner])
    print(f"inspect_kernels exit status {status}")
    with open(evidence_pass.path(KeptFolder.out, lab)) as f:
        tests = json.load(f)["tests"]
    by_arch, _ = sass.read_program(runner, shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    entries = [e for calls in tests.values() for c in calls for e in c.get("entries", [])]
    for name, calls in tests.items():
        for c in calls[:3]:
            print(f"{name} {c.get('function')}: collected {c.get('collected')} "
                  f"unavailable {c.get('unavailable')!r} entries {len(c.get('entries', []))}")
            for e in c.get("entries", [])[:4]:
                print("    ", e)
    for arch, kernels in sorted(by_arch.items()):
        code = evidence.code_map(kernels, kernels)
        print(f"{arch}: {len(entries)} entries; kernel named in the listing {sum(e[0] in code for e in entries)}; "
              f"offset inside its kernel {sum(evidence.placed(code, e[0], e[1]) for e in entries)}; at an "
              f"instruction of a family {sum(str(e[1]) in code.get(e[0], {}).get('at', {}) for e in entries)}; "
              f"global-load sectors {sum(e[6] for e in entries)}; listing's kernels {sorted(kernels)[:3]}")
        print(f"{arch}: {evidence.unreadable([{'entries': entries}], code) or 'the counts fit this listing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
