"""grade_submissions.py merge --out DIR REPORT_DIR...: join the reports of several shards."""
import argparse
import json
import os
import shutil
import sys

from . import reports


def merge_main(argv):
    parser = argparse.ArgumentParser(
        prog="grade_submissions.py merge",
        description="Join shard reports (grade_submissions.py --shard K/N) into one class report.")
    parser.add_argument("reports", nargs="+", metavar="REPORT_DIR")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the joined report goes")
    parser.add_argument("--no-matplotlib", action="store_true")
    args = parser.parse_args(argv)
    out = os.path.abspath(args.out)
    summaries, records, problems = [], {}, []
    for folder in args.reports:
        path = os.path.join(folder, "batch.json")
        if not os.path.isfile(path):
            print(f"error: {folder} holds no batch.json: not a report of grade_submissions.py",
                  file=sys.stderr)
            return 2
        with open(path) as f:
            summaries.append(json.load(f))
        for record in reports.load_records(folder):
            old = records.get(record["student"])
            if old and old["fingerprint"] != record["fingerprint"]:
                problems.append(f"{record['student']} was graded in two shards from different "
                                f"files; kept the one in {folder}")
            records[record["student"]] = dict(record, _from=folder)
    keys = {s.get("config_key") for s in summaries}
    if len(keys) > 1:
        problems.append("the shards were graded with different settings (labs, backend, seed or "
                        "project version): " + ", ".join(sorted(str(k) for k in keys)))
    for record in records.values():
        if record.get("config_key") not in keys:
            problems.append(f"{record['student']}: graded with other settings than its shard's batch")
    os.makedirs(os.path.join(out, "submissions"), exist_ok=True)
    for student, record in records.items():
        source = os.path.join(record.pop("_from"), "submissions", student)
        target = os.path.join(out, "submissions", student)
        if os.path.abspath(source) != os.path.abspath(target):
            temporary = target + ".partial"
            shutil.rmtree(temporary, ignore_errors=True)
            shutil.copytree(source, temporary)
            shutil.rmtree(target, ignore_errors=True)
            os.replace(temporary, target)
    first = summaries[0]
    plan = {}
    for s in summaries:
        for lab, tests in (s.get("plan") or {}).items():
            plan.setdefault(lab, tests)
    merged = dict(first, plan=plan, shard=None,
                  devices=sorted({d for s in summaries for d in s.get("devices", [])}),
                  warnings=sorted({w for s in summaries for w in s.get("warnings", [])} | set(problems)),
                  merged_from=[os.path.abspath(f) for f in args.reports])
    reports.atomic_write(os.path.join(out, "batch.json"), json.dumps(merged, indent=1))
    values = list(records.values())
    reports.write_class_csv(out, values, plan)
    reports.write_class_html(out, values, merged, use_matplotlib=not args.no_matplotlib)
    for problem in problems:
        print(f"warning: {problem}")
    print(f"Merged {len(values)} submission(s) from {len(args.reports)} report(s) into {out}")
    return 0
