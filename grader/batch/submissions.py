"""A class's submissions: one entry per student in a folder, each a folder or an archive.

Only the lab files, by their starter names, are taken from a submission; everything else the
student sent is ignored. Archives are read in memory, member by member: nothing is extracted by
the names the archive gives, so paths such as ../../x or /etc/x cannot write anywhere, and links
are never followed.
"""
import hashlib
import os
import re
import tarfile
import zipfile
from dataclasses import dataclass, field

MAX_LAB_FILE_BYTES = 2 * 1024 * 1024   # a lab .cu file larger than this is not a lab file
MAX_MEMBERS = 20000                    # members looked at in one archive
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")


@dataclass
class Submission:
    student: str            # the entry's name without its archive suffix, safe as a folder name
    path: str
    kind: str               # folder, zip or tar


@dataclass
class CollectedFiles:
    files: dict = field(default_factory=dict)     # submission file name -> bytes
    origins: dict = field(default_factory=dict)   # submission file name -> path inside the entry
    notes: list = field(default_factory=list)
    error: str = ""                               # the entry could not be read at all

    def fingerprint(self):
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + hashlib.sha256(self.files[name]).digest())
        return digest.hexdigest()


def safe_name(name):
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip("._") or "student"
    return cleaned[:100]


def split_archive_name(name):
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return name[: -len(suffix)], ("zip" if suffix == ".zip" else "tar")
    return None, None


def discover(folder):
    """(submissions sorted by student, warnings): every folder and archive directly in `folder`."""
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"submissions folder {folder} not found")
    found, warnings, taken = [], [], {}
    for entry in sorted(os.listdir(folder)):
        if entry.startswith("."):
            continue
        path = os.path.join(folder, entry)
        if os.path.islink(path):
            warnings.append(f"{entry}: a symbolic link, skipped")
            continue
        if os.path.isdir(path):
            stem, kind = entry, "folder"
        else:
            stem, kind = split_archive_name(entry)
            if stem is None:
                warnings.append(f"{entry}: neither a folder nor a .zip/.tar.gz archive, skipped")
                continue
        student = safe_name(stem)
        if student in taken:
            warnings.append(f"{entry}: {taken[student]} has the same student name; {entry} skipped")
            continue
        taken[student] = entry
        found.append(Submission(student, path, kind))
    return found, warnings


def parse_shard(text):
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"--shard {text!r}: give K/N with 1 <= K <= N, e.g. 2/4")
    return int(match.group(1)), int(match.group(2))


def shard(submissions, k, n):
    """The K-th of N slices (1-based), dealt round-robin over the students in name order, so every
    machine given the same folder computes the same split."""
    ordered = sorted(submissions, key=lambda s: s.student)
    return [s for i, s in enumerate(ordered) if i % n == k - 1]


def _choose(candidates, name, notes):
    """The shallowest path holding `name` (then the first in name order), with a note if several."""
    candidates.sort(key=lambda c: (c[0].count("/"), c[0]))
    if len(candidates) > 1:
        others = ", ".join(c[0] for c in candidates[1:4])
        notes.append(f"several files named {name}: graded {candidates[0][0]}; ignored {others}")
    return candidates[0]


def _walk_folder(root, wanted):
    found = {name: [] for name in wanted}
    for directory, subdirs, files in os.walk(root, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if not os.path.islink(os.path.join(directory, d)))
        for name in files:
            if name in found:
                path = os.path.join(directory, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                found[name].append((os.path.relpath(path, root).replace(os.sep, "/"), path))
    return found


def _read_limited(stream, size, name, notes):
    if size > MAX_LAB_FILE_BYTES:
        notes.append(f"{name}: {size} bytes is over the {MAX_LAB_FILE_BYTES}-byte limit; not graded")
        return None
    data = stream.read(MAX_LAB_FILE_BYTES + 1)
    return data[:MAX_LAB_FILE_BYTES]


def collect(submission, wanted):
    """The lab files named in `wanted` (starter file names) that the submission holds."""
    result = CollectedFiles()
    wanted = set(wanted)
    try:
        if submission.kind == "folder":
            for name, candidates in _walk_folder(submission.path, wanted).items():
                if candidates:
                    rel, path = _choose(candidates, name, result.notes)
                    with open(path, "rb") as f:
                        data = _read_limited(f, os.path.getsize(path), name, result.notes)
                    if data is not None:
                        result.files[name], result.origins[name] = data, rel
        elif submission.kind == "zip":
            with zipfile.ZipFile(submission.path) as archive:
                members = archive.infolist()[:MAX_MEMBERS]
                by_name = {}
                for info in members:
                    base = info.filename.rstrip("/").split("/")[-1]
                    if base in wanted and not info.is_dir():
                        by_name.setdefault(base, []).append((info.filename, info))
                for name, candidates in by_name.items():
                    rel, info = _choose(candidates, name, result.notes)
                    with archive.open(info) as f:
                        data = _read_limited(f, info.file_size, name, result.notes)
                    if data is not None:
                        result.files[name], result.origins[name] = data, rel
        else:
            with tarfile.open(submission.path, "r:*") as archive:
                by_name = {}
                for count, info in enumerate(archive):
                    if count >= MAX_MEMBERS:
                        result.notes.append(f"more than {MAX_MEMBERS} members: the rest ignored")
                        break
                    base = info.name.rstrip("/").split("/")[-1]
                    if base in wanted and info.isfile():  # links and devices are never taken
                        by_name.setdefault(base, []).append((info.name, info))
                for name, candidates in by_name.items():
                    rel, info = _choose(candidates, name, result.notes)
                    f = archive.extractfile(info)
                    data = _read_limited(f, info.size, name, result.notes) if f else None
                    if data is not None:
                        result.files[name], result.origins[name] = data, rel
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as error:
        result.error = f"cannot read {os.path.basename(submission.path)}: {error}"
    return result
