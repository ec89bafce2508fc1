"""The closing lines of `python3 grader/grade.py`, after the score table: the advice about .venv,
the optional tools that are missing (one line each, together), and last, what to do next.

    closing_lines(root, build_dir, submission, in_venv, nvcc, short)  the lines, in order (short: the
                                                              optional tools in one line)
    next_step(root, submission, results, labs_run)           the last line: the first lab run that
                                                              has a failed test (or no results),
                                                              its handout and file; else what is left
"""
import importlib.util
import os

from runs import labs as lab_list

GPU_LEFT = ("on a machine with an NVIDIA GPU (`python3 grader/grade.py` there) the speed tests and "
            "technique checks earn their points too")


def shown(root, path):
    """A path as the student types it from the repository root."""
    relative = os.path.relpath(path, root)
    return path if relative.startswith("..") else relative


def unfinished(lab, results):
    """True when the lab's results (its tests and technique checks) hold a failure, or none exist."""
    own = [r for r in results if r["lab"] == lab or r["lab"].startswith(lab + "-")]
    if not any(r["lab"] == lab for r in own):
        return True
    return any(t["status"] == "failed" for r in own for t in r["tests"])


def next_step(root, submission, results, labs_run, all_labs=None):
    labs = {lab.name: lab for lab in lab_list.discover_labs(root)}
    regrade = "python3 grader/grade.py"
    if not os.path.samefile(submission, os.path.join(root, "starter")):
        regrade += f" --submission {shown(root, submission)}"
    for name in labs_run:
        if name in labs and unfinished(name, results):
            lab = labs[name]
            return (f"Next: open handouts/{lab.folder}.md and edit "
                    f"{shown(root, os.path.join(submission, lab.submission_file))}, then regrade "
                    f"it: {regrade} --labs {lab.number}")
    left = [name for name in (all_labs or []) if name not in labs_run]
    if left:
        return f"Next: every lab graded passes its tests; grade the others ({', '.join(left)}): {regrade}"
    if any(r.get("backend") == "cpu" for r in results):
        return f"Next: every lab passes its tests on the CPU backend; {GPU_LEFT}"
    return "Next: every lab passes; compare your kernels with the references in handouts/benchmark.md"


def optional_tools(root, build_dir, labs_run, backend, nvcc):
    """One line per optional tool that is missing, with what it costs and how to get it."""
    notes = []
    if backend == "cpu" and not nvcc:
        notes.append("nvcc (the CUDA toolkit) not found: the CPU backend's technique advice (what a "
                     "compile of your kernels holds) is not shown; install CUDA 12 or 13 to see it")
    elif nvcc:
        from counting.sass import INSTALL_HINT, find_cuobjdump
        if not find_cuobjdump(nvcc):
            notes.append(f"cuobjdump or nvdisasm not found: the technique checks cannot read your "
                         f"kernels' machine code; {INSTALL_HINT}")
    image = os.path.join(build_dir, "labs", "06-histogram-equalization", "sample_image.pgm.txt")
    if "lab06" in labs_run and os.path.exists(image):
        with open(image) as f:
            found = f.read().strip()
        if found.startswith("no real image"):
            notes.append("lab 06 has no real photograph (its two real-image tests skip): "
                         f"{found.splitlines()[-1][:160]}")
    if importlib.util.find_spec("matplotlib") is None:
        notes.append("matplotlib not installed: grader/bench/plot_sweeps.py (the handouts' sweep "
                     "plots) installs requirements-plots.txt into .venv the first time it runs")
    return notes


def tool_name(note):
    """What a missing-tool note is about, in a few words ("cuobjdump or nvdisasm")."""
    for marker in (" not found", " not installed", " has no "):
        if marker in note:
            name = note.split(marker)[0]
            return name if marker != " has no " else f"{name}'s {note.split(marker)[1].split(' (')[0].split(':')[0]}"
    return note.split(":")[0]


def closing_lines(root, build_dir, submission, in_venv, nvcc, short=False):
    """The closing lines; `short` (grade.py without --verbose): the optional tools in one line."""
    from runs.results import load_run
    results, not_run, _missing = load_run(build_dir)
    labs_run = [lab.name for lab in lab_list.discover_labs(root) if lab.name not in not_run]
    backend = results[0].get("backend") if results else None
    lines = []
    if in_venv:
        lines.append("meson, ninja and numpy are in .venv: run `source .venv/bin/activate` once in "
                     "your shell and the commands the README and handouts give work as written.")
    notes = optional_tools(root, build_dir, labs_run, backend, nvcc)
    if notes and short:
        lines.append(f"Optional tools missing (grading does not need them; grade.py --verbose says what "
                     f"each adds): {', '.join(map(tool_name, notes))}")
    elif notes:
        lines.append("Optional tools missing (grading does not need them):")
        lines += [f"  - {note}" for note in notes]
    lines.append(next_step(root, submission, results, labs_run,
                           [lab.name for lab in lab_list.discover_labs(root)]))
    return lines
