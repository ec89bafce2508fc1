"""A class's failures of one lab grouped by kind, for the class report: the grader's own words
with the numbers taken out, its hint, and the race witness's line pattern where a record carries
one (a test message's "race on ..." line, or a lab's "races" list: both absent before the race
detector, and read leniently), with counts and one example each."""
import re

from runs.results import own_words, shorten, telling_line

from batch import handout_questions

# A number standing alone (not part of a name such as v2, lab01, Q2.5 or s_bins2): 37, 0.25, 1e6, 0xA5
NUMBER = re.compile(r"(?<![A-Za-z0-9_.#])(?:0x[0-9a-fA-F]+|\d+(?:[.,]\d+)*(?:e[+-]?\d+)?)(?![A-Za-z0-9_])")
RACE = re.compile(r"\brace on\b", re.I)
LINE = re.compile(r"\blines?\s+(\d+)")
TEXT_LIMIT = 220


def without_numbers(text):
    """The text with every standalone number made '#' (but the handout questions it names),
    spaces collapsed: the kind of a message."""
    text, kept, out = text or "", 0, []
    for named in handout_questions.WORDS.finditer(text):
        out += [NUMBER.sub("#", text[kept:named.start()]), named.group(0)]
        kept = named.end()
    return " ".join("".join(out + [NUMBER.sub("#", text[kept:])]).split())


def hint_of(message):
    """The message's first hint line ("hint: ..." of grader/core, " Hint: ..." of a technique
    check), else ""."""
    for line in own_words(message).splitlines():
        found = re.search(r"\bhint:\s*(.*)", line, re.I)
        if found:
            return found.group(1).strip()
    return ""


def race_pattern(text):
    """The race witness's pattern: its array with the index taken out and its lines kept
    ("race on s_bins[#] (lines 46, 46)"), or "" when `text` holds none."""
    for line in (text or "").splitlines():
        if RACE.search(line):
            where = line[RACE.search(line).start():]
            array = re.match(r"race on\s+([^\s—,:;(]+)", where, re.I)
            name = re.sub(r"\[[^\]]*\]", "[#]", array.group(1)) if array else "?"
            lines = LINE.findall(where)
            return f"race on {name}" + (f" (lines {', '.join(lines)})" if lines else "")
    return ""


def _line(location):
    found = re.search(r":(\d+)(?::\d+)?\s*$", str(location or ""))
    return f"line {found.group(1)}" if found else str(location or "?")


def witness_text(witness):
    """One race witness of a lab's "races" list as a line: the race detector's dict (memory,
    pattern, the two accesses' locations, the question) or a line it already wrote."""
    if not isinstance(witness, dict):
        return str(witness)
    for key in ("line", "text", "message"):
        if isinstance(witness.get(key), str):
            return witness[key]
    accesses = [a for a in (witness.get("first"), witness.get("second")) if isinstance(a, dict)]
    where = " and ".join(_line(a.get("location")) for a in accesses)
    what = witness.get("array") or witness.get("memory") or "memory"
    teach = f" (see {witness['question']})" if isinstance(witness.get("question"), str) else ""
    return (f"race on {what} in {witness.get('label') or witness.get('kernel') or '?'}: "
            f"{witness.get('pattern') or witness.get('kind') or 'race'}, {where}{teach}")


def failures(lab):
    """[(test name, message)] of one lab record's failures, and one entry for a file that was not
    compiled (name ""); a test "not graded" for that reason is left out."""
    status = lab.get("status")
    if status == "compile_error":
        said = [r for r in lab.get("reasons") or [] if r.startswith("does not compile")]
        return [("", said[0] if said else "does not compile")]
    if status == "missing":
        return [("", "no file")]
    found = [(t["name"], t.get("message") or "") for t in lab.get("tests", [])
             if t.get("status") == "failed" and not (t.get("message") or "").startswith("not graded")]
    races = lab.get("races")
    if isinstance(races, dict):
        races = races.get("witnesses") or races.get("races") or []
    for witness in races if isinstance(races, list) else []:
        text = witness_text(witness)
        found.append(("(race detector)", text if RACE.search(text) else f"race on {text}"))
    return found


def kind_of(message):
    """(kind, hint, race pattern) of one failure: the grader's words without numbers."""
    words = re.sub(r"^\[[^\]]*\]\s*", "", telling_line(message))  # the input's name: any input
    words = re.split(r"\s*\bhint:", words, flags=re.I)[0]  # a hint on the same line: its own column
    race = race_pattern(message)
    return without_numbers(words), without_numbers(hint_of(message)), race


def group(lab_records):
    """[{kind, hint, race, questions, submissions, failures, tests, students, example}] of
    lab_records ({student: lab record}), most submissions first."""
    groups = {}
    for student, lab in lab_records.items():
        for test, message in failures(lab):
            kind, hint, race = kind_of(message)
            entry = groups.setdefault((kind, hint, race), {
                "kind": kind, "hint": hint, "race": race, "questions": [], "submissions": 0,
                "failures": 0, "tests": [], "students": [],
                "example": {"student": student, "test": test,
                            "message": shorten(telling_line(message), TEXT_LIMIT),
                            "hint": shorten(hint_of(message), TEXT_LIMIT)}})
            entry["failures"] += 1
            if test and test not in entry["tests"]:
                entry["tests"].append(test)
            if student not in entry["students"]:
                entry["students"].append(student)
            for question in handout_questions.named(own_words(message)):
                if question not in entry["questions"]:
                    entry["questions"].append(question)
    for entry in groups.values():
        entry["submissions"] = len(entry["students"])
        entry["students"].sort()
    return sorted(groups.values(), key=lambda g: (-g["submissions"], -g["failures"], g["kind"]))
