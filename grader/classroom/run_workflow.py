#!/usr/bin/env python3
"""Run a GitHub Classroom workflow's steps here, exactly as written, as GitHub's runner and the
classroom actions would, and report the points each step would give.

    run_workflow.py [--workflow .github/workflows/classroom.yml] [--root DIR] [--json FILE]
    run_workflow.py --check-only [--workflow FILE]      only validate the workflow

First it validates the workflow: every `with:` input against the inputs the actions document
(action_inputs.json, with the README each came from), the reporter's runners against the steps
and their <ID>_RESULTS variables, and the reporter's rules (the workflow named "Autograding
Tests", one job, run-autograding-tests). Then it runs the job in DIR (the checkout, default this
repository): actions/checkout is DIR itself; a command grader step runs its setup-command and
command with /bin/sh in DIR, with the environment the action gives them (PATH and HOME only, and
its fixed FORCE_COLOR and DOTNET_* variables: its src/main.js), its timeout in minutes; its
result is the action's (status pass, fail or error; score max-score when it passed); a `run:`
step runs with bash -eo pipefail; the reporter adds the runners' scores up as it does. Needs
PyYAML (pip install pyyaml). Exit status: 0 the job ran (whatever it scored), 1 the workflow is
invalid or a step could not run, 2 bad usage.
"""
import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ACTIONS = os.path.join(HERE, "action_inputs.json")
COMMAND_GRADERS = ("classroom-resources/autograding-command-grader",
                   "classroom-resources/autograding-io-grader")
REPORTER = "classroom-resources/autograding-grading-reporter"
CHECKOUT = "actions/checkout"
STEP_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
RESULT_EXPRESSION = re.compile(r"^\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.result\s*\}\}$")


def load_workflow(path):
    try:
        import yaml
    except ImportError:
        raise SystemExit("error: run_workflow.py needs PyYAML: python3 -m pip install pyyaml")
    try:
        with open(path, encoding="utf-8") as f:
            workflow = yaml.safe_load(f)
    except OSError as error:
        raise SystemExit(f"error: cannot read the workflow: {error}; name it with --workflow")
    except yaml.YAMLError as error:
        raise SystemExit(f"error: {path} is not valid YAML ({error}); is it a workflow file?")
    if not isinstance(workflow, dict) or not isinstance(workflow.get("jobs"), dict):
        raise SystemExit(f"error: {path} is not a workflow (no jobs:)")
    return workflow


def load_actions(path=ACTIONS):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["actions"]


def action_of(step):
    return (step.get("uses") or "").split("@")[0]


def input_problems(where, step, spec):
    problems = []
    given = step.get("with") or {}
    for key, value in given.items():
        rule = spec["inputs"].get(key)
        if rule is None:
            problems.append(f"{where}: with: {key} is not an input of {action_of(step)} "
                            f"(documented: {', '.join(spec['inputs'])}; {spec['source']})")
            continue
        text = str(value)
        if rule.get("number") or rule.get("integer"):
            try:
                number = float(text)
            except ValueError:
                problems.append(f"{where}: {key} is {text!r}, not a number")
                continue
            if rule.get("integer") and number != int(number):
                problems.append(f"{where}: {key} is {text}: the action reads it as a whole number")
            if "maximum" in rule and number > rule["maximum"]:
                problems.append(f"{where}: {key} is {text}, above its maximum {rule['maximum']}")
        if "one_of" in rule and text not in rule["one_of"]:
            problems.append(f"{where}: {key} is {text!r}, not one of {', '.join(rule['one_of'])}")
    for key, rule in spec["inputs"].items():
        if rule.get("required") and key not in given:
            problems.append(f"{where}: the required input {key} is missing")
    return problems


def reporter_problems(where, step, graders):
    runners = [r.strip() for r in str((step.get("with") or {}).get("runners", "")).split(",")
               if r.strip()]
    env = step.get("env") or {}
    problems = []
    for runner in runners:
        if runner not in graders:
            problems.append(f"{where}: runner {runner!r} is no earlier grader step's id")
        variable = f"{runner.upper()}_RESULTS"
        match = RESULT_EXPRESSION.match(str(env.get(variable, "")).strip())
        if not match or match.group(1) != runner:
            problems.append(f"{where}: env {variable} must be \"${{{{steps.{runner}.outputs.result}}}}\"")
    extra = set(env) - {f"{r.upper()}_RESULTS" for r in runners}
    if extra:
        problems.append(f"{where}: env {', '.join(sorted(extra))} names no runner")
    missing = [g for g in graders if g not in runners]
    if missing:
        problems.append(f"{where}: grader steps {', '.join(missing)} are not in runners:")
    return problems


def check(workflow, actions):
    """What in `workflow` the actions' documentation does not allow; [] when valid."""
    problems = []
    jobs = workflow["jobs"]
    for job_name, job in jobs.items():
        graders, ids = [], set()
        for index, step in enumerate(job.get("steps") or []):
            where = f"{job_name} step {index + 1} ({step.get('name') or step.get('id') or step.get('uses')})"
            if "id" in step:
                if not STEP_ID.match(str(step["id"])) or step["id"] in ids:
                    problems.append(f"{where}: id {step['id']!r} is not a unique step id")
                ids.add(step["id"])
            if "uses" not in step:
                if "run" not in step:
                    problems.append(f"{where}: neither uses: nor run:")
                continue
            spec = actions.get(action_of(step))
            if spec is None:
                problems.append(f"{where}: uses {step['uses']}, which action_inputs.json does not "
                                "document")
                continue
            problems += input_problems(where, step, spec)
            if action_of(step) in COMMAND_GRADERS:
                if "id" not in step:
                    problems.append(f"{where}: a grader step needs an id for the reporter")
                graders.append(step.get("id"))
            if action_of(step) == REPORTER:
                problems += reporter_problems(where, step, graders)
                # The reporter's README: these or Classroom gets no scores.
                if workflow.get("name") != "Autograding Tests":
                    problems.append("the workflow must be named \"Autograding Tests\" (the reporter's README)")
                if list(jobs) != ["run-autograding-tests"]:
                    problems.append("the workflow must have one job, run-autograding-tests "
                                    "(the reporter's README)")
    return problems


def shell(command, cwd, env, timeout_s, bash=False):
    """(status, seconds): the command's exit as the actions see it: pass, fail, or error on a
    timeout."""
    started = time.monotonic()
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command] if bash \
        else ["/bin/sh", "-c", command]
    print(f"$ {command}", flush=True)
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return "error", time.monotonic() - started
    return ("pass" if done.returncode == 0 else "fail"), time.monotonic() - started


def grader_env():
    """The command grader's environment for its commands (src/main.js): no other variable."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""),
            "FORCE_COLOR": "true", "DOTNET_CLI_HOME": "/tmp", "DOTNET_NOLOGO": "true"}


def run_grader_step(step, root):
    given = step["with"]
    timeout_s = float(given.get("timeout", 10)) * 60
    max_score = int(float(given.get("max-score", 0)))
    status, seconds = "pass", 0.0
    for key in ("setup-command", "command"):
        if given.get(key) and status == "pass":
            status, seconds = shell(str(given[key]), root, grader_env(), timeout_s)
    return {"version": 1, "status": status, "max_score": max_score,
            "tests": [{"name": given["test-name"], "status": status,
                       "score": max_score if status == "pass" else 0, "message": "",
                       "test_code": str(given["command"]), "filename": "", "line_no": 0,
                       "duration": int(seconds * 1000)}]}


def report(results):
    """The reporter's sum (src/notify-classroom.js): runners with a max_score count."""
    total = sum(t["score"] for r in results.values() if r.get("max_score") for t in r["tests"])
    most = sum(r["max_score"] for r in results.values() if r.get("max_score"))
    return total, most


def run_job(workflow, job_name, root):
    """{step id: result} of the command grader steps, and the reporter's (total, maximum)."""
    results, outputs = {}, {}
    for step in workflow["jobs"][job_name].get("steps") or []:
        action = action_of(step)
        print(f"\n== {step.get('name') or action or step.get('run')}", flush=True)
        if action == CHECKOUT:
            print(f"(the checkout is {root})")
        elif action in COMMAND_GRADERS:
            result = run_grader_step(step, root)
            results[step["id"]] = result
            outputs[step["id"]] = base64.b64encode(json.dumps(result).encode()).decode()
            print(f"-> {result['status']}, {result['tests'][0]['score']}/{result['max_score']}")
        elif action == REPORTER:
            for variable, value in (step.get("env") or {}).items():
                runner = RESULT_EXPRESSION.match(str(value).strip()).group(1)
                decoded = json.loads(base64.b64decode(outputs[runner]))
                results[runner] = decoded  # what the reporter reads, through its variable
            total, most = report(results)
            print(f"Points {total}/{most}")
        elif "run" in step:
            if "${{" in step["run"]:
                raise SystemExit(f"error: {step['run']!r}: expressions in run: are not emulated")
            with tempfile.NamedTemporaryFile(prefix="step-summary-") as summary:
                env = dict(os.environ, GITHUB_STEP_SUMMARY=summary.name, GITHUB_WORKSPACE=root)
                status, _ = shell(step["run"], root, env, 6 * 3600, bash=True)
            if status != "pass":
                raise SystemExit(f"error: the step {step.get('name')!r} failed: the job stops here")
        else:
            raise SystemExit(f"error: {action}: no emulation of this action")
    return results, report(results)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--workflow", default=os.path.join(ROOT, ".github", "workflows",
                                                           "classroom.yml"))
    parser.add_argument("--root", default=ROOT, help="the checkout the job runs in")
    parser.add_argument("--job", help="the job to run (default: the workflow's only job)")
    parser.add_argument("--json", metavar="FILE", help="write the steps' results and the total")
    parser.add_argument("--check-only", action="store_true", help="validate, run nothing")
    args = parser.parse_args(argv)
    workflow = load_workflow(args.workflow)
    problems = check(workflow, load_actions())
    for problem in problems:
        print(f"invalid: {problem}")
    if problems:
        return 1
    print(f"{args.workflow}: every input is one its action documents")
    if args.check_only:
        return 0
    jobs = list(workflow["jobs"])
    job = args.job or (jobs[0] if len(jobs) == 1 else None)
    if job not in workflow["jobs"]:
        print(f"error: name the job with --job ({', '.join(jobs)})", file=sys.stderr)
        return 2
    results, (total, most) = run_job(workflow, job, os.path.abspath(args.root))
    print("\n" + "\n".join(f"{step:<28} {r['status']:<5} {r['tests'][0]['score']}/{r['max_score']}"
                           for step, r in results.items()))
    print(f"total: {total}/{most}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"steps": results, "total": total, "max_score": most}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
