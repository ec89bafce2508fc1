"""The batch's evidence pass (runs/evidence_pass.py says what it is): after a lab's run and its
sanitizer pass, the tests its technique checks need that passed run once more in the sandbox with
the runner counting what ran; the checks, whose machine code the build read, are then judged on
that evidence when the lab's record is assembled (grading.assemble_lab, technique/evidence.py).
On the CPU backend the same pass is the race pass: the runner's race detector watches it, and a
data race fails its function's correctness tests (counting/race_verdicts.py, as in grade.py)."""
from counting import race_verdicts
from runs import evidence_pass
from technique import evidence as ran_evidence

def uncounted_checks(record):
    """The technique checks of a lab's record whose evidence named nothing the program ran
    (technique/evidence.py, NOT_COUNTED): they cannot be graded on this machine."""
    return [t["name"] for t in record["tests"]
            if t.get("kind") == "check" and (t.get("message") or "").startswith(ran_evidence.NOT_COUNTED)]


def refused(lab_run):
    """What an administrator must do where the driver refused the runner the counters, else ""."""
    for calls in (lab_run.evidence or {}).values():
        for call in calls:
            if ran_evidence.not_permitted(call.get("unavailable") or ""):
                return ran_evidence.PERMISSION_FIX
    return ""


def needed_tests(build_checks):
    """The tests the lab's checks with a `ran` requirement need, from their results entries."""
    needed = []
    for record in build_checks or []:
        for entry in ((record.get("results") or {}).get("tests") or []):
            if isinstance(entry.get("evidence"), dict):
                needed += [n for n in entry.get("needs") or [] if n not in needed]
    return needed


def run(batch, lab, folder, lab_run, build_checks, gpu, run_inputs, budget=None, races="apply"):
    """Sets lab_run.evidence to {test: calls} of the needed tests that passed ({} when none). On the
    CPU backend it is also the race pass (counting/race_verdicts.py, the rule grade.py applies):
    races "apply" fails each racy function's passed correctness tests; "find" (the reference
    solution) only finds them; "off" (a lab whose reference showed one) runs no race pass.
    lab_run.races: {"functions", "witnesses", "unchecked", "unavailable", "unwatched"} ({} without a
    pass); a suite the detector did not watch in full fails as a racy one (race_verdicts.unwatched)."""
    lab_run.races, lab_run.evidence = {}, {}
    full = evidence_pass.passed(lab_run.outcomes, needed_tests(build_checks))
    if full:
        found = batch.run_lab(lab, folder, full, gpu, run_inputs, budget, evidence=True)
        lab_run.evidence = {name: outcome.evidence for name, outcome in found.outcomes.items()}
    watch = batch.settings.backend == "cpu" and races != "off"
    small = race_verdicts.race_tests(lab_run.outcomes) if watch else []
    if small:  # the race pass: every passed main and edge test, small, the detector watching
        found = batch.run_lab(lab, folder, small, gpu, run_inputs, budget, evidence=True,
                              environment=race_verdicts.RACE_PASS)
        lab_run.races, _ = race_verdicts.judge(lab, [found.outcomes], lab_run.outcomes if races == "apply" else None)
