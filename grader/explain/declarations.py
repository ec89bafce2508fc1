"""A lab's counters.json (labs/NN-*/counters.json): for each graded function, the version's name,
the counters its lesson is about, how far from the reference's is still normal, and the handout
question that teaches the fix; the words for the lab's arrays, and the questions about accesses
the reference does not make (a plain update, another array). Format in grader/explain/README.md."""
import json
import os

from explain import counters
from counting import programs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


# The differences of an access from the reference's that a watched counter's question does not
# teach, so a lab names the question about them (explain/site_findings.py; README.md, "Sites").
DIFFERENCES = ('plain-update', 'other-array', 'other-access')


class DeclarationError(Exception):
    pass


def lab_folder(lab):
    """'04' -> 'labs/04-thread-per-bin' (absolute), from labs/labs.txt; None when not listed."""
    try:
        return os.path.join(ROOT, 'labs', programs.lab_folder(lab)[0])
    except programs.BuildError:
        return None


def load(lab):
    """The lab's declaration, checked, or None when the lab declares none."""
    folder = lab_folder(lab)
    path = os.path.join(folder, 'counters.json') if folder else None
    if not path or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding='utf-8') as f:
            declared = json.load(f)
    except (OSError, json.JSONDecodeError) as error:
        raise DeclarationError(f'{path}: {error}') from error
    if not isinstance(declared.get('arrays', {}), dict):
        raise DeclarationError(f'{path}: "arrays" maps array names to words')
    for entry in declared.get('sites', []) + [e for v in declared.get('versions', []) for e in v.get('sites', [])]:
        if entry.get('difference') not in DIFFERENCES:
            raise DeclarationError(f'{path}: a site entry\'s "difference" is one of {", ".join(DIFFERENCES)}')
        if entry.get('space', 'global') not in ('global', 'shared'):
            raise DeclarationError(f'{path}: a site entry\'s "space" is global or shared')
        for key in ('question', 'fix'):
            if not entry.get(key):
                raise DeclarationError(f'{path}: a site entry without "{key}"')
    for version in declared.get('versions', []):
        for key in ('function', 'version', 'watch'):
            if key not in version:
                raise DeclarationError(f'{path}: a version without "{key}"')
        for watch in version['watch']:
            if watch.get('counter') not in counters.COUNTERS:
                raise DeclarationError(f'{path}: {version["function"]}: unknown counter {watch.get("counter")!r} '
                                       f'(grader/explain/counters.py names them)')
            for key in ('slack', 'floor', 'question', 'fix'):
                if key not in watch:
                    raise DeclarationError(f'{path}: {version["function"]}: {watch["counter"]} without "{key}"')
    return declared


def version_of(declared, function):
    """The declaration's entry for `function`, or None."""
    for version in (declared or {}).get('versions', []):
        if version['function'] == function:
            return version
    return None
