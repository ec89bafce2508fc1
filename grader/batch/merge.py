"""grade_submissions.py merge --out DIR REPORT_DIR...: join the reports of several shards."""
import argparse
import json
import os
import shutil
import sys

from batch import reports, submissions
from batch.paths import ReportPaths


def describe(shard):
    return "a whole-class run (no --shard)" if shard is None else f"shard {shard[0]}/{shard[1]}"


def check_shards(given, allow_partial):
    """given: [(folder, batch.json's shard: "K/N" or None)]. Returns (errors, notes, coverage).
    Shard reports must be of one split (the same N) and hold each of shards 1..N once; a missing
    or repeated shard is an error unless allow_partial, then a note. Reports of unsharded runs
    alone are merged as before (no coverage to check)."""
    parsed = []
    for folder, text in given:
        try:
            parsed.append((folder, None if text is None else submissions.parse_shard(str(text))))
        except ValueError:
            return [f"{folder}/batch.json: unreadable shard {text!r}"], [], None
    if all(shard is None for _, shard in parsed):
        return [], [], None
    splits = {None if shard is None else shard[1] for _, shard in parsed}
    if len(splits) > 1:
        listing = "; ".join(f"{folder}: {describe(shard)}" for folder, shard in parsed)
        return [f"these reports come from different splits of the class, so their students "
                f"overlap or are left out ({listing}). Merge the shards of one run "
                f"(the same N in --shard K/N); --allow-partial does not change this"], [], None
    count = splits.pop()
    folders_of = {}
    for folder, (k, _) in parsed:
        folders_of.setdefault(k, []).append(folder)
    missing = [k for k in range(1, count + 1) if k not in folders_of]
    repeated = {k: folders for k, folders in sorted(folders_of.items()) if len(folders) > 1}
    problems = []  # (what is wrong, how to fix it)
    if missing:
        several = len(missing) > 1
        problems.append((f"shard{'s' if several else ''} {', '.join(map(str, missing))} of {count} "
                         f"{'are' if several else 'is'} missing: {'their' if several else 'its'} "
                         "students would have no grade",
                         f"grade {'them' if several else 'it'} "
                         f"({', '.join(f'--shard {k}/{count}' for k in missing)}) and merge again, "
                         f"or pass --allow-partial to merge without {'them' if several else 'it'}"))
    for k, folders in repeated.items():
        problems.append((f"shard {k} of {count} is given {len(folders)} times ({', '.join(folders)})",
                         "give each shard once, or pass --allow-partial to merge them anyway (a "
                         "student in several keeps the grade of the last report given)"))
    coverage = {"count": count, "merged": sorted(folders_of), "missing": missing}
    if problems and not allow_partial:
        return [f"{what}. To merge: {fix}" for what, fix in problems], [], coverage
    return [], [f"partial merge (--allow-partial): {what}" for what, _ in problems], coverage


def merge_main(argv):
    parser = argparse.ArgumentParser(
        prog="grade_submissions.py merge",
        description="Join shard reports (grade_submissions.py --shard K/N) into one class report.")
    parser.add_argument("reports", nargs="+", metavar="REPORT_DIR")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the joined report goes")
    parser.add_argument("--allow-partial", action="store_true",
                        help="merge even when a shard is missing or given twice (its students are "
                             "left out, or taken from the last report naming them), and skip "
                             "report folders without a batch.json; the joined report says so")
    parser.add_argument("--no-matplotlib", action="store_true")
    args = parser.parse_args(argv)
    out = os.path.abspath(args.out)
    summaries, folders, records, problems = [], [], {}, []
    for folder in args.reports:
        path = ReportPaths(folder).summary
        if not os.path.isfile(path):
            if args.allow_partial:  # a shard that died before writing anything
                problems.append(f"partial merge (--allow-partial): {folder} holds no batch.json, skipped")
                continue
            print(f"error: {folder} holds no batch.json: not a report of grade_submissions.py "
                  "(an unfinished shard? --allow-partial merges without it)", file=sys.stderr)
            return 2
        with open(path) as f:
            summaries.append(json.load(f))
        folders.append(folder)
    if not summaries:
        print("error: none of the folders given holds a report", file=sys.stderr)
        return 2
    errors, notes, coverage = check_shards([(f, s.get("shard")) for f, s in zip(folders, summaries)],
                                           args.allow_partial)
    if errors:
        for error in errors:
            print(f"error: {error}", file=sys.stderr)
        return 2
    problems += notes
    for folder in folders:
        for record in reports.load_records(folder):
            old = records.get(record["student"])
            if old and old["fingerprint"] != record["fingerprint"]:
                problems.append(f"{record['student']} was graded in two shards from different "
                                f"files; kept the one in {folder}")
            records[record["student"]] = dict(record, _from=folder)
    keys = {s.get("config_key") for s in summaries}
    if len(keys) > 1:
        problems.append("the shards were graded with different settings (labs, backend, seeds or "
                        "project version): " + ", ".join(sorted(str(k) for k in keys)))
    for record in records.values():
        if record.get("config_key") not in keys:
            problems.append(f"{record['student']}: graded with other settings than its shard's batch")
    joined = ReportPaths(out)
    os.makedirs(joined.submissions, exist_ok=True)
    for student, record in records.items():
        source = ReportPaths(record.pop("_from")).student(student)
        target = joined.student(student)
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
                  merged_from=[os.path.abspath(f) for f in folders], merged_shards=coverage)
    reports.atomic_write(joined.summary, json.dumps(merged, indent=1))
    values = list(records.values())
    reports.write_class_files(out, values, merged, use_matplotlib=not args.no_matplotlib)
    for problem in problems:
        print(f"warning: {problem}")
    covered = (f" (shards {', '.join(map(str, coverage['merged']))} of {coverage['count']})"
               if coverage else "")
    print(f"Merged {len(values)} submission(s) from {len(folders)} report(s){covered} into {out}")
    return 0
