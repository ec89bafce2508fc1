"""What the batch grader writes: per submission the student's log and results.json (Gradescope),
capped as student_view.py says, and the instructor's: instructor-log.txt and grading.json (the
full record); per class a CSV and an HTML report with plots. Every file is written to a
temporary name and renamed, so a reader (or an interrupted run) never sees half a file."""
import csv
import glob
import html
import io
import json
import os
import time

from explain import explanations
from runs.results import own_words, shorten  # grader/runs/results.py

from batch import class_insight, grading, insight_html, plots, student_view
from gradescope import results_format
from batch.paths import ReportPaths

LOG_ATTEMPT_OUTPUT = 12000
INSTRUCTOR_LOG = "instructor-log.txt"  # log.txt with every line the runs printed


def atomic_write(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = f"{path}.partial-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, path)


def load_records(report_dir):
    records = []
    for path in sorted(glob.glob(ReportPaths(report_dir).student_file("*", "grading.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if record.get("schema") == grading.RECORD_SCHEMA:
            records.append(record)
    return records


def write_submission(report_dir, record, visibility):
    """`visibility`: a results_format.VisibilityPolicy (grade_submissions.py's --visibility and
    --test-visibility), or one visibility for every test."""
    paths, student = ReportPaths(report_dir), record["student"]
    atomic_write(paths.student_file(student, "log.txt"), render_log(record))
    atomic_write(paths.student_file(student, INSTRUCTOR_LOG), render_log(record, student=False))
    atomic_write(paths.student_file(student, "results.json"),
                 json.dumps(results_format.results_json(record, visibility), indent=1))
    # Last: a submission counts as graded once its grading.json exists.
    atomic_write(paths.student_file(student, "grading.json"), json.dumps(record, indent=1))


def starter_note(score, max_score):
    """What a reference run of the starter means: without solutions/ (a students' copy, the
    Gradescope zip) the starter stands in, for the list of tests and their points only; an
    untouched starter scores 0, which is no fault of the set-up."""
    expected = " as expected (its kernels are not written yet)" if score == 0 else ""
    return (f"tests and points ({max_score:g}) taken from the starter, this copy having no "
            f"solutions/; the starter scores {score:g}/{max_score:g}{expected}")


def reference_line(name, lab):
    """The batch log's line for one lab of the reference run."""
    where = f" on {lab['device']}" if lab.get("device") else ""
    if lab.get("source") == "starter":
        return f"  {name}: {starter_note(lab['score'], lab['max_score'])}{where}"
    return f"  {name}: reference ({lab['source']}) scores {lab['score']:g}/{lab['max_score']:g}{where}"


def _cut(text, limit=LOG_ATTEMPT_OUTPUT):
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + f"\n[... {len(text) - limit} characters cut ...]\n" + text[-half:]


def render_log(record, student=True):
    """log.txt; student=False: the instructor's, with every message and line of output whole."""
    out = io.StringIO()
    w = lambda line="": out.write(line + "\n")
    w(f"Student: {record['student']}    source: {record.get('source', '')}")
    w(f"Score: {record['score']:g} / {record['max_score']:g}    graded in {record.get('duration_s', 0)} s"
      f"    student code ran as: {record.get('run_user', '?')}")
    w(f"Files fingerprint: {record.get('fingerprint', '')}")
    if record.get("error"):
        w(f"ERROR: {record['error']}")
    for note in record.get("notes", []):
        w(f"note: {note}")
    for lab in record["labs"].values():
        runner_lines = student_view.RunnerLines()
        w()
        w("=" * 100)
        w(f"{lab['lab']} ({lab['file']}): {lab['score']:g} / {lab['max_score']:g}   [{lab['status']}]"
          + (f"   device: {lab['device']}" if lab.get("device") else ""))
        for reason in lab["reasons"]:
            w(f"  - {reason}")
        for line in counter_lines(lab):
            w(f"  why (counters, advice, no points): {line}")
        if lab["build_output"]:
            w("-- build output " + "-" * 84)
            w(lab["build_output"])
        for f in lab["findings"]:
            w(f"  integrity ({f['category']}, {f['where']}): {f['detail']}")
        if not lab.get("symbols_checked") and lab["status"] != "missing":
            w("  (compiled symbols not checked: no object file, or nm not installed)")
        if lab.get("forged_lines"):
            w(f"  {lab['forged_lines']} line(s) on the grader's private channel lacked its key and "
              f"were ignored, e.g. {lab['forged_samples'][:1]}")
        w("-- tests " + "-" * 91)
        for t in lab["tests"]:
            w(f"  {t['status'].upper():7} {t['score']:5g}/{t['max_score']:<4g} {t['name']}")
            if t["status"] != "passed" and t["message"]:
                # whole: a student's as results.json shows it (capped), the instructor's all of it
                text = student_view.message(t["message"]) if student else own_words(t["message"])
                for line in text.strip().splitlines():
                    w(f"            {line}")
        for i, attempt in enumerate(lab.get("attempts", []), 1):
            w(f"-- run {i}: {attempt['filter_count']} test(s), status {attempt['returncode']}, "
              f"{attempt['duration_s']:.1f} s" + (f": {attempt['reason']}" if attempt["reason"] else ""))
            if attempt.get("dropped_bytes"):
                w(f"   (output capped: {attempt['dropped_bytes']} bytes dropped)")
            output = attempt.get("output", "")
            w((_cut(student_view.run_output(output, runner_lines)) if student else output).rstrip())
        if student and runner_lines.held_back:
            w(student_view.held_back_note(runner_lines))
    return out.getvalue()


def counter_lines(lab):
    """The Why lines of a lab's counters (grade.py's, explain/explanations.py), where counted."""
    section = lab.get("counters") or {}
    if section.get("status") == "not-counted":
        return []
    try:
        return explanations.lines(lab)
    except (KeyError, TypeError, ValueError):
        return ["counters: could not be read"]


def columns(records, plan=None):
    """Labs and their tests, in the reference's order where known, then as found."""
    labs = {}
    for lab_name, tests in (plan or {}).items():
        labs[lab_name] = list(tests)
    for record in records:
        for lab in record["labs"].values():
            names = labs.setdefault(lab["lab"], [])
            for t in lab["tests"]:
                if t["name"] not in names:
                    names.append(t["name"])
    return labs


def class_csv(records, plan=None):
    """One row per student: scores, each test's, the counting step's status and each watched
    counter's value (empty where not counted), device, fingerprint, reasons."""
    labs = columns(records, plan)
    header = ["student", "status", "score", "max_score"] + list(labs)
    for lab_name, tests in labs.items():
        header += [f"{lab_name} {t}" for t in tests]
    watched = {}
    for lab_name in labs:
        lab_records = {r["student"]: r["labs"][lab_name] for r in records if lab_name in r["labs"]}
        watched[lab_name] = class_insight.counter_rows(lab_name, lab_records)
        header += [f"{lab_name} counting"] + [f"{lab_name} {c['version']} {c['counter']}" for c in watched[lab_name]]
    header += ["device", "fingerprint", "reasons"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for record in sorted(records, key=lambda r: r["student"]):
        row = [record["student"], grading.status_of(record), f"{record['score']:g}",
               f"{record['max_score']:g}"]
        row += [f"{record['labs'][n]['score']:g}" if n in record["labs"] else "" for n in labs]
        for lab_name, tests in labs.items():
            lab = record["labs"].get(lab_name)
            by_name = {t["name"]: t for t in lab["tests"]} if lab else {}
            row += [f"{by_name[t]['score']:g}" if t in by_name else "" for t in tests]
        for lab_name, rows in watched.items():
            section = (record["labs"].get(lab_name) or {}).get("counters") or {}
            row += [section.get("status", "")] + [f"{c['values'][record['student']]:.6g}"
                                                  if record["student"] in c["values"] else "" for c in rows]
        labs_done = list(record["labs"].values())
        row += [next((lab["device"] for lab in labs_done if lab.get("device")), ""),
                record.get("fingerprint", "")[:12],
                " | ".join(f"{lab['lab']}: {r}" for lab in labs_done for r in lab["reasons"])
                or record.get("error", "")]
        writer.writerow(row)
    return out.getvalue()


def write_class_csv(report_dir, records, plan=None):
    atomic_write(ReportPaths(report_dir).class_csv, class_csv(records, plan))


CSS = """body{font-family:sans-serif;margin:2em;color:#222} table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f3f3f3;white-space:nowrap} img{max-width:100%}
.ok{color:#176117}.failing{color:#8a5a00}.error,.compile_error,.withheld,.missing{color:#a01010}
details summary{cursor:pointer} pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;max-width:70em}
.plots img{margin:0 1em 1em 0;border:1px solid #eee}
""" + insight_html.CSS


def seeds_note(batch):
    """What the class page says of the hidden seeds (their values are in batch.json only)."""
    hidden = [name for name, key in (("inputs", "input_seed"), ("data file", "data_seed"))
              if batch.get(key) is not None]
    if batch.get("seed") is not None:  # a report of an older version: one seed for both
        hidden = ["inputs", "data file"]
    return (f"hidden for the {' and the '.join(hidden)} (--input-seed, --data-seed; see batch.json)"
            if hidden else "default")


def write_class_files(report_dir, records, batch, use_matplotlib=True):
    """The class's files: class-insight.json, class.csv and index.html (`batch`: batch.json)."""
    insight = class_insight.analyse(records, batch, columns(records, batch.get("plan") or {}))
    class_insight.write(report_dir, insight)
    write_class_csv(report_dir, records, batch.get("plan"))
    write_class_html(report_dir, records, batch, use_matplotlib, insight)


def write_class_html(report_dir, records, batch, use_matplotlib=True, insight=None):
    plan = batch.get("plan") or {}
    labs = columns(records, plan)
    if insight is None:
        insight = class_insight.analyse(records, batch, labs)
    plot_dir = ReportPaths(report_dir).plots
    os.makedirs(plot_dir, exist_ok=True)
    e = html.escape
    parts = [f"<!doctype html><meta charset='utf-8'><title>Class report</title><style>{CSS}</style>",
             "<h1>Class report</h1>",
             f"<p>{len(records)} submission(s) graded; backend <b>{e(str(batch.get('backend')))}</b>; "
             f"device(s): {e(', '.join(batch.get('devices') or []) or 'n/a')}; "
             f"seeds: {seeds_note(batch)}"
             f"; report written {time.strftime('%Y-%m-%d %H:%M')}. "
             "<a href='class.csv'>class.csv</a>, <a href='class-insight.json'>class-insight.json</a>"
             " (the same data, for plots of your own)</p>"]
    for warning in batch.get("warnings", []):
        parts.append(f"<p class='error'>&#9888; {e(warning)}</p>")
    parts += insight_html.teach_next(insight)
    reference = batch.get("reference") or {}
    for lab_name in labs:
        lab_records = [r["labs"][lab_name] for r in records if lab_name in r["labs"]]
        scores = [lab["score"] for lab in lab_records]
        max_score = max([lab["max_score"] for lab in lab_records] or [0])
        parts.append(f"<h2>{e(lab_name)}</h2>")
        ref = reference.get(lab_name)
        if ref:
            parts.append(f"<p>Reference solution on this machine: {ref['score']:g} / "
                         f"{ref['max_score']:g}{' (' + e(ref['device']) + ')' if ref.get('device') else ''}. "
                         + (f"Mean {sum(scores) / len(scores):.1f}, " if scores else "")
                         + f"{sum(s >= max_score for s in scores)} full score(s) of {len(scores)}.</p>")
        images = []
        if scores:
            path = plots.score_histogram(scores, max_score, f"{lab_name}: scores",
                                         os.path.join(plot_dir, f"{lab_name}_scores"), use_matplotlib)
            images.append(path)
        for metric, label in (("speedup_vs_baseline", "speedup over the grader's baseline (x)"),
                              ("percent_of_read_bw", "% of the GPU's read bandwidth")):
            series = {}
            for lab in lab_records:
                if lab["status"] == "withheld":
                    continue
                for t in lab["tests"]:
                    if t["status"] == "passed" and metric in t["metrics"]:
                        series.setdefault(t["name"].split(".")[-1], []).append(t["metrics"][metric])
            if series:
                path = plots.strip_plot(series, f"{lab_name}: {label}", label,
                                        os.path.join(plot_dir, f"{lab_name}_{metric}"), use_matplotlib)
                images.append(path)
        if len(images) == 1:
            parts.append("<p>No speed figures: the speed tests ran on no submission (they need a GPU; "
                         "the CPU backend does not time kernels).</p>")
        parts.append("<div class='plots'>" + "".join(
            f"<img src='plots/{e(os.path.basename(p))}' alt='{e(os.path.basename(p))}'>"
            for p in images if p) + "</div>")
        parts += insight_html.lab_section(lab_name, insight, plot_dir, use_matplotlib)
    parts.append("<h2>Students</h2><table><tr><th>student</th><th>status</th><th>score</th>"
                 + "".join(f"<th>{e(n)}</th>" for n in labs) + "<th>why (click)</th><th>files</th></tr>")
    for record in sorted(records, key=lambda r: r["student"]):
        status = grading.status_of(record)
        link = f"submissions/{e(record['student'])}"
        cells = "".join(f"<td>{record['labs'][n]['score']:g}/{record['labs'][n]['max_score']:g}</td>"
                        if n in record["labs"] else "<td></td>" for n in labs)
        reasons = [f"{lab['lab']}: {r}" for lab in record["labs"].values() for r in lab["reasons"]]
        detail = ""
        if reasons or record.get("error"):
            lines = []
            for lab in record["labs"].values():
                lines += [f"{lab['lab']}: {r}" for r in lab["reasons"]]
                if lab["build_output"]:
                    lines += ["  " + line for line in lab["build_output"].splitlines()[:25]]
                lines += [f"  {t['name']}: {grading.first_line(t['message'])}" for t in lab["tests"]
                          if t["status"] == "failed" and not t["message"].startswith("not graded")][:40]
            body = "\n".join(lines + ([record["error"]] if record.get("error") else []))
            summary = e(shorten((reasons or [record.get("error", "")])[0], 140))
            detail = f"<details><summary>{summary}</summary><pre>{e(body)}</pre></details>"
        notes = [n for lab in record["labs"].values() for n in lab.get("review_notes", [])]
        if notes:
            detail += f"<details><summary>for review</summary><pre>{e(chr(10).join(notes))}</pre></details>"
        parts.append(f"<tr><td>{e(record['student'])}</td><td class='{status}'>{status}</td>"
                     f"<td>{record['score']:g}/{record['max_score']:g}</td>{cells}<td>{detail}</td>"
                     f"<td><a href='{link}/log.txt'>log</a> <a href='{link}/{INSTRUCTOR_LOG}'>full "
                     f"log</a> <a href='{link}/results.json'>results.json</a>"
                     f"</td></tr>")
    parts.append("</table>")
    parts += insight_html.timings(insight)
    atomic_write(ReportPaths(report_dir).index_html, "\n".join(parts) + "\n")
