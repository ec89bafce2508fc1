"""What one batch was asked to do, once the command line is parsed and checked (cli.py): the
running side (session.py, pipeline.py) reads this, never argv."""
import hashlib
import os
from dataclasses import dataclass, replace
from typing import Optional

from batch.paths import ReportPaths, WorkPaths


@dataclass(frozen=True)
class Seeds:
    """The two hidden seeds, apart: `inputs` draws the inputs the lab checkers generate (sent to
    each checker in its key pipe, never on a command line); `data` and `data_count` make the data
    file the tests read (data/generate.py). None: the project's default."""
    inputs: Optional[int] = None
    data: Optional[int] = None
    data_count: Optional[int] = None

    @property
    def custom_data(self):
        return self.data is not None or self.data_count is not None

    def for_submission(self, student, fingerprint):
        """The seeds one submission is graded with: each hidden seed (the instructor's secret)
        keys a hash of the student and the digest of their files, so no two students, and no
        resubmission, share inputs, and no seed of one gives away another's. Defaults stay."""
        identity = f"{student}\0{fingerprint}".encode()
        return replace(self, inputs=derived_seed(self.inputs, "input-seed", identity),
                       data=derived_seed(self.data, "data-seed", identity))


MAX_SECRET = 2 ** 256  # a hidden seed is a BLAKE2b key of at most 32 bytes


def derived_seed(secret, kind, identity):
    """BLAKE2b of `identity` keyed by `secret` (None: None), below 2^63: every tool on its way
    (the checker's key pipe, generate.py, JSON) takes it as a signed 64-bit integer."""
    if secret is None:
        return None
    key = secret.to_bytes(32, "little")
    digest = hashlib.blake2b(identity, key=key, person=kind.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


@dataclass(frozen=True)
class Settings:
    submissions: str              # the class folder (SUBMISSIONS)
    report: ReportPaths           # --out
    work: WorkPaths               # --work-dir
    labs: tuple                   # project.Lab, chosen with --labs
    backend: str                  # cuda or cpu
    jobs: int                     # worker builds (and, on the cpu backend, runs side by side)
    shard: Optional[tuple]        # (K, N) of --shard K/N, or None
    seeds: Seeds
    timeout_s: float              # one test
    budget_s: float               # all of one submission's runs
    force: bool
    gpu_archs: str
    integrity: str                # zero or report
    visibility: object            # gradescope/results_format.VisibilityPolicy
    sanitizers: str               # auto, none or a list of tools
    run_as: str
    sandbox: str                  # bubblewrap or uid (--sandbox)
    seed_file: Optional[str]      # --seed-file, a secret the uid sandbox checks is not readable
    unsafe_no_sandbox: bool
    matplotlib: bool
    cgroup: str = "auto"          # --cgroup: auto, none or a folder (memory_cgroup.py)
    counting: bool = True         # count each submission's kernels (advice; --no-counting)

    @property
    def shard_text(self):
        """"K/N" as batch.json records it (merge.py reads it back), or None."""
        return None if self.shard is None else f"{self.shard[0]}/{self.shard[1]}"

    def own_folders(self):
        """The report and work folders: never submissions, even inside SUBMISSIONS."""
        return {os.path.abspath(self.report.root), os.path.abspath(self.work.root)}
