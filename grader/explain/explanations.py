"""A lab's explanation: the submission's counters per graded function (the CPU backend's counting
mode; the GPU's own where explain/gpu_counters.py can read them) beside the references'
(reference_counts.json), and the lines that say what differs and which question teaches the fix.
grade.py attaches it to the lab's results document (runs/results.py, key "counters"); report.py
prints the lines; grade.py --explain prints the whole table (explain/cli.py). Contract: README.md.
"""
import os
import subprocess

from explain import counters, declarations, reference_table, site_findings, sites
from counting import count_kernels, programs

SCHEMA = 'gpu-histogram-workbook/counters/v1'
LINES_PER_VERSION = 2
TIMEOUT_S = 120  # a counting run of a lab takes seconds; an endless kernel is stopped here


def lab_file(lab, submission_dir):
    """The submission's file of `lab`, or None."""
    folder = declarations.lab_folder(lab)
    if not folder:
        return None
    path = os.path.join(submission_dir, 'lab' + os.path.basename(folder).replace('-', '_') + '.cu')
    return path if os.path.isfile(path) else None


def count_submission(lab, submission_dir, build_dir, trace=None):
    """The counting mode's launch records of the submission's lab file on the explanations' input
    (and the traced warp, when `trace` names a function). Raises programs.BuildError."""
    given = reference_table.INPUT
    found = count_kernels.count(lab, submission_dir, n=given['n'], input_kind=given['input'],
                                seed=given['seed'], gpu=None, build_dir=build_dir, timeout=TIMEOUT_S,
                                **({'trace': trace} if trace else {}))
    return found if trace else (found, None)


def findings(version, student, reference):
    """The watched counters of one version that are worse than the reference's by more than the
    declaration calls normal, in the declaration's order."""
    found = []
    for watch in version['watch']:
        name = watch['counter']
        if name not in student or name not in reference:
            continue
        if counters.differs(name, student[name], reference[name], watch['slack'], watch['floor']):
            found.append({'counter': name, 'student': student[name], 'reference': reference[name],
                          'question': watch['question'], 'fix': watch['fix'],
                          'line': f"{version['version']}: {counters.show(name, student[name])} "
                                  f"{counters.COUNTERS[name][0]}, the reference {counters.show(name, reference[name])}"
                                  f" — see {watch['question']} ({watch['fix']})"})
    return found


def unavailable(reason):
    return {'schema': SCHEMA, 'status': 'unavailable', 'reason': reason}


def not_counted(reason):
    """Left out on purpose (the score table says nothing of it)."""
    return {'schema': SCHEMA, 'status': 'not-counted', 'reason': reason}


def section(lab, student, declared, references, accesses=None, reference_accesses=None, lab_file=None):
    """The "counters" section of a lab's results: per declared function, the student's and the
    reference's counters and the findings. With the student's and the reference's accesses
    ({function: [access]}, explain/sites.py), each finding names the access that causes it
    (explain/site_findings.py) and the version keeps the student's accesses ("sites")."""
    versions = []
    for version in declared['versions']:
        mine, theirs = student.get(version['function']), references.get(version['function'])
        if mine is None or theirs is None:
            continue
        found = findings(version, mine, theirs)
        entry = {'function': version['function'], 'version': version['version'], 'student': mine,
                 'reference': theirs}
        if accesses is not None and reference_accesses and version['function'] in reference_accesses:
            own = accesses.get(version['function'], [])
            known = site_findings.roles(own, reference_accesses[version['function']], declared.get('arrays', {}))
            found = site_findings.version_findings(
                version, version.get('sites', []) + declared.get('sites', []), known, own,
                reference_accesses[version['function']], found, lab_file)
            entry['sites'] = own
        versions.append(dict(entry, findings=found))
    return {'schema': SCHEMA, 'status': 'counted', 'source': 'cpu-model', 'lab': lab,
            'input': reference_table.INPUT, 'versions': versions}


def prepare(lab):
    """(the lab's declaration, the reference table), or (None, the "unavailable" section saying
    why not) when the lab declares no counters or the table lacks it."""
    try:
        declared = declarations.load(lab)
    except declarations.DeclarationError as error:
        return None, unavailable(str(error))
    table = reference_table.load()
    if not declared or not table or lab not in table['labs']:
        return None, unavailable(f'lab {lab} has no declared counters')
    return (declared, table), None


def from_launches(lab, launches, prepared, source):
    """The lab's "counters" section from the counting mode's launch records of the submission's
    lab file `source` (whose lines its sites name; `prepared`: prepare's first value)."""
    if any(launch['faulted'] for launch in launches):
        return unavailable('a kernel faulted in the counting mode: fix the failing tests first')
    declared, table = prepared
    return section(lab, counters.per_function(launches), declared, table['labs'][lab],
                   sites.accesses(launches, root=programs.ROOT), table.get('sites', {}).get(lab),
                   sites.shown(source, programs.ROOT))


def build_failure(error, build_dir):
    """The "unavailable" section of a count program that did not build (programs.BuildError)."""
    lines = str(error).strip().splitlines() or ['']
    first = next((line for line in lines if 'error' in line.lower()), lines[0])
    if lines[0].startswith(('building the CPU backend', f'{build_dir} is not a configured')):
        # The machine's, not the file's: no lab will count (a compiler without -fsanitize=thread).
        return dict(unavailable(f'the counting mode cannot be built here ({first.strip()[:200]})'),
                    machine=True)
    return unavailable(f'the counting mode could not count this file ({first.strip()[:200]})')


TIMED_OUT = f'the counting run passed {TIMEOUT_S} s: fix the tests that ran out of time first'


def explain_lab(lab, submission_dir, build_dir):
    """The lab's "counters" section; status "unavailable" with the reason in one line when the lab
    declares no counters, the table lacks it, or the counting build or run fails."""
    prepared, problem = prepare(lab)
    if problem:
        return problem
    source = lab_file(lab, submission_dir)
    if not source:
        return unavailable(f'no lab {lab} file in {submission_dir}')
    try:
        launches, _ = count_submission(lab, os.path.dirname(source), build_dir)
    except programs.BuildError as error:
        return build_failure(error, build_dir)
    except subprocess.TimeoutExpired:
        return unavailable(TIMED_OUT)
    result = from_launches(lab, launches, prepared, source)
    if result['status'] == 'counted':
        result['_launches'] = launches  # for the GPU's counters (in_grading.py); not written
    return result


def missed_functions(document, declared):
    """The declared functions whose speed test missed a tier or failed in this run."""
    missed = set()
    for test in document.get('tests', []):
        if test.get('kind') != 'speed' or test.get('status') == 'skipped':
            continue
        if test.get('status') == 'passed' and all(t.get('met', True) for t in test.get('tiers', [])
                                                  if t.get('name') != 'stretch'):
            continue
        for version in (declared or {}).get('versions', []):
            if test['name'] in version.get('speed_tests', []):
                missed.add(version['function'])
    return missed


def lines(document):
    """What the score table prints for a lab: one or two lines per version whose counters differ
    from the reference's, and one per version that missed a speed tier with nothing to show."""
    found = document.get('counters')
    if not found:
        return []
    if found.get('status') == 'not-counted':
        return []
    if found.get('status') != 'counted':
        return [f"counters not counted: {found.get('reason', '?')}"]
    try:
        declared = declarations.load(document['lab'].replace('lab', ''))
    except declarations.DeclarationError:
        declared = None
    missed = missed_functions(document, declared)
    printed = []
    for version in found['versions']:
        said = [f for f in version['findings'] if f.get('line')][:LINES_PER_VERSION]
        shown = [f['line'] for f in said]
        hardware = (found.get('hardware') or {}).get('functions', {}).get(version['function'])
        first = next((i for i, f in enumerate(said) if f.get('counter') in (hardware or {})), None)
        if first is not None:
            name = said[first]['counter']
            theirs = ((found['hardware'].get('reference') or {}).get(version['function']) or {}).get(name)
            # A site's line gives the kernel's whole figure from the GPU, saying so.
            what = '' if said[first].get('difference', 'kernel') == 'kernel' else f"the kernel's {counters.COUNTERS[name][0]}"
            shown[first] += (f" (on this GPU{', ' + what if what else ''}: {counters.show(name, hardware[name])}, "
                             f"the reference {counters.show(name, theirs)})" if theirs is not None else
                             f" (the GPU counted {what + ' ' if what else ''}{counters.show(name, hardware[name])})")
        if not shown and version['function'] in missed:
            shown = [f"{version['version']}: missed its speed tier, yet its counters are the reference's "
                     f"(CPU model): grade.py --explain {document['lab']} shows them all"]
        printed += shown
    if not printed:
        printed = [f"{len(found['versions'])} versions counted: no watched counter is worse than the "
                   f"reference's by more than the lab allows"]
    gpu = found.get('hardware') or {}
    if gpu.get('status') not in (None, 'measured'):
        printed.append(gpu.get('message', 'GPU counters not read'))
    return printed
