"""The handout questions a text names, and their titles as the students' handouts give them
(handouts/NN-name.md: `## Q1 — Title (…)` and `**Q2.5 — Title (about 4 lines, 20 min).**`), for
the class report's "teach next" table."""
import functools
import os
import re

from batch.project import ROOT

# "Q2.5", "Q3"; "question 2.5", "questions 1.1, 3.1" and "questions 2.1 and 3.1"
SHORT = re.compile(r"(?<![A-Za-z0-9_])Q(\d+(?:\.\d+)?)\b")
WORDS = re.compile(r"\bquestions?\s+(\d+(?:\.\d+)?(?:\s*(?:,|and|or)\s*\d+(?:\.\d+)?)*)", re.I)
NUMBER = re.compile(r"\d+(?:\.\d+)?")
HEADING = re.compile(r"^##\s+Q(\d+)\s*[—-]+\s*(.+?)\s*$")
LABEL = re.compile(r"\*\*Q(\d+(?:\.\d+)?)\.?\s*[—-]+\s*([^*]+?)\*\*")


def named(text):
    """The questions `text` names, in order, once each: ["Q2.5", "Q1.1"]."""
    found = []
    for match in SHORT.finditer(text or ""):
        found.append("Q" + match.group(1))
    for match in WORDS.finditer(text or ""):
        found += ["Q" + n for n in NUMBER.findall(match.group(1))]
    return list(dict.fromkeys(found))


def _title(text):
    """'Grid-stride: the threads walk together (about 4 lines, 20 min).' -> its words alone."""
    text = re.sub(r"\s*\([^()]*\)\s*\.?$", "", text.strip()).rstrip(". ")
    return text


@functools.lru_cache(maxsize=None)
def titles(lab_folder, root=ROOT):
    """{"Q2.5": "Grid-stride: the threads walk together", "Q1": ...} of the lab's handout
    (`lab_folder`: "01-global-atomics"); {} without it."""
    path = os.path.join(root, "handouts", f"{lab_folder}.md")
    found = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                heading = HEADING.match(line)
                if heading:
                    found.setdefault("Q" + heading.group(1), _title(heading.group(2)))
                for label in LABEL.finditer(line):
                    found.setdefault("Q" + label.group(1), _title(label.group(2)))
    except OSError:
        return {}
    return found


def title(lab_folder, question):
    """The question's title, else its part's (Q2.5 -> Q2's), else ""."""
    known = titles(lab_folder)
    return known.get(question) or known.get(question.split(".")[0], "")


def order(question):
    """A sort key: Q2.10 after Q2.9."""
    return tuple(int(n) for n in question[1:].split("."))
