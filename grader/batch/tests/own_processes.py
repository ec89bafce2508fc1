"""The processes one test run started, found without counting anybody else's: on a shared machine
another user's grader runs the same programs (/sandbox/runner, /sandbox/checker), so a machine-wide
`pgrep` for their names counts processes that are not this run's.

A run marks what it starts with a word of its own (the random name of its temporary folder, or a
marker with this process's id): a process is this run's when that word is in its command line, its
environment, its working folder or its mount table. The last catches what runs in the batch's
sandbox: bubblewrap binds folders of the run's work folder into it, and every process started in
the sandbox (even one that left its session with setsid) shares that mount table, though its
command line and environment say nothing of the run. Linux only (/proc), as the sandbox is."""
import os


def _read(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:  # gone, or not ours to read
        return ""


def _state(pid):
    """The one-letter state of /proc/PID/stat (after the command name, which may hold spaces)."""
    stat = _read(pid, "stat")
    return stat[stat.rfind(")") + 2:][:1] if ")" in stat else ""


def _where(pid, marker):
    """Which of the process's properties mention `marker`, or None."""
    if marker in _read(pid, "cmdline").replace("\0", " "):
        return "command line"
    if marker in _read(pid, "environ"):
        return "environment"
    try:
        if marker in os.readlink(f"/proc/{pid}/cwd"):
            return "working folder"
    except OSError:
        pass
    if marker in _read(pid, "mountinfo"):
        return "mount table (a sandbox of this run)"
    return None


def started_by_run(marker, exclude=()):
    """["PID command (where the marker was found)", ...] for the living processes marked with
    `marker`, leaving out this process, its parents and `exclude` (pids); zombies are dead and not
    counted. `marker` must be a word no other run uses: a random folder name, a pid-made name."""
    if len(marker) < 8:
        raise ValueError(f"marker {marker!r} is too short to be this run's own")
    skip = set(exclude) | {os.getpid(), os.getppid()}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip or _state(entry) in ("", "Z", "X"):
            continue
        where = _where(entry, marker)
        if where:
            command = _read(entry, "cmdline").replace("\0", " ").strip()[:200]
            found.append(f"{entry} {command or '?'} ({where})")
    return found
