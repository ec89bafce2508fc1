"""The class page's parts drawn from class-insight.json (class_insight.py): "teach next" at the top,
per lab the tests, failures by kind, counters, technique checks and review notes, and the phase
timings. HTML only: every figure and count is class_insight.py's."""
import html
import os
from urllib.parse import quote

from explain import counters

from batch import phase_timings, plots

SHOWN_STUDENTS = 12
CSS = """.teach-next td:first-child{white-space:nowrap} .teach-next ul,.kinds ul{margin:0;padding-left:1.2em}
.share{display:inline-block;height:9px;background:#c05050;vertical-align:middle;margin-right:6px}
.counter-plots{display:flex;flex-wrap:wrap;gap:6px} .counter-plots img{border:1px solid #eee}
.muted{color:#666} h3{margin-top:1.6em} .kinds td{overflow-wrap:anywhere}"""
e = html.escape


def link(student, file="instructor-log.txt"):
    return f"<a href='submissions/{e(quote(student))}/{file}'>{e(student)}</a>"


def students(names):
    """Links to the submissions, the first few shown, the others behind a click."""
    shown = ", ".join(link(n) for n in names[:SHOWN_STUDENTS])
    rest = names[SHOWN_STUDENTS:]
    if rest:
        shown += (f" <details><summary>and {len(rest)} more</summary>"
                  + ", ".join(link(n) for n in rest) + "</details>")
    return shown


def teach_next(insight):
    rows = insight.get("teach_next") or []
    parts = ["<h2 id='teach-next'>Teach next</h2>",
             "<p>The handout questions whose lesson would help the most submissions. The evidence: "
             "failures whose message or hint names the question, and watched counters (labs/NN-*/"
             "counters.json) worse than the reference's by more than the lab allows, counted with the "
             "CPU backend's counting mode after the tests (advice: no points hang on them).</p>",
             "<table class='teach-next'><tr><th>question</th><th>submissions</th><th>evidence</th>"
             "<th>submissions behind it</th></tr>"]
    if not rows:
        parts.append("<tr><td colspan='4'>Nothing to teach from this class: no failure names a "
                     "question, and no counted kernel is worse than the reference's.</td></tr>")
    for row in rows:
        title = f" — {e(row['title'])}" if row.get("title") else ""
        evidence = "".join(f"<li>{item['submissions']}: {e(item['text'])}</li>" for item in row["evidence"])
        parts.append(f"<tr><td><b>{e(row['question'])}</b> ({e(row['lab'])}){title}</td>"
                     f"<td>{row['submissions']} of {row['of']}</td><td><ul>{evidence}</ul></td>"
                     f"<td>{students(row['students'])}</td></tr>")
    parts.append("</table>")
    return parts


def _share(count, of):
    share = count / of if of else 0.0
    return f"<span class='share' style='width:{round(60 * share)}px'></span>{count} of {of} ({share:.0%})"


def tests(lab):
    parts = [f"<h3>Tests</h3><p>Of the {lab['compiled']} submission(s) whose file compiled "
             f"({lab['holding']} sent it):</p>",
             "<table><tr><th>test</th><th>kind</th><th>points</th><th>failing</th></tr>"]
    for t in lab["tests"]:
        parts.append(f"<tr><td>{e(t['name'])}</td><td>{e(t['kind'])}</td><td>{t['points']:g}</td>"
                     f"<td>{_share(t['failing'], t['of'])}</td></tr>")
    return parts + ["</table>"]


def failure_kinds(lab):
    kinds = lab["failure_kinds"]
    if not kinds:
        return ["<h3>Failures by kind</h3><p>None.</p>"]
    parts = ["<h3>Failures by kind</h3><p>The grader's words with the numbers taken out (#), "
             "its hint, the race witness's lines where there is one.</p>",
             "<table class='kinds'><tr><th>submissions</th><th>failures</th><th>kind</th>"
             "<th>tests</th><th>one example</th></tr>"]
    for g in kinds:
        said = [e(g["kind"])] + ([f"hint: {e(g['hint'])}"] if g["hint"] else []) + (
            [f"<b>{e(g['race'])}</b>"] if g["race"] else [])
        example = g["example"]
        parts.append(f"<tr><td>{g['submissions']}</td><td>{g['failures']}</td>"
                     f"<td>{'<br>'.join(said)}</td><td>{'<br>'.join(e(t) for t in g['tests'][:6])}"
                     f"{' …' if len(g['tests']) > 6 else ''}</td>"
                     f"<td>{link(example['student'])}{': ' + e(example['test']) if example['test'] else ''}"
                     f"<br><span class='muted'>{e(example['message'])}</span></td></tr>")
    return parts + ["</table>"]


def _median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else None


def counter_section(lab_name, lab, plot_dir, use_matplotlib):
    rows, counted = lab["counters"], lab["counting"]
    if not rows:
        return []
    others = [f"{len(names)} not counted: {e(reason)}" for reason, names in counted["not_counted"].items()]
    others += [f"{len(names)} unavailable: {e(reason)} ({', '.join(link(n) for n in names[:6])}"
               f"{' …' if len(names) > 6 else ''})" for reason, names in counted["unavailable"].items()]
    parts = [f"<h3>Counters</h3><p>{counted['counted']} submission(s) counted (the CPU backend's "
             f"counting mode, the explanations' input){'; ' if others else '.'}{'; '.join(others)}"
             f"{'.' if others else ''} Each dot is a submission, the red line the reference's value.</p>"]
    images = []
    for row in rows:
        name = f"{lab_name}_{row['function']}_{row['counter']}"
        path = plots.counter_strip(list(row["values"].values()), row["reference"],
                                   f"{row['version']}: {row['counter']}", row["words"],
                                   os.path.join(plot_dir, name), use_matplotlib)
        if path:
            images.append(f"<img src='plots/{e(os.path.basename(path))}' alt='{e(name)}'>")
    if images:
        parts.append("<div class='counter-plots'>" + "".join(images) + "</div>")
    parts.append("<table><tr><th>version</th><th>counter</th><th>the reference</th><th>class median</th>"
                 "<th>worse than the lab allows</th><th>question</th></tr>")
    for row in rows:
        median = _median(row["values"].values())
        show = (lambda v: "–" if v is None else counters.show(row["counter"], v))
        parts.append(f"<tr><td>{e(row['version'])}</td><td>{e(row['words'])}</td><td>{show(row['reference'])}</td>"
                     f"<td>{show(median)}</td><td>{len(row['worse'])} {students(row['worse'])}</td>"
                     f"<td>{e(row['question'])}: {e(row['fix'])}</td></tr>")
    return parts + ["</table>"]


def techniques(lab):
    if not lab["techniques"]:
        return []
    parts = ["<h3>Technique checks</h3><table><tr><th>check</th><th>passed</th><th>failed</th></tr>"]
    for row in lab["techniques"]:
        parts.append(f"<tr><td>{e(row['name'])}</td><td>{row['passed']}</td>"
                     f"<td>{row['failed']} {students(row['failing'])}</td></tr>")
    return parts + ["</table>"]


def review(lab):
    if not lab["review"]:
        return []
    return (["<h3>For review</h3><ul>"]
            + [f"<li>{link(n['student'])}: {e(n['note'])}</li>" for n in lab["review"]] + ["</ul>"])


def lab_section(lab_name, insight, plot_dir, use_matplotlib):
    lab = (insight.get("labs") or {}).get(lab_name)
    if not lab:
        return []
    return (tests(lab) + failure_kinds(lab) + counter_section(lab_name, lab, plot_dir, use_matplotlib)
            + techniques(lab) + review(lab))


def timings(insight):
    found = insight.get("timings") or {}
    if not found.get("phases") and not found.get("setup"):
        return []
    parts = [f"<h2 id='timings'>What the batch cost</h2><p>On {e(phase_timings.describe(found.get('machine') or {}))}. "
             f"Set-up {found['setup_total_s']:.0f} s: "
             + e(", ".join(f"{p['label']} {p['seconds']:.0f} s" for p in found["setup"])) + ".</p>",
             "<table><tr><th>phase</th><th>total</th><th>median per submission</th><th>most</th></tr>"]
    for p in found["phases"]:
        parts.append(f"<tr><td>{e(p['label'])}</td><td>{p['total_s']:.1f} s</td>"
                     f"<td>{p['median_s']:.2f} s</td><td>{p['max_s']:.1f} s</td></tr>")
    if found.get("submission_median_s") is not None:
        parts.append(f"<tr><td><b>a whole submission</b></td><td></td><td><b>{found['submission_median_s']:.1f} s"
                     f"</b></td><td>{found['submissions']} graded in this batch</td></tr>")
    return parts + ["</table>"]
