"""What the class got wrong, from its records: the handout questions to teach next, ranked by how
many submissions they would help, and per lab the share failing each test, the failures by kind,
each watched counter's distribution beside the reference's, the technique verdicts and the review
notes. analyse() makes it; write() is the one writer of class-insight.json (its schema:
grader/batch/README.md, "class-insight.json"); insight_html.py draws it on the class page."""
import json
import os
import time

from explain import counters, declarations, reference_table

from batch import failure_kinds, handout_questions, phase_timings
from batch.paths import ReportPaths

SCHEMA = "gpu-histogram-workbook/class-insight/v1"
BUILT = ("graded", "withheld")  # a lab whose file compiled: its tests ran


def lab_folder(lab_name):
    folder = declarations.lab_folder(lab_name[len("lab"):])
    return os.path.basename(folder) if folder else ""


def _declared(lab_name):
    try:
        return declarations.load(lab_name[len("lab"):]) or {}
    except declarations.DeclarationError:
        return {}


def tests_failing(lab_records, plan_tests):
    """Each test of the plan (then any other found) with the share of compiled submissions failing it."""
    built = {s: lab for s, lab in lab_records.items() if lab.get("status") in BUILT}
    names = list(plan_tests)
    for lab in built.values():
        names += [t["name"] for t in lab.get("tests", []) if t["name"] not in names]
    rows = []
    for name in names:
        entries = [(s, t) for s, lab in built.items() for t in lab.get("tests", []) if t["name"] == name]
        failing = sorted(s for s, t in entries if t.get("status") == "failed")
        kind = next((t.get("kind", "") for _, t in entries), "")
        points = next((t.get("max_score", 0) for _, t in entries), 0)
        rows.append({"name": name, "kind": kind, "points": points, "failing": len(failing),
                     "of": len(entries), "share": round(len(failing) / len(entries), 3) if entries else 0.0,
                     "students": failing})
    return rows


def counter_rows(lab_name, lab_records):
    """Per watched counter of the lab's declaration: the reference's value, each counted
    submission's, and the submissions whose value is worse than the lab allows."""
    declared = _declared(lab_name)
    table = (reference_table.load() or {}).get("labs", {}).get(lab_name[len("lab"):], {})
    rows = []
    for version in declared.get("versions", []):
        for watch in version["watch"]:
            name = watch["counter"]
            values, worse = {}, []
            for student, lab in lab_records.items():
                section = lab.get("counters") or {}
                if section.get("status") != "counted":
                    continue
                for counted in section.get("versions", []):
                    if counted.get("function") == version["function"] and name in counted.get("student", {}):
                        values[student] = counted["student"][name]
                        if any(f.get("counter") == name for f in counted.get("findings", [])):
                            worse.append(student)
            reference = table.get(version["function"], {}).get(name)
            rows.append({"function": version["function"], "version": version["version"],
                         "counter": name, "words": counters.COUNTERS[name][0],
                         "worse_is": counters.COUNTERS[name][1], "question": watch["question"],
                         "fix": watch["fix"], "reference": reference, "values": values,
                         "worse": sorted(worse)})
    return rows


def counting_summary(lab_records):
    """How many submissions were counted; the others by reason."""
    summary = {"counted": 0, "not_counted": {}, "unavailable": {}}
    for student, lab in sorted(lab_records.items()):
        section = lab.get("counters") or {"status": "not-counted", "reason": "no counting in this batch"}
        if section.get("status") == "counted":
            summary["counted"] += 1
        else:
            key = "unavailable" if section.get("status") == "unavailable" else "not_counted"
            summary[key].setdefault(section.get("reason", "?"), []).append(student)
    return summary


def techniques(lab_records):
    """Each technique check (a test of kind "check", named for its version) with its verdicts."""
    rows = {}
    for student, lab in lab_records.items():
        if lab.get("status") not in BUILT:
            continue
        for t in lab.get("tests", []):
            if t.get("kind") == "check":
                row = rows.setdefault(t["name"], {"name": t["name"], "passed": 0, "failed": 0, "failing": []})
                row["passed" if t.get("status") == "passed" else "failed"] += 1
                if t.get("status") != "passed":
                    row["failing"].append(student)
    return [dict(row, failing=sorted(row["failing"])) for row in rows.values()]


def review(lab_records):
    """The integrity findings and review notes, one list: {student, note}."""
    notes = []
    for student, lab in sorted(lab_records.items()):
        said = [r for r in lab.get("reasons", []) if r.startswith("score withheld")]
        for note in said + list(lab.get("review_notes", [])):
            notes.append({"student": student, "note": note})
    return notes


def teach_next(labs, holding):
    """The (lab, question) rows, most submissions helped first. `labs`: analyse's per-lab
    results; `holding`: {lab: submissions holding it}."""
    rows = {}

    def add(lab_name, question, text, students):
        row = rows.setdefault((lab_name, question), {
            "lab": lab_name, "question": question,
            "title": handout_questions.title(lab_folder(lab_name), question),
            "of": holding.get(lab_name, 0), "students": set(), "evidence": []})
        row["students"] |= set(students)
        row["evidence"].append({"text": text, "submissions": len(students), "students": sorted(students)})

    for lab_name, lab in labs.items():
        for c in lab["counters"]:
            if c["worse"]:
                shown = sorted(c["values"][s] for s in c["worse"])
                median = shown[len(shown) // 2]
                add(lab_name, c["question"], f"{c['version']}: {c['words']} {counters.show(c['counter'], median)} "
                    f"(median of those worse; the reference {_shown(c)}): {c['fix']}", c["worse"])
        for g in lab["failure_kinds"]:
            tests = g["tests"][0] + (f" and {len(g['tests']) - 1} more" if len(g["tests"]) > 1 else "") \
                if g["tests"] else "the lab"
            for question in g["questions"]:
                add(lab_name, question, f"{tests} fails: {g['kind']}" + (f" (hint: {g['hint']})" if g["hint"] else ""),
                    g["students"])
    ranked = []
    for row in rows.values():
        row["students"] = sorted(row["students"])
        row["submissions"] = len(row["students"])
        row["evidence"].sort(key=lambda e: -e["submissions"])
        ranked.append(row)
    ranked.sort(key=lambda r: (-r["submissions"], r["lab"], handout_questions.order(r["question"])))
    return ranked


def _shown(row):
    return counters.show(row["counter"], row["reference"]) if row["reference"] is not None else "?"


def analyse(records, summary, lab_tests):
    """class-insight.json's content from the class's records, the batch summary (batch.json) and
    the labs with their tests in the plan's order (reports.columns)."""
    labs, holding = {}, {}
    for lab_name, plan_tests in lab_tests.items():
        lab_records = {r["student"]: r["labs"][lab_name] for r in records if lab_name in r["labs"]}
        holding[lab_name] = sum(lab.get("status") != "missing" for lab in lab_records.values())
        labs[lab_name] = {
            "submissions": len(lab_records), "holding": holding[lab_name],
            "compiled": sum(lab.get("status") in BUILT for lab in lab_records.values()),
            "tests": tests_failing(lab_records, plan_tests),
            "failure_kinds": failure_kinds.group(lab_records),
            "counters": counter_rows(lab_name, lab_records),
            "counting": counting_summary(lab_records),
            "techniques": techniques(lab_records),
            "review": review(lab_records)}
    return {"schema": SCHEMA, "written": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "submissions": len(records), "backend": summary.get("backend"),
            "teach_next": teach_next(labs, holding), "labs": labs,
            "timings": phase_timings.table(records, summary.get("setup_s") or {},
                                           summary.get("machine") or {})}


def write(report_dir, insight):
    """The one writer of REPORT_DIR/class-insight.json: to a temporary name, then renamed, so a
    reader never sees half of it."""
    path = ReportPaths(report_dir).class_insight
    temporary = f"{path}.partial-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(json.dumps(insight, indent=1) + "\n")
    os.replace(temporary, path)
