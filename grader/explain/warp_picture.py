#!/usr/bin/env python3
"""One warp's memory accesses as a picture, GPU-Puzzles style: a row per warp-level access, the
32 lanes on the left joined by lines to what they touch on the right: for shared memory the 32
banks (bank = (byte offset / 4) % 32; lanes on one bank at different words drawn in red, "N-way
conflict"), for global memory the distinct 32-byte sectors (address // 32, numbered from the
first). The trace is the counting mode's (grader/cpu_backend/README.md, "Counting mode": the
JSON's 'trace', from counting.count_kernels.count(..., trace=...)); plain SVG, no plotting library.

  python3 grader/explain/warp_picture.py --lab 04 --trace histogram_v2_banks[:BLOCK:WARP]
      [--submission solutions|starter|DIR] [--known-wrong N] [--n 4096] [--out FILE.svg]

render(trace, title) -> the SVG text; write(trace, path, title) writes it."""
import argparse
import os
import sys
from xml.sax.saxutils import escape, quoteattr

# Run as a file, Python sees this folder only: run again with grader/, the import root, on
# PYTHONPATH (CONTRIBUTING.md, "Python imports").
GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

ROOT = os.path.dirname(GRADER)
BANKS, BANK_BYTES, SECTOR_BYTES, LANES = 32, 4, 32, 32
MOST_ROWS = 8

# Geometry (pixels): a row is a caption line, then 32 slots of PITCH.
PITCH, BOX_H, TOP, ROW_GAP = 13, 11, 28, 22
LANE_X, LANE_W, TARGET_X, TARGET_W, TEXT_X, WIDTH = 16, 112, 360, 96, 540, 1000
ROW_H = TOP + LANES * PITCH + ROW_GAP
HEADER = 74
OK, BAD, IDLE, INK, FAINT = '#3b6ea8', '#d2352b', '#c8c8c8', '#222222', '#777777'


def is_shared(access):
    return access['kind'].startswith('shared')


def active(access):
    """[(lane, value)] of the lanes that took part."""
    return [(lane, value) for lane, value in enumerate(access['lanes']) if value is not None]


def words_of(value, size, unit):
    """The units (banks' words, sectors) the bytes [value, value + size) touch."""
    return list(range(value // unit, (value + max(size, 1) - 1) // unit + 1))


def shared_cost(access):
    """As the counting mode's access_rules.cpp: {'wavefronts', 'conflicts', 'worst' (most distinct
    words on one bank in one phase), 'hot' ({(phase, bank): distinct words} of banks with more than
    one), 'phase_lanes'}. A broadcast (every lane in one word) is one wavefront."""
    lanes = active(access)
    size = access['bytes']
    if not lanes:
        return {'wavefronts': 0, 'conflicts': 0, 'worst': 0, 'hot': {}, 'phase_lanes': LANES}
    one_word = all(v // BANK_BYTES == lanes[0][1] // BANK_BYTES and v % BANK_BYTES + size <= BANK_BYTES for _, v in lanes)
    phase_lanes = 8 if size > 8 else 16 if size > 4 else 32
    wavefronts = conflicts = worst = 0
    hot = {}
    for phase in range(LANES // phase_lanes):
        words = {w for lane, v in lanes if lane // phase_lanes == phase for w in words_of(v, size, BANK_BYTES)}
        if not words:
            continue
        per_bank = {}
        for w in words:
            per_bank[w % BANKS] = per_bank.get(w % BANKS, 0) + 1
        most = max(per_bank.values())
        wavefronts += most
        conflicts += most - 1
        worst = max(worst, most)
        hot.update({(phase, bank): n for bank, n in per_bank.items() if n > 1})
    if one_word:
        return {'wavefronts': 1, 'conflicts': 0, 'worst': 1, 'hot': {}, 'phase_lanes': phase_lanes}
    return {'wavefronts': wavefronts, 'conflicts': conflicts, 'worst': worst, 'hot': hot, 'phase_lanes': phase_lanes}


def global_cost(access):
    """{'sectors': the distinct sectors touched, sorted, 'best': the fewest sectors that could carry
    the distinct bytes the lanes move}."""
    lanes = active(access)
    size = max(access['bytes'], 1)
    sectors = sorted({s for _, v in lanes for s in words_of(v, size, SECTOR_BYTES)})
    distinct_bytes = len({b for _, v in lanes for b in range(v, v + size)})
    return {'sectors': sectors, 'best': -(-distinct_bytes // SECTOR_BYTES)}


def atomic_collisions(access):
    """The most lanes of the access on one address (atomics on one address serialize)."""
    seen = {}
    for _, v in active(access):
        seen[v] = seen.get(v, 0) + 1
    return max(seen.values(), default=0), len(seen)


def cost_line(access):
    """The row's verdict: wavefronts and conflicts, sectors per request, or atomics' addresses."""
    lanes = active(access)
    if not lanes:
        return 'no lane took part'
    if access['kind'].endswith('atomic'):  # as the counts: distinct addresses, not banks or sectors
        most, distinct = atomic_collisions(access)
        return (f'{distinct} distinct address{"es" if distinct != 1 else ""}'
                + (f': up to {most} lanes on one, which take turns' if most > 1 else ': no two lanes on one'))
    if is_shared(access):
        c = shared_cost(access)
        words = '1 wavefront' if c['wavefronts'] == 1 else f"{c['wavefronts']} wavefronts ({c['conflicts']} conflicts)"
        return words + (f": {c['worst']}-way conflict" if c['worst'] > 1 else '')
    g = global_cost(access)
    n = len(g['sectors'])
    moved = f"{len({b for _, v in lanes for b in range(v, v + max(access['bytes'], 1))})} bytes"
    return (f'{n} sector{"s" if n != 1 else ""} per request'
            + (f" ({g['best']} would carry these {moved})" if n > g['best'] else f' (the fewest for these {moved})'))


def badness(access):
    """How much a row teaches: extra shared wavefronts, extra sectors, lanes on one atomic address."""
    if not active(access):
        return 0
    if access['kind'].endswith('atomic'):
        return atomic_collisions(access)[0] - 1
    if is_shared(access):
        return shared_cost(access)['conflicts'] * 2
    g = global_cost(access)
    return len(g['sectors']) / g['best'] - 1


def choose(accesses, most=MOST_ROWS):
    """Indexes of the rows to draw, in trace order: per source line and kind the costliest access,
    the costliest of those first, at most `most`; then costly accesses of another cost."""
    groups = {}
    for i, a in enumerate(accesses):
        key = (a['kind'], a.get('location'))
        if key not in groups or badness(a) > badness(accesses[groups[key]]):
            groups[key] = i
    ranked = sorted(groups.values(), key=lambda i: (-badness(accesses[i]), i))[:most]
    chosen = set(ranked)
    shown = {(accesses[i]['kind'], accesses[i].get('location'), cost_line(accesses[i])) for i in chosen}
    for i in sorted(range(len(accesses)), key=lambda i: (-badness(accesses[i]), i)):
        if len(chosen) >= most or badness(accesses[i]) <= 0:
            break
        key = (accesses[i]['kind'], accesses[i].get('location'), cost_line(accesses[i]))
        if key not in shown:
            chosen.add(i)
            shown.add(key)
    return sorted(chosen)


def variable_name(access):
    """A static __shared__ variable's own name ('s_counts' of 'lab04::...::kernel(int)::s_counts')."""
    name = access.get('variable') or 'a __shared__ variable'
    return name.rsplit('::', 1)[-1] if '(' not in name.rsplit('::', 1)[-1] else name


def short_location(location):
    if not location or location == '?':
        return 'source line unknown'
    if os.sep + 'counting' + os.sep in location:  # a submission's copy in the build folder
        return os.path.basename(location)
    if location.startswith(ROOT + os.sep):
        return os.path.relpath(location, ROOT)
    return location if not location.startswith('/') else os.path.basename(location)


def text(x, y, words, size=11, fill=INK, anchor='start', weight='normal'):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{escape(str(words))}</text>')


def box(x, y, w, h, fill, stroke):
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="2" fill="{fill}" stroke="{stroke}"/>'


def line(x1, y1, x2, y2, colour, width=1.0):
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width}" stroke-opacity="0.8"/>')


def targets_of(access):
    """[(slot label, conflict note or '', bad)] for the right column and {lane: [(slot, bad)]}."""
    links = {}
    if access['kind'].endswith('atomic'):
        seen = {}
        for _, v in active(access):
            seen[v] = seen.get(v, 0) + 1
        unit = BANK_BYTES if is_shared(access) else SECTOR_BYTES
        units = sorted({v // unit for v in seen}) if not is_shared(access) else list(range(BANKS))
        index = {u: i for i, u in enumerate(units)} if not is_shared(access) else None
        for lane, v in active(access):
            links[lane] = [((v // unit) % BANKS if index is None else index[v // unit], seen[v] > 1)]
        hot = {slot for targets in links.values() for slot, bad in targets if bad}
        first = units[0] if units else 0
        slots = [(f'bank {u}' if index is None else f'sector +{u - first}', 'same address' if i in hot else '', i in hot)
                 for i, u in enumerate(units)]
        return slots, links
    if is_shared(access):
        c = shared_cost(access)
        hot_banks = {}
        for (phase, bank), n in c['hot'].items():
            hot_banks[bank] = max(hot_banks.get(bank, 0), n)
        for lane, v in active(access):
            phase = lane // c['phase_lanes']
            links[lane] = [(w % BANKS, (phase, w % BANKS) in c['hot'])
                           for w in words_of(v, access['bytes'], BANK_BYTES)]
        slots = [(f'bank {b}', f'{hot_banks[b]}-way' if b in hot_banks else '', b in hot_banks) for b in range(BANKS)]
        return slots, links
    g = global_cost(access)
    index = {s: i for i, s in enumerate(g['sectors'])}
    first = g['sectors'][0] if g['sectors'] else 0
    spread = len(g['sectors']) > g['best']
    for lane, v in active(access):
        links[lane] = [(index[s], spread) for s in words_of(v, access['bytes'], SECTOR_BYTES)]
    slots = [(f'sector +{s - first}', '', spread) for s in g['sectors']]
    return slots, links


def lane_label(access, value):
    if is_shared(access):
        return f'byte {value}'
    base = min(v for _, v in active(access)) // SECTOR_BYTES * SECTOR_BYTES
    return f'+{value - base}'


def draw_row(out, access, number, y0):
    """One access: caption, lanes, targets, lines."""
    where = short_location(access.get('location'))
    region = {'dynamic': ' (extern __shared__)',
              'static': f' (__shared__ {variable_name(access)})'}.get(access.get('region'), '')
    out.append(text(LANE_X, y0 + 14, f"#{number}  {access['kind']}, {access['bytes']} bytes a lane{region}  ·  {where}",
                    size=13, weight='bold'))
    slots, links = targets_of(access)
    slot_pitch = PITCH if len(slots) <= LANES else LANES * PITCH / len(slots)
    top = y0 + TOP
    for lane in range(LANES):
        y = top + lane * PITCH
        value = access['lanes'][lane]
        bad = any(b for _, b in links.get(lane, []))
        out.append(box(LANE_X, y, LANE_W, BOX_H, '#f3f3f3' if value is None else '#ffe9e6' if bad else '#e8f0fa',
                       IDLE if value is None else BAD if bad else OK))
        label = f'lane {lane}' + ('  —' if value is None else f'  {lane_label(access, value)}')
        out.append(text(LANE_X + 4, y + BOX_H - 2, label, size=9, fill=FAINT if value is None else INK))
    for i, (name, note, bad) in enumerate(slots):
        y = top + i * slot_pitch
        height = max(min(BOX_H, slot_pitch - 1), 2)
        used = any(s == i for targets in links.values() for s, _ in targets)
        colour = BAD if bad and note else BAD if bad and not is_shared(access) and used else OK if used else IDLE
        out.append(box(TARGET_X, y, TARGET_W, height, '#ffffff' if not used else '#ffe9e6' if colour == BAD else '#e8f0fa',
                       colour))
        if slot_pitch >= 8:
            out.append(text(TARGET_X + 4, y + height - 2, name, size=9, fill=INK if used else FAINT))
        if note:
            out.append(text(TARGET_X + TARGET_W + 6, y + height - 2, note, size=9, fill=BAD, weight='bold'))
    for lane, targets in sorted(links.items()):
        for slot, bad in targets:
            out.append(line(LANE_X + LANE_W, top + lane * PITCH + BOX_H / 2, TARGET_X,
                            top + slot * slot_pitch + min(BOX_H, slot_pitch - 1) / 2, BAD if bad else OK,
                            1.4 if bad else 0.9))
    lanes = active(access)
    notes = [cost_line(access), f'{len(lanes)} of 32 lanes active']
    if is_shared(access):
        into = 'the extern __shared__ array' if access.get('region') == 'dynamic' else variable_name(access)
        notes.append('bank = (byte offset / 4) % 32')
        notes.append(f'left: each lane\'s byte offset into {into}')
        if shared_cost(access)['worst'] > 1:
            notes.append('a bank gives one 4-byte word a wavefront: N words on one bank take N')
    else:
        notes.append('sector = address / 32, numbered from the first the warp touched')
        notes.append('left: each lane\'s address, counted from that sector\'s start')
    for i, words in enumerate(notes):
        out.append(text(TEXT_X, top + 30 + i * 18, words, size=12 if i == 0 else 11,
                        fill=BAD if i == 0 and badness(access) > 0 else INK, weight='bold' if i == 0 else 'normal'))


def render(trace, title):
    """The SVG text of the trace's most telling accesses (choose()), one row each."""
    accesses = trace.get('accesses') or []
    rows = choose(accesses)
    height = HEADER + max(len(rows), 1) * ROW_H
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           f'<title>{escape(title)}</title>',
           f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
           text(LANE_X, 24, title, size=16, weight='bold')]
    who = (f"{trace.get('kernel') or trace.get('label', '?')}, block {trace.get('block', 0)}, warp {trace.get('warp', 0)}: "
           f'{len(rows)} of its first {len(accesses)} memory instructions')
    out.append(text(LANE_X, 44, who, size=12, fill=FAINT))
    out.append(text(LANE_X, 62, 'blue: served together  ·  red: lanes that wait (bank conflict, extra sectors, '
                    'one atomic address)  ·  grey: lane idle', size=11, fill=FAINT))
    if not rows:
        reason = 'no launch had this label' if not trace.get('kernel') else 'this warp made no global or shared access'
        out.append(text(LANE_X, HEADER + 30, f'Nothing to draw: {reason}.', size=13))
    for n, index in enumerate(rows):
        out.append(f'<g id={quoteattr(f"access-{index}")}>')
        draw_row(out, accesses[index], index + 1, HEADER + n * ROW_H)
        out.append('</g>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def write(trace, path, title):
    """Writes render(trace, title) to path (its folder made if missing); returns path."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(render(trace, title))
    return path


def main(argv=None):
    from counting import count_kernels, programs  # only the CLI builds and counts
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--lab', required=True, help='01 to 06')
    parser.add_argument('--trace', required=True, help="LABEL[:BLOCK:WARP]: a graded function's label")
    parser.add_argument('--submission', default='solutions', help='solutions, starter or a folder of lab files')
    parser.add_argument('--known-wrong', type=int)
    parser.add_argument('--n', type=int, default=4096, help='a tiny input: only the first accesses are drawn')
    parser.add_argument('--input', default='uniform', choices=['uniform', 'equal', 'ramp'])
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--out', help='the SVG (default BUILD/results/labNN_LABEL_warp.svg)')
    options = parser.parse_args(argv)
    lab, label = options.lab.zfill(2), options.trace.split(':')[0]
    try:
        _, trace = count_kernels.count(lab, options.submission, options.known_wrong, options.n, options.input,
                                       only=label, gpu=None, build_dir=options.build_dir, trace=options.trace)
    except programs.BuildError as error:
        print(f'warp_picture: {error}', file=sys.stderr)
        return 2
    out = options.out or os.path.join(options.build_dir, 'results', f'lab{lab}_{label}_warp.svg')
    write(trace, out, f'lab {lab} {label}: one warp, lane by lane ({options.submission})')
    print(out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
