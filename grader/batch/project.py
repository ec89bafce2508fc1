"""The project as the batch grader sees it: its labs (grader/runs/labs.py finds them in
labs/labs.txt, so labs added later are graded without changing this tool), the headers a
submission may include, and the pristine copy students are built in.
"""
import hashlib
import os
import re
import shutil

from runs.labs import Lab, discover_labs, listed_folders, select_labs  # noqa: F401 (re-exported)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Never copied into the students' copy of the project: version control, environments, builds,
# hidden top-level folders (scratch copies), and every file holding a working answer a submission
# could #include or read at run time: the solutions, the fixtures, the benchmark's reference
# kernels; of handouts/, only the students' handouts (NN-name.md) are copied: no answer key
# (NN-name-answers.md), no instructor guide, no benchmark notes.
EXCLUDED_NAMES = {".git", ".venv", "__pycache__", ".gl", ".whl", ".device", ".mypy_cache"}
EXCLUDED_TOP = {"solutions", "shared"}
EXCLUDED_PATHS = {os.path.join("grader", "batch", "fixtures"), os.path.join("grader", "bench")}
STUDENT_HANDOUT = re.compile(r"^\d\d-[\w-]+\.md$")
# Copied as a placeholder: the labs' known-wrong kernels (a solution with one defect each) are named
# by every lab's meson.build, but built only for the project's self-tests.
PLACEHOLDER_FOLDER = "known_wrong"
PLACEHOLDER = b"// Left out of the students' copy of the project (a self-test's known-wrong kernel).\n"


def interface_headers(lab, root=ROOT):
    """Headers a submission may include with quotes: the ones in its lab folder (a configured
    header.in counts under its configured name)."""
    names = set()
    for f in os.listdir(os.path.join(root, "labs", lab.folder)):
        name = f[:-3] if f.endswith(".in") else f
        if name.endswith((".cuh", ".hpp", ".h")):
            names.add(name)
    return names


def _excluded(rel, skipped):
    parts = rel.split(os.sep)
    top = parts[0]
    if top in EXCLUDED_TOP or top.startswith("build"):
        return True
    if top == "handouts" and (len(parts) > 2 or rel.endswith("-answers.md")
                              or (len(parts) == 2 and not STUDENT_HANDOUT.match(parts[1]))):
        return True
    if top.startswith(".") and len(parts) > 1:  # a hidden top-level folder
        return True
    if any(part in EXCLUDED_NAMES for part in parts):
        return True
    return any(rel == p or rel.startswith(p + os.sep) for p in EXCLUDED_PATHS | skipped)


def project_files(root=ROOT, skip_paths=()):
    """Relative paths of the files the students' copy holds; `skip_paths` (the report, the work
    folder, the submissions) are left out too where they lie inside the project."""
    skipped = set()
    for path in skip_paths:
        rel = os.path.relpath(os.path.abspath(path), root)
        if not rel.startswith("..") and rel != ".":
            skipped.add(rel)
    files = []
    for directory, subdirs, names in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        rel_dir = "" if rel_dir == "." else rel_dir
        subdirs[:] = sorted(d for d in subdirs
                            if not _excluded(os.path.join(rel_dir, d), skipped)
                            and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(names):
            rel = os.path.join(rel_dir, name)
            if not _excluded(rel, skipped) and os.path.isfile(os.path.join(directory, name)):
                files.append(rel)
    return files


# Left out of the students' copy, but no answer: the build's own tools and caches.
TOOL_NAMES = {".venv", "__pycache__", ".mypy_cache", ".whl"}


def answer_paths(root=ROOT, skip_paths=()):
    """Absolute paths of the files under `root` that the students' copy leaves out and a student
    must not read (solutions, fixtures, answer keys, version control, builds, known-wrong
    kernels...): what a sandbox that cannot hide the machine checks is unreadable. `skip_paths`
    (the report, the work folder, the submissions) are the batch's own to guard."""
    skipped = {os.path.relpath(os.path.abspath(p), root) for p in skip_paths}
    found = []
    for directory, subdirs, names in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        rel_dir = "" if rel_dir == "." else rel_dir
        subdirs[:] = [d for d in subdirs if d not in TOOL_NAMES
                      and os.path.join(rel_dir, d) not in skipped
                      and not os.path.islink(os.path.join(directory, d))]
        for name in names:
            rel = os.path.join(rel_dir, name)
            if _excluded(rel, set()) or PLACEHOLDER_FOLDER in rel.split(os.sep)[:-1] and not _placeholder(
                    os.path.join(directory, name)):
                found.append(os.path.join(root, rel))
    return found


def _placeholder(path):
    """Whether the known-wrong file at `path` is the students' copy's placeholder."""
    with open(path, "rb") as f:
        return f.read(len(PLACEHOLDER) + 1) == PLACEHOLDER


def students_bytes(rel, root=ROOT):
    """What the students' copy holds at `rel` (a path project_files listed)."""
    if PLACEHOLDER_FOLDER in rel.split(os.sep)[:-1]:
        return PLACEHOLDER
    with open(os.path.join(root, rel), "rb") as f:
        return f.read()


def affects_grades(rel, labs):
    """Whether a change of this file can change the grades of `labs` (Lab list; None = all)."""
    parts = rel.split(os.sep)
    if rel.endswith(".md") or parts[:2] == ["grader", "batch"] and not rel.endswith((".cpp", ".hpp",
                                                                                    "meson.build")):
        return False
    if labs is None:
        return True
    if parts[0] == "labs" and len(parts) > 2:
        return parts[1] in {lab.folder for lab in labs}
    if parts[0] == "starter":
        return parts[-1] in {lab.submission_file for lab in labs}
    return parts[0] in ("grader", "data", "subprojects", "labs") or len(parts) == 1


def sync_snapshot(dest, root=ROOT, skip_paths=(), labs=None):
    """Make `dest` a copy of the project (less the exclusions); unchanged files keep their times,
    so the worker builds in it stay up to date. Returns the snapshot's fingerprint, a hash of the
    files that can change the grades of `labs` (the grader, the data tools, those labs), and
    those files' hashes."""
    wanted = project_files(root, skip_paths)
    digest = hashlib.sha256()
    manifest = {}
    for rel in wanted:
        src, dst = os.path.join(root, rel), os.path.join(dest, rel)
        st = os.stat(src)
        placeholder = PLACEHOLDER_FOLDER in rel.split(os.sep)[:-1]
        try:
            dt = os.stat(dst)
            same = (dt.st_size == (len(PLACEHOLDER) if placeholder else st.st_size)
                    and int(dt.st_mtime) == int(st.st_mtime))
        except FileNotFoundError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if placeholder:
                with open(dst, "wb") as f:
                    f.write(PLACEHOLDER)
                os.utime(dst, (st.st_atime, st.st_mtime))
            else:
                shutil.copy2(src, dst)
        if affects_grades(rel, labs):
            manifest[rel] = hashlib.sha256(students_bytes(rel, root)).hexdigest()
            digest.update(rel.encode() + b"\0" + manifest[rel].encode())
    keep = set(wanted)
    for directory, _, names in os.walk(dest):
        for name in names:
            rel = os.path.relpath(os.path.join(directory, name), dest)
            if rel not in keep:
                os.remove(os.path.join(directory, name))
    return digest.hexdigest(), manifest
