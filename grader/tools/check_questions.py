#!/usr/bin/env python3
"""Check that each lab's handout, starter, solution and answer key number the questions one way.

The scheme every lab follows, in handouts/NN-*.md (NN = 01, 02, ...; not the -answers file):
  - a part of the handout is a heading `## Qn — title (time)`, n = 1, 2, 3, ... in order;
  - its questions are bold labels `**Qn.m — title (about N lines, T min).**` or `**Qn.m** ...`,
    m = 1, 2, 3, ... in order, at the start of a paragraph or inside one;
  - a part without labels is one question by itself, `Qn` (lab 01's Q1, lab 03's Q6);
  - a *coding question* is one whose label (for a part without labels: its heading) announces a
    size in lines: "1 line", "3 lines", "about 14 lines", "about 10 more lines". Measurements
    that end in a TODO, such as "put the fastest shape into ...", announce minutes only.
starter/labNN_*.cu marks the code of question Qn.m with `TODO(Qn.m): ... (about N lines).` or
`TODO(Qn.m, stretch): ...`; the answer key handouts/NN-*-answers.md answers Qn.m with `**Qn.m.**`
or `- **Qn.m**` (and a part without labels with `**Qn.**`).

Rules, each problem printed as FILE:LINE: what is wrong:
  numbering  headings and labels follow the scheme above (lab 04 once numbered its parts Q4.1-Q4.6);
  (a)  every TODO( in the starter reads TODO(Qn.m) or TODO(Qn.m, note), and Qn.m is a question
       of that lab's handout;
  (b)  every coding question of the handout has at least one TODO(Qn.m) in the starter;
  (c)  every entry of the answer key names a question (or part) of the handout, and every question
       that is not a coding question has an entry. Coding questions may be answered by the
       solution file alone (labs 05 and 06 do), so they need no entry. Without solutions/, a lab
       without an answer key is skipped rather than reported.

Fixing a failure: renumber the handout, then use the same Qn.m in the starter's TODO, the answer
key's entry, and every place that cites the question ("question n.m" in labs/NN-*/: test messages,
technique-check hints in meson.build, sweep comments; "Qn.m" in other handouts); give a new coding
question a TODO in the starter, or its label no "N lines" if it asks for no code. Change prose and
comments only, never code, and keep the starter's and the solution's shared comments identical.

Usage: check_questions.py [--root DIR]   (default: the repository, two folders above this script)
Exit status 0 with a one-line summary when every rule holds, 1 otherwise.
"""
import argparse
import glob
import os
import re
import sys

HEADING = re.compile(r"^##\s+Q(\d[\w.]*)(.*)$")         # any `## Q...` heading; valid: `## Qn`
LABEL = re.compile(r"\*\*Q(\d[\d.]*?)\.?(?=[\s*(—-])([^*]*)\*\*")  # `**Qn.m ...**` bold labels
ANSWER = re.compile(r"\*\*Q(\d+(?:\.\d+)?)(?=[.\s*])")  # `**Qn.m.**`, `**Qn.m**`, `**Qn.**`
TODO = re.compile(r"TODO\(([^)]*)\)")
LINES = re.compile(r"\b\d+\s+(?:more\s+)?lines?\b")


def read_lines(path):
    """The file's lines, and for each whether it sits inside a ``` fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    fenced, inside = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
        fenced.append(inside)
    return lines, fenced


def parse_handout(path, rel, problems):
    """Questions {id: (line, is_coding)} and parts {n: line}, checking the numbering on the way."""
    lines, fenced = read_lines(path)
    questions, parts, part, part_line, part_text, last_m = {}, {}, None, 0, "", 0

    def close_part():
        if part is not None and last_m == 0:  # a part without labels is one question
            questions[part] = (part_line, bool(LINES.search(part_text)))

    for number, (line, in_fence) in enumerate(zip(lines, fenced), 1):
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading:
            close_part()
            part, part_line, part_text, last_m = heading.group(1), number, heading.group(2), 0
            if not part.isdigit():
                problems.append(f"{rel}:{number}: heading `## Q{part}` should be `## Qn — title`, "
                                f"n = {len(parts) + 1}; its questions are `**Qn.1**`, `**Qn.2**`, ...")
            elif int(part) != len(parts) + 1:
                problems.append(f"{rel}:{number}: part Q{part} should be Q{len(parts) + 1} "
                                "(parts are numbered 1, 2, 3, ... in order)")
            parts[part] = number
            continue
        if re.match(r"#{1,2}\s", line):  # another part (`### ...` stays inside the current one)
            close_part()
            part = None
            continue
        for label in LABEL.finditer(line):
            qid, text = label.group(1), label.group(2)
            n, _, m = qid.partition(".")
            if part is None or not m.isdigit() or n != part or int(m) != last_m + 1:
                where = f"part Q{part}" if part else "no `## Qn` part"
                expected = f"Q{part}.{last_m + 1}" if part else "a label inside a `## Qn` part"
                problems.append(f"{rel}:{number}: label **Q{qid}** in {where}: expected {expected}")
            if m.isdigit():
                last_m = int(m)
            if qid in questions:
                problems.append(f"{rel}:{number}: question Q{qid} labelled twice "
                                f"(first at line {questions[qid][0]})")
            questions[qid] = (number, bool(LINES.search(text)))
    close_part()
    return questions, parts


def check_lab(root, handout, problems, notes):
    rel = lambda path: os.path.relpath(path, root)
    nn = os.path.basename(handout)[:2]
    questions, parts = parse_handout(handout, rel(handout), problems)
    coding = {q for q, (_, is_coding) in questions.items() if is_coding}

    todos = {}
    starters = glob.glob(os.path.join(root, "starter", f"lab{nn}_*.cu"))
    if len(starters) != 1:
        problems.append(f"{rel(handout)}:1: expected one starter/lab{nn}_*.cu, found {len(starters)}")
    for starter in starters:
        lines, _ = read_lines(starter)
        for number, line in enumerate(lines, 1):
            if "TODO(" in line and not TODO.search(line):
                problems.append(f"{rel(starter)}:{number}: TODO( without its closing parenthesis")
            for todo in TODO.finditer(line):
                qid = todo.group(1).split(",")[0].strip()
                match = re.fullmatch(r"Q(\d+\.\d+)", qid)
                if not match:
                    problems.append(f"{rel(starter)}:{number}: TODO({todo.group(1)}) should name a "
                                    "question as TODO(Qn.m) or TODO(Qn.m, note)")
                elif match.group(1) not in questions:
                    problems.append(f"{rel(starter)}:{number}: TODO({qid}) names no question of "
                                    f"{rel(handout)}")
                else:
                    todos.setdefault(match.group(1), number)
    for qid in sorted(coding - set(todos), key=lambda q: [int(x) for x in q.split(".")]):
        problems.append(f"{rel(handout)}:{questions[qid][0]}: coding question Q{qid} announces "
                        f"lines of code but no TODO(Q{qid}) marks them in starter/lab{nn}_*.cu")

    has_solutions = os.path.isdir(os.path.join(root, "solutions"))

    answers = handout[:-len(".md")] + "-answers.md"
    entries = set()
    if not os.path.exists(answers):
        if has_solutions:
            problems.append(f"{rel(handout)}:1: no answer key {rel(answers)}")
        else:
            notes.add(f"lab{nn} has no answer key: rule (c) skipped")
    else:
        lines, fenced = read_lines(answers)
        for number, (line, in_fence) in enumerate(zip(lines, fenced), 1):
            if in_fence:
                continue
            heading = HEADING.match(line)
            found = [heading.group(1)] if heading else [a.group(1) for a in ANSWER.finditer(line)]
            for qid in found:
                if qid not in questions and qid not in parts:
                    problems.append(f"{rel(answers)}:{number}: entry Q{qid} names no question of "
                                    f"{rel(handout)}")
                entries.add(qid)
        for qid, (number, is_coding) in sorted(questions.items(), key=lambda q: q[1][0]):
            if not is_coding and qid not in entries:
                problems.append(f"{rel(handout)}:{number}: question Q{qid} has no entry "
                                f"**Q{qid}.** in {rel(answers)}")
    return (f"lab{nn} {len(questions)} questions/{len(coding)} coding/{len(todos)} with TODOs/"
            f"{len(entries & set(questions))} answered")


def main(argv):
    default_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=default_root, help="the repository (default: %(default)s)")
    root = os.path.abspath(parser.parse_args(argv).root)
    handouts = sorted(h for h in glob.glob(os.path.join(root, "handouts", "[0-9][0-9]-*.md"))
                      if not h.endswith("-answers.md"))
    problems, notes, summary = [], set(), []
    for handout in handouts:
        summary.append(check_lab(root, handout, problems, notes))
    if not handouts:
        problems.append(f"{os.path.join(root, 'handouts')}: no handouts/NN-*.md found")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_questions: {len(problems)} problem(s); the rules and how to fix them: the "
              f"docstring of {os.path.relpath(os.path.abspath(__file__), default_root)}")
        return 1
    print("check_questions: OK: " + "; ".join(summary) + "".join(f" ({n})" for n in sorted(notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
