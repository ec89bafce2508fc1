"""The workbook's labs, as grade.py and the batch grader see them.

labs/labs.txt is the one list of labs (one folder a line). A lab's name and the file students fill
in follow from its folder: 01-global-atomics -> lab01, starter/lab01_global_atomics.cu; the build
(labs/meson.build) refuses a lab whose meson.build says otherwise, so nothing here parses it.
"""
import os
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class Lab:
    name: str              # lab01
    number: str            # 01: what -Dlabs= takes
    folder: str            # 01-global-atomics
    submission_file: str   # lab01_global_atomics.cu


def listed_folders(root=ROOT):
    """The lab folders of labs/labs.txt, in its order."""
    with open(os.path.join(root, "labs", "labs.txt")) as f:
        lines = [line.strip() for line in f]
    return [line for line in lines if line and not line.startswith("#")]


def lab_of_folder(folder):
    number = folder.split("-")[0]
    return Lab("lab" + number, number, folder, "lab" + folder.replace("-", "_") + ".cu")


def discover_labs(root=ROOT):
    labs = []
    for folder in listed_folders(root):
        if not os.path.isfile(os.path.join(root, "labs", folder, "meson.build")):
            raise RuntimeError(f"labs/labs.txt lists {folder}, but labs/{folder}/meson.build does not exist")
        labs.append(lab_of_folder(folder))
    return labs


def select_labs(labs, spec):
    """`spec` is None/"all" or "01,03" (numbers or names); unknown ones are an error."""
    if not spec or spec == "all":
        return list(labs)
    wanted = [w.strip() for w in spec.split(",") if w.strip()]
    chosen = []
    for w in wanted:
        match = [lab for lab in labs if w in (lab.number, lab.name, lab.folder)]
        if not match:
            known = ", ".join(lab.number for lab in labs) or "none"
            raise ValueError(f"--labs: no lab {w!r} (labs found: {known})")
        chosen += [lab for lab in match if lab not in chosen]
    return chosen


def kernel_lab_numbers(root=ROOT):
    """The numbers of the labs whose lessons are kernels, in labs/labs.txt's order: those with a
    counters.json (the counts their Why lines compare, grader/explain/); lab 00, a host program,
    has none."""
    return [lab.number for lab in discover_labs(root)
            if os.path.isfile(os.path.join(root, "labs", lab.folder, "counters.json"))]
