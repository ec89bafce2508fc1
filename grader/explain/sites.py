"""A graded function's memory accesses, from the counting mode's per-site records: each site
(one load, store or atomic of the host compiler's code, with its source line) named by the
expression the source line holds, and the sites of one line, kind and expression summed into
one *access*. Site-attributed findings (explain/site_findings.py) compare a student's accesses
with the reference's. How an expression is recovered: grader/explain/README.md, "Sites".

An access: {'file', 'line', 'kind' ('global_load', ..., 'shared_atomic', 'shuffle': a warp
shuffle, no memory access, named by its `__shfl_*_sync(...)` call), 'expression' (the
subscript as written, or None), 'array' (its base name, or None), 'update' (True: the target of
a plain read-modify-write on that line, `x[e]++`, `x[e] += v`, `x[e] = x[e] + v`), 'statement'
(the line's code), 'note' (why no finer line), and the summed figures: requests, lanes, sectors,
wavefronts, bank_conflicts, distinct_addresses}."""
import os
import re

FIGURES = ('requests', 'lanes', 'sectors', 'wavefronts', 'bank_conflicts', 'distinct_addresses')
KINDS = ('global_load', 'global_store', 'global_atomic', 'shared_load', 'shared_store', 'shared_atomic',
         'shuffle')
SHUFFLE_CALL = re.compile(r'\b__shfl\w*\s*\(')
NAME = re.compile(r'[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*')
ATOMIC_CALL = re.compile(r'\batomic\w*\s*\(')
SHARED_DECLARATION = re.compile(r'__shared__[^;]*?\b([A-Za-z_]\w*)\s*(?:\[|;|=)')
POINTER_FROM = re.compile(r'\*\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\b')
RMW_AFTER = re.compile(r'\s*(\+\+|--|(?:\+|-|\*|/|%|&|\||\^|<<|>>)=)')
ASSIGN_AFTER = re.compile(r'\s*=(?!=)')
LOCATION = re.compile(r'^(.*):(\d+)(?: \((.*)\))?$')


def _closing(text, start):
    """The index after the bracket that closes text[start] ('[' or '(')."""
    pairs = {'[': ']', '(': ')'}
    depth, opening = 0, text[start]
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == pairs[opening]:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def subscripts(code):
    """[(start, end, text, base)] of every `name[...]` (chained: `a[i][j]`) in a line of code."""
    found = []
    for match in NAME.finditer(code):
        end = match.end()
        at = end
        while at < len(code) and code[at] == ' ':
            at += 1
        if at >= len(code) or code[at] != '[' or (match.start() > 0 and code[match.start() - 1] in '.>'):
            continue
        while at < len(code) and code[at] == '[':
            end = at = _closing(code, at)
        found.append((match.start(), end, code[match.start():end], re.sub(r'\s+', '', match.group(0))))
    return found


def _atomic_targets(code):
    """[(start, end, text, base)] of each atomic call's first argument: `&x[e]` or a pointer `p`."""
    targets = []
    for call in ATOMIC_CALL.finditer(code):
        close = _closing(code, call.end() - 1)
        argument, depth, i = '', 0, call.end()
        while i < close - 1:
            ch = code[i]
            depth += ch in '([' and 1 or (ch in ')]' and -1 or 0)
            if ch == ',' and depth == 0:
                break
            argument += ch
            i += 1
        start = call.end() + len(argument) - len(argument.lstrip())
        text = argument.strip()
        bare = text[1:].strip() if text.startswith('&') else text
        base = NAME.match(bare)
        if base:
            targets.append((start, start + len(text), bare, re.sub(r'\s+', '', base.group(0))))
    return targets


def candidates(code):
    """{'load': [...], 'store': [...], 'atomic': [...]} of one line: (start, end, text, base,
    update) in the line's order, each a subscript the line reads, writes or updates atomically.
    A read-modify-write's target (`x[e]++`, `x[e] += v`, `x[e] = x[e] + v`) is both read and
    written, with update True."""
    atomics = _atomic_targets(code)
    loads, stores = [], []
    found = subscripts(code)
    for start, end, text, base in found:
        if any(text == a[2] and a[0] <= start < a[1] for a in atomics):
            continue  # the atomic's own target
        if RMW_AFTER.match(code, end) or code[:start].rstrip().endswith(('++', '--')):
            loads.append((start, end, text, base, True))
            stores.append((start, end, text, base, True))
            continue
        assigned = ASSIGN_AFTER.match(code, end)
        if assigned:
            again = any(t == text for s, _, t, _ in found if s >= assigned.end())
            stores.append((start, end, text, base, again))
        else:
            loads.append((start, end, text, base, False))
    updated = {c[2] for c in stores if c[4]}
    loads = [c[:4] + (c[4] or c[2] in updated,) for c in loads]
    return {'load': loads, 'store': stores, 'atomic': [a + (False,) for a in atomics]}


def shared_names(text):
    """The names a source file declares __shared__, and pointers set from them (`p = s_bins + l`)."""
    names = set(SHARED_DECLARATION.findall(text))
    for pointer, source in POINTER_FROM.findall(text):
        if source in names:
            names.add(pointer)
    return names


class Sources:
    """Source files read once: their lines and shared names."""

    def __init__(self):
        self.files = {}

    def lines(self, path):
        if path not in self.files:
            try:
                with open(path, encoding='utf-8', errors='replace') as f:
                    text = f.read()
            except OSError:
                text = ''
            self.files[path] = (text.split('\n'), shared_names(text))
        return self.files[path]


FUNCTION_NAME = re.compile(r'([A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(')


def enclosing_function(text, line):
    """The name of the function whose body holds line `line` (1-based) of a file's lines `text`:
    the nearest line above it that starts at column 0 and opens a parameter list, when the braces
    from there on are still open at `line`; None elsewhere."""
    for at in range(min(line, len(text)) - 1, -1, -1):
        head = text[at]
        if not head[:1].strip() or head.startswith(('//', '#', '}', '{', 'namespace', 'template', 'constexpr')):
            continue
        joined = ' '.join(text[at:at + 2])
        bounds = joined.find('__launch_bounds__')
        if bounds >= 0 and '(' in joined[bounds:]:
            opening = joined.index('(', bounds)
            joined = joined[:bounds] + joined[_closing(joined, opening):]
        names = FUNCTION_NAME.findall(joined)
        if not names or '(' not in head:
            return None
        depth = opened = 0
        for code in text[at:line - 1]:
            code = _strip_comment(code)
            depth += code.count('{') - code.count('}')
            opened = opened or '{' in code
            if opened and depth <= 0:
                return None
        return names[0]
    return None


def _strip_comment(code):
    return code.split('//')[0].rstrip()


def _by_order(line_sites, found, shared, space):
    """Each site's candidate: the one candidate there is (after preferring the site's memory
    space), else by order (inner subscripts first, then left to right, against the sites' code
    addresses) when there are as many as sites; else None: the line does not say which."""
    preferred = [c for c in found if (c[3] in shared or c[3].startswith('s_')) == (space == 'shared')]
    if len({c[2] for c in found}) > 1 and preferred:
        found = preferred
    if len({c[2] for c in found}) == 1:
        return [found[0]] * len(line_sites)
    ordered = sorted(line_sites, key=lambda s: int(str(s.get('pc', '0')), 16))
    if found and len(found) == len(ordered):
        by_order = sorted(found, key=lambda c: (c[1], c[0]))
        naming = {id(site): c for site, c in zip(ordered, by_order)}
        return [naming[id(site)] for site in line_sites]
    return [None] * len(line_sites)


VECTOR_MEMBER = re.compile(r'\b([A-Za-z_]\w*)\.([xyzw])\b')
BARE_NAME = re.compile(r'\b([A-Za-z_]\w*)\b')


def _bare_candidates(code, shared, space):
    """What a line's accesses may be where no subscript fits: in shared memory, its __shared__
    variables used whole (`tile = s_tile;`); in global memory, the members of vectors
    (`pixels.x`: a uint4 passed by reference is loaded where a member is used)."""
    loads, stores = [], []
    if space == 'shared':
        for match in BARE_NAME.finditer(code):
            if match.group(1) in shared and not code[match.end():].lstrip().startswith('['):
                entry = (match.start(), match.end(), match.group(1), match.group(1), False)
                (stores if ASSIGN_AFTER.match(code, match.end()) else loads).append(entry)
    else:
        loads = [(m.start(), m.end(), m.group(0), m.group(1), False) for m in VECTOR_MEMBER.finditer(code)]
    return {'load': loads, 'store': stores, 'atomic': []}


def _shape(site):
    return tuple(site.get(f, 0) for f in ('requests', 'lanes', 'sectors', 'wavefronts'))


def name_line(by_op, code, shared):
    """{id(site): candidate or None} for the sites of one source line and memory space, grouped
    {'load': [...], 'store': [...], 'atomic': [...]}. An updated element's read is the load whose
    requests, lanes and sectors (or wavefronts) are those of the update's store: the same
    addresses, read then written."""
    found = candidates(code)
    space = next(iter(s for sites in by_op.values() for s in sites))['kind'].split('_')[0]
    bare = _bare_candidates(code, shared, space)
    found = {op: found[op] or bare[op] for op in found}
    named = {}
    for op in ('store', 'atomic'):
        sites = by_op.get(op, [])
        if sites:
            named.update(zip(map(id, sites), _by_order(sites, found[op], shared, sites[0]['kind'].split('_')[0])))
    loads = by_op.get('load', [])
    if not loads:
        return named
    updates = {_shape(s): named[id(s)] for s in by_op.get('store', []) if named.get(id(s)) and named[id(s)][4]}
    updates = {shape: c for shape, c in updates.items() if sum(_shape(x) == shape for x in loads) == 1}
    for site in loads:
        if _shape(site) in updates:
            named[id(site)] = updates[_shape(site)]
    rest_sites = [s for s in loads if _shape(s) not in updates]
    targets = {named[id(s)][2] for s in by_op.get('store', []) if named.get(id(s)) and named[id(s)][4]}
    rest = [c for c in found['load'] if c[2] not in targets] or found['load']
    if rest_sites:
        named.update(zip(map(id, rest_sites), _by_order(rest_sites, rest, shared, space)))
    return named


def shuffle_calls(by_op, code):
    """A line's warp shuffles (the counting mode's 'shuffle' sites, no memory access): each named
    by the line's first __shfl_*_sync call, as written."""
    call = SHUFFLE_CALL.search(code)
    if not call:
        return {}
    text = code[call.start():_closing(code, call.end() - 1)]
    return {id(site): (call.start(), call.start() + len(text), text, None, False)
            for sites in by_op.values() for site in sites}


def accesses(launches, sources=None, root=None):
    """{function (the launch's label): [access]} of the counting mode's launch records."""
    sources = sources or Sources()
    per_function = {}
    for launch in launches:
        lines_of = {}
        for site in launch.get('sites', []):
            where = LOCATION.match(site['location'])
            path, line, note = (where.group(1), int(where.group(2)), where.group(3)) if where else \
                (site['location'], 0, None)
            space, op = site['kind'].split('_') if '_' in site['kind'] else ('warp', site['kind'])
            lines_of.setdefault((path, line, note, space), {}).setdefault(op, []).append(site)
        summed = per_function.setdefault(launch['label'], {})
        for (path, line, note, space), by_op in lines_of.items():
            text, shared = sources.lines(path)
            code = _strip_comment(text[line - 1]) if 0 < line <= len(text) else ''
            named = {} if note else shuffle_calls(by_op, code) if space == 'warp' else name_line(by_op, code, shared)
            for site in (s for sites in by_op.values() for s in sites):
                candidate = named.get(id(site))
                key = (path, line, site['kind'], candidate[2] if candidate else None)
                access = summed.setdefault(key, {
                    'file': shown(path, root), 'line': line, 'kind': site['kind'],
                    'expression': candidate[2] if candidate else None,
                    'array': candidate[3] if candidate else None,
                    'update': bool(candidate and candidate[4]), 'statement': code.strip(), 'note': note,
                    'function': None if note else enclosing_function(text, line),
                    **{f: 0 for f in FIGURES}})
                for figure in FIGURES:
                    access[figure] += site.get(figure, 0)
    return {label: sorted(found.values(), key=lambda a: (a['file'], a['line'], KINDS.index(a['kind'])))
            for label, found in per_function.items()}


def shown(path, root):
    """A file as the lines name it: relative to the project when under it, else its base name."""
    if root and os.path.abspath(path).startswith(os.path.abspath(root) + os.sep):
        return os.path.relpath(path, root)
    return os.path.basename(path)
