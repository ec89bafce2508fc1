"""How many CPUs this process was given: what the batch grader sizes its parallelism on."""
import os

# Set by Slurm inside a job: the CPUs of the task (only when --cpus-per-task was asked for), and
# those the job holds on this node. Without a task plugin that binds (task/affinity, task/cgroup)
# the affinity mask still shows the whole node, so these are the only sign of the allocation.
SLURM_CPU_VARIABLES = ("SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE")


def slurm_cpus(environ=None):
    """The CPU count Slurm gave this job, or None outside a job (or for an unreadable value)."""
    environ = os.environ if environ is None else environ
    for name in SLURM_CPU_VARIABLES:
        value = environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None


def available_cpus(environ=None):
    """CPUs this process may use: its affinity mask (what taskset, cgroup cpusets and Slurm's
    binding leave it), lowered to the Slurm allocation when inside a job. Never os.cpu_count(),
    which counts the whole machine however little of it the job was given."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        count = os.cpu_count() or 1
    allocated = slurm_cpus(environ)
    return max(1, min(count, allocated) if allocated else count)
