#!/usr/bin/env python3
"""Draws the handouts' technique diagrams as SVG files: python3 handouts/figures/diagrams.py [--out DIR].

Standard library only. The output is deterministic (no dates, fixed toy data), so a test can
regenerate the files into a temporary folder and compare them byte for byte with the committed ones.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the figures
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import BLUE, GREEN, GREY, INK, ORANGE, PALE, PURPLE, TINT, VERMILION, Svg  # noqa: E402
from diagrams_memory import lab01_atomic_timeline, lab03_dram_ports  # noqa: E402


# ---- Lab 01: sectioned (v1) and strided (v2) partitioning -----------------------------------------
def lab01_partitioning():
    threads, n, per = 8, 32, 4
    step_colour = [BLUE, ORANGE, GREEN, PURPLE]
    s = Svg(860, 560, "Lab 01: sectioned and strided partitioning")
    s.heading("Lab 01 — who reads which sample, at which step",
              f"A toy grid of T = {threads} threads, n = {n} samples, slice = {per}. In each cell: the thread that "
              "reads the sample;", "its colour: the step of that thread's loop in which it is read.")
    s.legend(30, 108, [(c, f"step {k}") for k, c in enumerate(step_colour)])
    panels = [("v1 slices (sectioned): thread t takes samples [t·slice, (t+1)·slice)",
               lambda i: (i // per, i % per), "at step 0 the threads read samples 0, 4, 8, …: a slice apart"),
              ("v2 grid-stride (strided): thread t takes t, t + T, t + 2T, …",
               lambda i: (i % threads, i // threads), "at step 0 the threads read samples 0 … 7: neighbours")]
    x0, cw = 100, 23
    for p, (title, who, note) in enumerate(panels):
        y0 = 148 + p * 190
        s.text(30, y0, title, 14, bold=True)
        for dy, label in ((36, "threads"), (110, "d_samples"), (136, "index")):
            s.text(x0 - 10, y0 + dy, label, 11, "end", GREY, mono=label == "d_samples")
        for t in range(threads):
            cx = x0 + cw * (per * t + per / 2)
            s.cell(cx - 18, y0 + 18, 36, 24, f"t{t}", fill=PALE)
            first = next(i for i in range(n) if who(i) == (t, 0))
            s.arrow(cx, y0 + 42, x0 + cw * (first + 0.5), y0 + 94, BLUE, 1.3, size=7)
        for i in range(n):
            t, k = who(i)
            s.cell(x0 + cw * i, y0 + 96, cw, 26, f"t{t}", fill=step_colour[k], size=10.5)
            s.text(x0 + cw * (i + 0.5), y0 + 136, str(i), 10, "middle", GREY)
            if k == 0:
                s.line(x0 + cw * i, y0 + 144, x0 + cw * (i + 1), y0 + 144, BLUE, 3)
        s.text(x0, y0 + 162, note, 12.5, fill=BLUE)
    s.lines(30, 520, ["A real warp has 32 lanes reading 4-byte ints. v1: at each step its lanes are 4·slice bytes "
                      "apart (32 separate", "memory transactions). v2: its lanes read 32 neighbouring ints, one "
                      "128-byte transaction: the loads coalesce."], 12.5)
    return s


# ---- Lab 03: privatization ---------------------------------------------------------------------------
def lab03_privatization():
    blocks = [[2, 5, 2, 7, 0, 2, 5, 3], [1, 1, 4, 6, 1, 3, 4, 1], [5, 5, 5, 0, 7, 5, 2, 5]]
    bins = 8
    counts = [[blk.count(b) for b in range(bins)] for blk in blocks]
    s = Svg(860, 540, "Lab 03: privatized histogram")
    s.heading("Lab 03 — privatization: count in __shared__ s_bins, then merge into d_bins",
              "Toy sizes: 3 blocks of 8 samples, 8 bins (lab 03's v1 and v2 have 1024 bins of 10-bit samples).")
    s.legend(30, 92, [(TINT[BLUE], "global memory"), (TINT[GREEN], "shared memory, one copy per block"),
                      ("#FFFFFF", "empty bin: no merge")])
    x0, cw, bw, dy, dw = 190, 27, 25, 440, 60
    dx = x0 + (24 * cw - bins * dw) / 2
    s.lines(x0 - 12, 131, ["d_samples", "global"], 11, anchor="end", fill=GREY)
    for bi, blk in enumerate(blocks):
        left = x0 + cw * 8 * bi
        for j, v in enumerate(blk):
            s.cell(left + cw * j, 114, cw, 26, v, fill=TINT[BLUE])
        s.line(left + 3, 150, left + 8 * cw - 3, 150, GREY, 1)
        s.text(left + 4 * cw, 166, f"block {bi}", 12, "middle", bold=True)
    rows, syncs = {"zero": 196, "count": 284}, [246, 336]
    for bi, cnt in enumerate(counts):
        bx = x0 + cw * 8 * bi + (8 * cw - bins * bw) / 2
        for b in range(bins):
            s.text(bx + bw * (b + 0.5), rows["zero"] - 5, str(b), 9.5, "middle", GREY)
            s.cell(bx + bw * b, rows["zero"], bw, 24, 0, fill=TINT[GREEN])
            fill = TINT[GREEN] if cnt[b] else "#FFFFFF"
            s.cell(bx + bw * b, rows["count"], bw, 24, cnt[b], fill=fill, color=None if cnt[b] else GREY)
            if cnt[b]:
                s.arrow(bx + bw * (b + 0.5), rows["count"] + 24, dx + dw * (b + 0.5), dy - 1, ORANGE, 1.3, size=7)
    for y in syncs:
        s.line(30, y, 840, y, GREY, 1, "5,4")
        s.text(30, y - 5, "__syncthreads()", 10.5, fill=GREY, mono=True)
    s.titled(30, rows["zero"] + 4, "1  zero", "s_bins[b] = 0")
    s.titled(30, rows["count"] + 4, "2  count", "atomicAdd on s_bins")
    s.titled(30, 384, "3  merge", "one global atomicAdd", "per non-empty bin")
    s.lines(x0 - 12, dy + 17, ["d_bins", "global"], 11, anchor="end", fill=GREY)
    for b in range(bins):
        s.cell(dx + dw * b, dy, dw, 26, sum(c[b] for c in counts), fill=TINT[BLUE])
        s.text(dx + dw * (b + 0.5), dy + 42, f"bin {b}", 10, "middle", GREY)
    s.text(30, 512, f"{sum(1 for cnt in counts for c in cnt if c)} global atomicAdds in all, one per non-empty "
           f"private bin; lab 01's kernels make {sum(map(len, blocks))}, one per sample.", 12.5)
    return s


# ---- Lab 04: shared-memory banks ---------------------------------------------------------------------
def lab04_banks():
    s = Svg(900, 650, "Lab 04: shared-memory banks")
    s.heading("Lab 04 — shared memory's 32 banks: who touches which bank",
              "Word j of a shared array lives in bank j mod 32. One warp, lanes 0 … 31; w = the warp's index "
              "in the block.")
    s.legend(30, 92, [(TINT[BLUE], "n: the one lane using the bank"), (GREEN, "all: one word, every lane "
                      "(broadcast)"), (VERMILION, "N: N words in one bank (N-way conflict)")], gap=18)
    x0, cw = 330, 17.5
    s.text(x0 - 8, 126, "bank", 11, "end", GREY)
    for b in range(32):
        s.text(x0 + cw * (b + 0.5), 126, str(b), 9, "middle", GREY)

    def row(y, code, note, words_of_lane):
        s.text(30, y + 11, code, 11.5, mono=True)
        s.text(30, y + 27, note, 11.5, fill=GREY)
        for b in range(32):
            lanes = [(l, w) for l in range(32) for w in words_of_lane(l) if w % 32 == b]
            words = {w for _, w in lanes}
            fill, label = (("#FFFFFF", "") if not lanes else (VERMILION, len(words)) if len(words) > 1
                           else (GREEN, "all") if len(lanes) == 32 else (TINT[BLUE], lanes[0][0]))
            s.cell(x0 + cw * b, y, cw, 28, label, fill=fill, size=9 if label == "all" else 9.5)

    rows = [("copy  s_chunk[32k + lane]", "copy: one word per bank, no conflict", lambda l: [32 + l]),
            ("scan  s_chunk[i]     (i = 34)", "every lane reads one word: broadcast", lambda l: [34]),
            ("scan  LDS.128 s_chunk[32..35]", "4 words, every lane: broadcast", lambda l: [32, 33, 34, 35]),
            ("v1    s_counts[32w + lane]", "no conflict, but a read and a write per sample", lambda l: [l]),
            ("never s_chunk[32*lane + i] (i = 0)", "32 words in bank 0: 32-way conflict", lambda l: [32 * l])]
    for r, args in enumerate(rows):
        row(138 + 44 * r, *args)
    s.text(30, 375, "v3's two bins per thread, had its counts lived in shared memory:", 13, bold=True)
    row(388, "s[2t]  (bins 2t, 2t + 1)", "lanes k and k + 16 share a bank: 2-way conflict", lambda l: [2 * l])
    row(432, "s[t]  (bins t, t + 512: v3)", "one word per bank, no conflict", lambda l: [l])
    s.text(30, 500, "The xor test (v3, v4): one broadcast read feeds 2 or 4 comparisons in registers", 13, bold=True)
    s.cell(30, 540, 200, 30, "value = s_chunk[i]", fill=GREEN, size=12, mono=True)
    for k, (y, label) in enumerate([(516, "v4, lane 0: bins 0, 256, 512, 768"),
                                    (552, "lane 1: bins 1, 257, 513, 769"),
                                    (600, "lane 31: bins 31, 287, 543, 799")]):
        s.arrow(230, 555, 290, y + 13, GREEN, 1.4, size=7)
        s.cell(292, y, 270, 26, label, fill=TINT[BLUE], size=11.5)
    s.text(427, 591, "⋮", 14, "middle", GREY)
    s.text(590, 534, "counts[k] += (value ^ bin_k) ? 0 : 1;", 11.5, mono=True)
    s.lines(590, 556, ["x ^ y is 0 exactly when x == y:", "no branch, no shared-memory write,",
                       "the counts stay in registers."], 12)
    return s


# ---- Lab 05: the two block scans -----------------------------------------------------------------------
HANDOUT_WARPS = {"hs": [32, 32, 32, 32, 32, 31, 30, 28, 24, 16],  # lab 05 Q3's table, 1024 elements
                 "bl": [16, 8, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16]}


def scan_steps(n, kind):
    """(label, [(target, source, thread)]) for each step of an n-element tile, as the solutions index it."""
    strides = [2 ** k for k in range(n.bit_length() - 1)]
    if kind == "hs":
        return [(f"offset {o}", [(i, i - o, i) for i in range(o, n)]) for o in strides]
    up = [(f"up  s = {st}", [((t + 1) * 2 * st - 1, (t + 1) * 2 * st - 1 - st, t) for t in range(n // (2 * st))])
          for st in strides]
    down = [(f"down  s = {st}", [((t + 1) * 2 * st - 1 + st, (t + 1) * 2 * st - 1, t)
                                 for t in range(n // (2 * st) - 1)]) for st in reversed(strides[:-1])]
    return up + down


def active_warps(n, kind):
    """Per step, the warps holding at least one thread that adds: lab 05 Q3's count."""
    return {label: len({thread // 32 for _, _, thread in adds}) for label, adds in scan_steps(n, kind)}


def draw_tree(s, y0, n, kind, colour, warps):
    x0, cw, pitch, rh = 150, 50, 60, 54
    state = [(i, i) for i in range(n)]

    def draw_row(y, active):
        for i, (lo, hi) in enumerate(state):
            label = f"x{i}" if lo == hi else f"{lo}–{hi}"
            s.cell(x0 + pitch * i, y, cw, 26, label, fill=TINT[colour] if i in active else "#FFFFFF",
                   size=11, color=INK if i in active or y == y0 else GREY)
    s.text(x0 - 14, y0 + 17, "in", 12, "end")
    draw_row(y0, ())
    for r, (label, adds) in enumerate(scan_steps(n, kind)):
        y = y0 + rh * (r + 1)
        for i, (lo, hi) in enumerate(state):
            if i not in {target for target, _, _ in adds}:
                s.line(x0 + pitch * i + cw / 2, y - rh + 26, x0 + pitch * i + cw / 2, y, GREY, 0.8, "3,3")
        before = list(state)
        for target, source, _ in adds:
            s.line(x0 + pitch * target + cw / 2, y - rh + 26, x0 + pitch * target + cw / 2, y, colour, 1.4)
            s.arrow(x0 + pitch * source + cw / 2, y - rh + 26, x0 + pitch * target + cw / 2, y, colour, 1.4, size=7)
            assert before[source][1] + 1 == before[target][0]
            state[target] = (before[source][0], before[target][1])
        s.text(x0 - 14, y + 17, label, 12, "end")
        draw_row(y, {target for target, _, _ in adds})
        s.text(x0 + pitch * n + 10, y + 10, f"{len(adds)} thread{'s add' if len(adds) > 1 else ' adds'}", 11.5)
        s.text(x0 + pitch * n + 10, y + 25, f"1024 elements: {warps[label]} warps", 11.5, fill=colour, bold=True)
    assert state == [(0, i) for i in range(n)]


def lab05_scan_trees():
    n, tile = 8, 1024
    hs, bl = (list(active_warps(tile, kind).values()) for kind in ("hs", "bl"))
    assert hs == HANDOUT_WARPS["hs"] and bl == HANDOUT_WARPS["bl"] and (sum(hs), sum(bl)) == (289, 71)
    s = Svg(880, 1012, "Lab 05: Hillis-Steele and Blelloch scans")
    s.heading("Lab 05 — two block scans of 8 elements, and their active warps",
              "In a cell, a–b is x[a] + … + x[b]. Right of each step: the threads that add in it, and the "
              "warps active", "in the step with the same stride of a 1024-element tile (lab 05 Q3).")
    s.text(30, 112, "v1 Hillis–Steele: one thread per element; step with offset o: element i ≥ o adds element "
           "i − o (two buffers)", 13, bold=True)
    draw_tree(s, 126, n, "hs", BLUE, active_warps(tile, "hs"))
    s.text(30, 360, "v2 Blelloch: one thread per two elements, in place", 13, bold=True)
    s.lines(30, 378, ["up-sweep, strides 1, 2, 4: element (t+1)·2s − 1 adds the element s before it;",
                      "down-sweep, strides n/4 … 1: element (t+1)·2s − 1 is added into the element s after it"],
            12.5)
    draw_tree(s, 410, n, "bl", ORANGE, active_warps(tile, "bl"))
    s.text(30, 778, f"Active warps per step for a {tile}-element tile: a warp counts when at least one of its "
           "threads adds", 13, bold=True)
    left, base, scale, slot = 110, 946, 4.4, 39
    for v in (0, 8, 16, 24, 32):
        s.line(left, base - v * scale, left + 19 * slot, base - v * scale, "#DDDDDD", 0.8)
        s.text(left - 8, base - v * scale + 4, str(v), 10.5, "end", GREY)
    s.text(left - 28, base - 20 * scale + 4, "warps", 11, "end", GREY)  # between ticks: not "warps 16"
    for step in range(19):
        for k, (seq, colour) in enumerate([(hs, BLUE), (bl, ORANGE)]):
            if step < len(seq):
                x = left + slot * step + 4 + 16 * k
                s.rect(x, base - seq[step] * scale, 15, seq[step] * scale, fill=colour, stroke=None)
                s.text(x + 7.5, base - seq[step] * scale - 4, str(seq[step]), 9, "middle")
        s.text(left + slot * step + 20, base + 15, str(step), 10.5, "middle", GREY)
    s.text(left + 19 * slot / 2, base + 32, "step (one barrier each)", 11, "middle", GREY)
    s.legend(110, 1000, [(BLUE, f"Hillis–Steele, 1024 threads: {len(hs)} steps, {sum(hs)} warp-steps"),
                       (ORANGE, f"Blelloch, 512 threads: {len(bl)} steps, {sum(bl)} warp-steps")])
    return s


# ---- Lab 05 Q5.4: decoupled look-back -----------------------------------------------------------------
def lab05_lookback():
    totals, me = [10, 7, 12, 5, 9, 8, 6], 5  # tile 5 looks back
    flags = ["kPrefix", "kPrefix", "kAggregate", "kAggregate", "kAggregate", "kAggregate", "empty"]
    look = {"kPrefix": BLUE, "kAggregate": ORANGE, "empty": GREY}
    values = [sum(totals[:b + 1]) if f == "kPrefix" else totals[b] for b, f in enumerate(flags)]
    s = Svg(880, 550, "Lab 05: single-pass scan with decoupled look-back")
    s.heading("Lab 05 Q5.4 — the single-pass scan's decoupled look-back",
              "A tile's state is one 64-bit word, flag (high 32 bits) and value (low 32 bits), written at once.")
    s.legend(30, 96, [(TINT[GREY], "empty: nothing yet"), (TINT[ORANGE], "kAggregate: the tile's own total"),
                      (TINT[BLUE], "kPrefix: total of tiles 0 … b")], gap=22)
    cx = [90 + 116 * b for b in range(len(totals))]
    top = 230  # the highest arc (lane 4) peaks about 40 px under the legend: no empty band between them
    for b, flag in enumerate(flags):
        mine = b == me
        s.rect(cx[b] - 50, top, 100, 84, fill="#FFFFFF", stroke=VERMILION if mine else INK, width=2.5 if mine else 1)
        s.text(cx[b], top + 19, f"tile {b}", 13, "middle", bold=True)
        s.cell(cx[b] - 42, top + 28, 84, 22, flag, fill=TINT[look[flag]], size=11, mono=True)
        s.text(cx[b], top + 71, "value —" if flag == "empty" else f"value {values[b]}", 12, "middle")
    s.text(cx[-1] + 62, top + 47, "…", 16, "middle", GREY)
    added = []  # lane j reads tile me - 1 - j; the lanes up to the nearest kPrefix add their values
    for lane, b in enumerate(range(me - 1, -1, -1)):
        counted = "kPrefix" not in flags[b + 1:me]
        added += [values[b]] if counted else []
        mid, cy = (cx[me] + cx[b]) / 2, top - 50 - 34 * lane
        s.curve_arrow(cx[me] - 10, top, mid, cy, cx[b] + 10, top, BLUE if counted else GREY, 1.6,
                      None if counted else "5,4")
        s.text(cx[b], top + 102, f"lane {lane}" + (f": + {values[b]}" if counted else ": not added"),
               11.5, "middle", BLUE if counted else GREY, bold=counted)
    prefix = sum(added)
    s.text(cx[me], top + 102, "this block: warp 0", 11.5, "middle", VERMILION)
    s.lines(cx[-1], top + 102, ["still running:", "never waited for"], 11.5, anchor="middle", fill=GREY)
    s.text(30, top + 140, f"Tile {me}'s exclusive prefix = {' + '.join(map(str, added))} = {prefix}: the walk stops "
           f"at tile {me - len(added)}'s kPrefix; lane {len(added)} read tile {me - 1 - len(added)} but adds nothing.",
           12.5)
    s.text(30, top + 160, f"Tile {me} then publishes (kPrefix, {prefix} + {totals[me]} = {prefix + totals[me]}) and "
           f"adds {prefix} to its elements.", 12.5)
    steps = ["tile = atomicAdd(&next_tile, 1): tiles are numbered in the order blocks start;",
             "load and scan the tile: its total is the aggregate;",
             "publish (kAggregate, aggregate); tile 0 publishes (kPrefix, aggregate) at once;",
             "warp 0, lane j, reads the state of tile b − 1 − j, 32 tiles a pass; while any is empty, it reads "
             "again;", "it adds the values up to the nearest kPrefix and stops, or goes back 32 more tiles;",
             "publish (kPrefix, prefix + aggregate), add the prefix to the elements, store them."]
    s.text(30, top + 198, "Every tile, in its block:", 13, bold=True)
    s.lines(30, top + 220, ["1", "2", "3", "4", "", "5"], 12.5, gap=18 / 12.5, bold=True)
    s.lines(50, top + 220, steps, 12.5, gap=18 / 12.5)
    return s


# ---- Lab 06: the equalization pipeline -----------------------------------------------------------------
def equalize(pixels):
    """The handout's integer formula (grader/core/equalization_reference.hpp)."""
    hist = [pixels.count(v) for v in range(256)]
    cdf = [sum(hist[:v]) for v in range(257)]
    n = cdf[256]
    darkest = min(v for v in range(256) if hist[v])
    c_min = cdf[darkest + 1]
    lut = list(range(256)) if n == c_min else [  # one level: nothing to spread
        0 if v < darkest else (2 * 255 * (cdf[v + 1] - c_min) + (n - c_min)) // (2 * (n - c_min)) for v in range(256)]
    return hist, cdf, lut


def lab06_pipeline():
    width, height = 16, 10
    rows = [[100 + 2 * x + 3 * y for x in range(width)] for y in range(height)]
    hist, cdf, lut = equalize([v for row in rows for v in row])
    out = [[lut[v] for v in row] for row in rows]
    s = Svg(880, 462, "Lab 06: histogram equalization pipeline")
    s.text(30, 30, "Lab 06 — histogram equalization: four kernels in a row", 19, bold=True)
    centre = [95 + 175 * k for k in range(5)]
    stages = [("1  histogram_256", "histogram_kernel", "shared s_bins (lab 03)"),
              ("2  cdf_exclusive_scan", "cdf_kernel", "warp-shuffle scan (lab 05)"),
              ("3  build_lut", "lut_kernel", "one thread per level"),
              ("4  remap", "remap_kernel", "lut in shared memory")]
    box_top, data_top = 84, 200
    for k, (name, kernel, how) in enumerate(stages):
        bx = (centre[k] + centre[k + 1]) / 2
        s.rect(bx - 82, box_top, 164, 68, fill=TINT[ORANGE], stroke=INK, rx=6)
        s.text(bx, box_top + 20, name, 12, "middle", bold=True)
        s.text(bx, box_top + 39, kernel, 11.5, "middle", mono=True)
        s.text(bx, box_top + 57, how, 11, "middle")
        s.arrow(centre[k] + 30, data_top - 6, bx - 30, box_top + 70, INK, 1.4, size=7)
        s.arrow(bx + 30, box_top + 70, centre[k + 1] - 30, data_top - 6, INK, 1.4, size=7)
    bx4 = (centre[3] + centre[4]) / 2
    s.polyline([(centre[0] - 50, data_top - 6), (centre[0] - 50, 62), (bx4 - 40, 62)], INK, 1.2, "5,4")
    s.arrow(bx4 - 40, 62, bx4 - 40, box_top - 1, INK, 1.2, "5,4", size=7)
    s.text(centre[0] - 40, 57, "remap reads d_in again: out[i] = lut[in[i]]", 11.5, fill=GREY)
    s.image(centre[0] - 64, data_top, rows)
    s.plot(centre[1] - 70, data_top, 140, 100, hist, max(hist) * 1.1)
    s.plot(centre[2] - 70, data_top, 140, 100, cdf, cdf[256] * 1.05, bars=False)
    s.plot(centre[3] - 70, data_top, 140, 100, lut, 255 * 1.05, bars=False, colour=VERMILION)
    s.image(centre[4] - 64, data_top, out)
    after = [sum(row.count(v) for row in out) for v in range(256)]
    s.plot(centre[4] - 70, data_top + 88, 140, 30, after, max(after) * 1.1, colour=GREEN, ticks=False)
    used = [v for v in range(256) if hist[v]]
    captions = [("d_in", f"{width} × {height} pixels, {min(used)}–{max(used)}"),
                ("d_bins[256]", "pixels of each level"), ("cdf[257]", "pixels darker than v"),
                ("lut[256]", "new level of each v"), ("d_out", f"levels {min(lut[v] for v in used)}–"
                                                              f"{max(lut[v] for v in used)}, histogram above")]
    for k, (name, what) in enumerate(captions):
        s.text(centre[k], data_top + 136, name, 12, "middle", mono=True, bold=True)
        s.text(centre[k], data_top + 153, what, 11, "middle", GREY)
    s.text(30, 398, "lut[v] = round_half_up(255 · (c(v) − c_min) / (N − c_min))", 12.5, mono=True)
    s.lines(30, 420, ["with c(v) = cdf[v + 1], N = cdf[256], c_min = c at the darkest level present; levels below "
                      "the darkest map to 0.", "Toy image: a gradient over a narrow band of levels; after the "
                      "remap it spans the whole range 0–255."], 12.5)
    return s


DIAGRAMS = [lab01_partitioning, lab01_atomic_timeline, lab03_privatization, lab03_dram_ports, lab04_banks, lab05_scan_trees,
            lab05_lookback, lab06_pipeline]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="folder for the diagram_*.svg files (default: this script's folder)")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    for draw in DIAGRAMS:
        path = os.path.join(out, f"diagram_{draw.__name__}.svg")
        draw().save(path)
        print(path)


if __name__ == "__main__":
    main()
