"""Site-attributed findings: which access of the student's kernel makes a watched counter differ
from the reference's, that access beside the reference's matching one, and the question about
that access. How accesses are matched and which question is named: grader/explain/README.md,
"Sites".

    roles(...)              the role of each array: the lab's words, or a renamed array's match
    version_findings(...)   a version's findings: its plain updates, then its counters' findings,
                            each with the line the score table prints
"""

# counter: (the access kinds it counts, the measure summed over them, a ratio per request?)
ATTRIBUTION = {
    'global_load_requests': (('global_load',), 'requests', False),
    'global_load_sectors_per_request': (('global_load',), 'sectors', True),
    'global_store_requests': (('global_store',), 'requests', False),
    'global_store_sectors_per_request': (('global_store',), 'sectors', True),
    'global_atomic_requests': (('global_atomic',), 'requests', False),
    'global_atomic_share': (('global_atomic',), 'lanes', False),
    'global_atomic_lanes_per_address': (('global_atomic',), 'lanes', False),
    'shared_atomic_requests': (('shared_atomic',), 'requests', False),
    'shared_atomic_lanes_per_address': (('shared_atomic',), 'lanes', False),
    'shared_requests': (('shared_load', 'shared_store'), 'requests', False),
    'shared_wavefronts': (('shared_load', 'shared_store'), 'wavefronts', False),
    'shared_bank_conflicts_per_request': (('shared_load', 'shared_store'), 'bank_conflicts', True),
}
KIND_WORDS = {'global_load': ('a global load', 'global loads'), 'global_store': ('a global store', 'global stores'),
              'global_atomic': ('a global atomic', 'global atomics'),
              'shared_load': ('a shared load', 'shared loads'), 'shared_store': ('a shared store', 'shared stores'),
              'shared_atomic': ('a shared atomic', 'shared atomics'), 'shuffle': ('a warp shuffle', 'warp shuffles')}
OTHER_SPACE = {'global': 'shared', 'shared': 'global'}


def space(access):
    """'global', 'shared', or 'warp' for a shuffle (no memory)."""
    return access['kind'].split('_')[0] if '_' in access['kind'] else 'warp'


def op(access):
    return access['kind'].split('_')[1] if '_' in access['kind'] else access['kind']


def roles(student, reference, arrays):
    """{array name: role} for both sides' arrays: the lab's words for a name it declares
    ("the samples"), else the name itself in backquotes; a student's name that neither the lab
    nor the reference knows takes the role of the one reference array its kinds of access could
    be (a renamed array: `s_hist` for `s_bins`)."""
    known = {name: words for name, words in arrays.items()}
    for access in reference:
        if access['array'] and access['array'] not in known:
            known[access['array']] = f"`{access['array']}`"
    unknown = {}
    for access in student:
        if access['array'] and access['array'] not in known:
            unknown.setdefault(access['array'], set()).add(access['kind'])
    for name, kinds in unknown.items():
        mine = {(a['kind'], known.get(a['array'])) for a in student if a['array'] in known}
        fits = {known[r['array']] for r in reference if r['array'] and r['kind'] in kinds}
        fits = [role for role in fits if all(any(known.get(r['array']) == role and r['kind'] == kind
                                                 for r in reference) for kind in kinds)
                and not any((kind, role) in mine for kind in kinds)]
        known[name] = fits[0] if len(fits) == 1 else f'`{name}`'
    return known


def role_of(access, known):
    return known.get(access['array']) if access['array'] else None


def _sum(accesses, measure):
    return sum(a[measure] for a in accesses)


def pick(counter, student, reference, known):
    """(role, the student's accesses of that role and kind) that make `counter` worse, or None:
    the role and kind whose accesses add the most to the counter beyond the reference's of the
    same role and kind (for a ratio, beyond the reference's ratio for them, or for the kind)."""
    kinds, measure, ratio = ATTRIBUTION[counter]
    mine = [a for a in student if a['kind'] in kinds]
    theirs = [r for r in reference if r['kind'] in kinds]
    groups = {}
    for access in mine:
        role = role_of(access, known)
        groups.setdefault((role, access['kind'] if ratio or role is None else None), []).append(access)
    best, best_excess = None, 0
    for key, group in groups.items():
        role, kinds_here = key[0], {a['kind'] for a in group}
        same = [r for r in theirs if role is not None and role_of(r, known) == role and r['kind'] in kinds_here]
        theirs_of_kind = [r for r in theirs if r['kind'] in kinds_here]
        if ratio:
            base = same or theirs_of_kind or theirs
            per_request = _sum(base, measure) / _sum(base, 'requests') if _sum(base, 'requests') else 0
            excess = _sum(group, measure) - per_request * _sum(group, 'requests')
        else:
            excess = _sum(group, measure) - _sum(same, measure)
        if excess > best_excess:
            best, best_excess = key, excess
    return (best[0], groups[best]) if best is not None else None


def plain_updates(student, reference, known):
    """[(role, [the update's accesses])]: a plain read-modify-write of an element (`x[e]++`) where
    the reference updates the same role (or, for a role it lacks, that memory) with atomics and
    never plainly."""
    found = {}
    for access in student:
        if op(access) != 'store' or not access['update']:
            continue
        role = role_of(access, known)
        same = [r for r in reference if role_of(r, known) == role and space(r) == space(access)]
        atomics = [r for r in (same or reference) if r['kind'] == f'{space(access)}_atomic']
        if atomics and not any(op(r) == 'store' and r['update'] for r in same):
            found.setdefault(role, []).extend(
                a for a in student if a['line'] == access['line'] and a['expression'] == access['expression']
                and space(a) == space(access) and op(a) in ('load', 'store') and a not in found.get(role, []))
    return list(found.items())


def where(group, lab_file):
    """'line 33, `d_samples[i]`' for the student's accesses of one role (the busiest named)."""
    main = max(group, key=lambda a: a['requests'])
    lines = sorted({a['line'] for a in group} - {main['line']})
    text = f"line {main['line']}" if main['file'] == lab_file else f"{main['file']} line {main['line']}"
    if main['note']:
        return f"{text} ({main['note']})"
    if lines:
        text += f" (and {', '.join(map(str, lines[:3]))}{', …' if len(lines) > 3 else ''})"
    statement = main['statement'] if len(main['statement']) <= 60 else main['statement'][:57].rsplit(' ', 1)[0] + ' …'
    return text + (f", `{main['expression']}`" if main['expression'] else f" (`{statement}`)")


def count(n, what):
    return f"{n} {what}{'' if n == 1 else 's'}"


def figure(group, measure, ratio):
    """The accesses' figure as the counter reads it: per request, or a total."""
    requests = _sum(group, 'requests')
    if measure == 'sectors':
        return f"{_sum(group, 'sectors') / requests if requests else 0:.2f} sectors per request"
    if measure == 'bank_conflicts':
        return f"{_sum(group, 'bank_conflicts') / requests if requests else 0:.2f} bank conflicts per request"
    if measure == 'wavefronts':
        return count(_sum(group, 'wavefronts'), 'wavefront')
    return count(requests, 'request')


def kind_words(group):
    kinds = sorted({a['kind'] for a in group})
    if len(kinds) == 2 and {op(a) for a in group} == {'load', 'store'}:
        return f"a {space(group[0])} load and store" if any(a['update'] for a in group) and \
            len({a['line'] for a in group}) == 1 else f"{space(group[0])} loads and stores"
    singular, plural = KIND_WORDS[kinds[0]]
    return singular if len(group) == 1 and len(kinds) == 1 else (
        plural if len(kinds) == 1 else ' and '.join(KIND_WORDS[k][1] for k in kinds))


def busiest(accesses):
    return max(accesses, key=lambda a: a['requests']) if accesses else None


def named(access):
    return f"`{access['expression']}`" if access and access['expression'] else f"line {access['line']}"


def declared_entry(entries, difference, group):
    """The first declared question for this difference in this memory, and, where the entry names
    one, in this function (the one whose body holds the busiest access's line)."""
    main = max(group, key=lambda a: a['requests'])
    for entry in entries:
        if entry['difference'] == difference and entry.get('space', space(main)) == space(main) \
                and entry.get('function', main.get('function')) == main.get('function'):
            return entry
    return None


def reference_words(kinds, reference, known, exclude_role=None, limit=2):
    """"`warp_totals[warp - 1]`, 1984 requests" for the reference's accesses of these kinds."""
    theirs = sorted((r for r in reference if r['kind'] in kinds and role_of(r, known) != exclude_role),
                    key=lambda r: -r['requests'])
    return '; '.join(f"{named(r)}, {count(r['requests'], 'request')}" for r in theirs[:limit])


def _missing_elsewhere(group, student, reference, known):
    """"; the reference's shared atomics, which yours lack: the private bins (`s_bins[...]`, 2048
    requests)" when the reference makes this kind of access in the other memory far more."""
    other = f"{OTHER_SPACE[space(group[0])]}_{op(group[0])}"
    theirs, mine = [r for r in reference if r['kind'] == other], [a for a in student if a['kind'] == other]
    if not theirs or _sum(mine, 'requests') * 2 > _sum(theirs, 'requests'):
        return ''
    top = busiest(theirs)
    what = role_of(top, known) or named(top)
    return (f"; the reference's {KIND_WORDS[other][1]}, which yours lack: {what} ({named(top)}, "
            f"{count(_sum(theirs, 'requests'), 'request')})")


def _shuffles_missing(student, reference):
    """"; the reference's warps exchange values with shuffles, which yours lack (...)" where the
    reference makes warp shuffles and the student's kernel less than half as many."""
    theirs = [r for r in reference if r['kind'] == 'shuffle']
    if not theirs or _sum([a for a in student if a['kind'] == 'shuffle'], 'requests') * 2 >= _sum(theirs, 'requests'):
        return ''
    return (f"; its warps exchange values with shuffles, which yours lack ({named(busiest(theirs))}, "
            f"{count(_sum(theirs, 'requests'), 'request')})")


def _compare(group, role, reference, known, measure, ratio, version):
    """(difference, the words on the reference's side) for the student's accesses of one role."""
    kinds = {a['kind'] for a in group}
    same = [r for r in reference if role is not None and role_of(r, known) == role and r['kind'] in kinds]
    if same or role is None:
        base = same or [r for r in reference if r['kind'] in kinds]
        if not base:
            return 'other-array', f"the reference makes no {kind_words(group).split(' ', 1)[-1]} in {version}"
        of = f" of {role}" if role else ''
        return 'same', (f"the reference's {KIND_WORDS[base[0]['kind']][1]}{of} ({named(busiest(base))}): "
                        f"{figure(base, measure, ratio)}")
    moved = [r for r in reference if role_of(r, known) == role and op(r) == op(group[0])
             and space(r) != space(group[0])]
    if moved:
        return 'other-space', (f"the reference makes these {op(group[0])}s of {role} in {space(moved[0])} "
                               f"memory ({named(busiest(moved))}, {count(_sum(moved, 'requests'), 'request')})")
    touched = [r for r in reference if role_of(r, known) == role]
    others = reference_words(kinds, reference, known, role)
    theirs = kind_words(group).split(' ', 1)[1] if len(group) == 1 else kind_words(group)
    theirs = theirs if theirs.endswith('s') else theirs + 's'
    if touched:
        done = ', '.join(sorted({KIND_WORDS[r['kind']][1] for r in touched}))
        return 'other-access', f"the reference makes only {done} of {role}" + (
            f"; its {theirs}: {others}" if others else '')
    return 'other-array', (f"the reference makes no {space(group[0])}-memory access to {role}"
                           + (f"; its {theirs}: {others}" if others else ''))


def version_findings(version, entries, known, student, reference, counter_findings, lab_file):
    """The version's findings, in order: its plain updates, then its watched counters' findings,
    each given the access that causes it (or left to the kernel where no access does: barriers,
    launches, loads in flight). `entries`: the declared questions for differences the counters
    do not teach (plain-update, other-array, other-access). Two findings of one role are one."""
    found, roles_said = [], set()
    name = version['version']
    flagged = {f['counter'] for f in counter_findings}
    for role, group in plain_updates(student, reference, known):
        kind = f"{space(group[0])}_load"
        measure, ratio = ('sectors', True) if 'global_load_sectors_per_request' in flagged and kind == 'global_load' \
            else ('requests', False)
        loads = [a for a in group if op(a) == 'load'] or group
        theirs = [r for r in reference if r['kind'] == f'{space(group[0])}_atomic'
                  and (role_of(r, known) == role or not any(role_of(x, known) == role for x in reference))]
        other_loads = [r for r in reference if r['kind'] == kind and role_of(r, known) != role]
        said = (f"the reference updates {role or 'it'} with atomics ({named(busiest(theirs))}, "
                f"{count(_sum(theirs, 'requests'), 'request')})")
        if other_loads and kind == 'global_load':
            said = (f"the reference's only {KIND_WORDS[kind][1]} are of "
                    f"{' and '.join(sorted({role_of(r, known) or named(r) for r in other_loads}))} "
                    f"({named(busiest(other_loads))}, {figure(other_loads, measure, ratio)}); "
                    + said.replace('the reference ', 'it '))
        entry = declared_entry(entries, 'plain-update', group)
        found.append(_finding(name, None, 'plain-update', group, loads, said, entry, lab_file, measure, ratio))
        roles_said.add(role)
    for finding in counter_findings:
        if finding['counter'] not in ATTRIBUTION:
            found.append(dict(finding, difference='kernel'))
            continue
        kinds, measure, ratio = ATTRIBUTION[finding['counter']]
        chosen = pick(finding['counter'], student, reference, known)
        if finding['counter'] == 'global_atomic_share':
            missing = [r for r in reference if r['kind'] == 'shared_atomic'
                       and _sum([a for a in student if a['kind'] == 'shared_atomic'
                                 and role_of(a, known) == role_of(r, known)], 'lanes') * 2 < r['lanes']]
            if any(role_of(r, known) in roles_said for r in missing):
                found.append(dict(finding, difference='plain-update', explained_by=True, line=None))
                continue
        if chosen is None:
            found.append(dict(finding, difference='kernel'))
            continue
        role, group = chosen
        if all(a['note'] for a in group):  # no line of the kernel kept: the counter's own line
            found.append(dict(finding, difference='kernel'))
            continue
        if role in roles_said:
            found.append(dict(finding, difference='plain-update', explained_by=True, line=None))
            continue
        difference, said = _compare(group, role, reference, known, measure, ratio, name)
        said += _missing_elsewhere(group, student, reference, known) if difference == 'same' else ''
        said += _shuffles_missing(student, reference) if space(group[0]) == 'shared' else ''
        entry = declared_entry(entries, difference, group) if difference in ('other-array', 'other-access') \
            else {'question': finding['question'], 'fix': finding['fix'], 'watched': True}
        found.append(dict(finding, **_finding(name, finding['counter'], difference, group, group, said, entry,
                                              lab_file, measure, ratio)))
        roles_said.add(role)
    order = {'plain-update': 0, 'kernel': 2}
    return sorted(found, key=lambda f: order.get(f['difference'], 1))


def _finding(version, counter, difference, group, shown, said, entry, lab_file, measure, ratio):
    text = f"{version}: {where(group, lab_file)} ({kind_words(group)}, {figure(shown, measure, ratio)}): {said}"
    if entry and entry.get('watched'):
        text += f" — see {entry['question']} ({entry['fix']})"
    elif entry:
        text += f" — {entry['fix']} ({entry['question']})"
    return {'counter': counter, 'difference': difference, 'question': entry['question'] if entry else None,
            'fix': entry['fix'] if entry else None, 'line': text,
            'site': [{k: a[k] for k in ('file', 'line', 'kind', 'expression')} for a in group]}
