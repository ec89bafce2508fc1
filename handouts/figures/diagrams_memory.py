"""The handouts' diagrams of the memory system's pace: lab 01's atomic timeline and lab 03's DRAM
ports. Drawn by diagrams.py with the others (standard library only, deterministic output)."""
from svg import BLUE, GREY, INK, ORANGE, TINT, VERMILION, Svg


# ---- Lab 01: atomic latency becomes throughput ---------------------------------------------------
def lab01_atomic_timeline():
    latency, count, unit, x0 = 6, 4, 22, 320
    s = Svg(900, 450, "Lab 01: atomic latency and throughput")
    s.heading("Lab 01 — atomic latency becomes throughput on one address",
              f"A toy timeline: an atomic at the L2 takes L = {latency} time steps to read its counter, add and "
              "write it back.", "Atomics on different counters overlap; atomics on one counter wait "
              "for each other.")
    rows = [("4 atomics, 4 different bins", [(k, k) for k in range(count)], BLUE,
             [f"all done after L + 3 = {latency + count - 1} steps:", "about one atomic per step"]),
            ("4 atomics, one bin", [(k * latency, k) for k in range(count)], VERMILION,
             [f"all done after 4 × L = {count * latency} steps:", "one atomic per L steps"])]
    for r, (title, starts, colour, note) in enumerate(rows):
        y = 112 + r * 124
        s.text(30, y + 14, title, 13, bold=True)
        s.lines(30, y + 34, note, 12, fill=colour)
        for start, k in starts:
            yy = y + 2 + k * 24
            s.rect(x0 + unit * start, yy, unit * latency, 20, fill=TINT[colour], stroke=colour)
            s.text(x0 + unit * (start + latency / 2), yy + 14.5, f"atomic {k}", 11, "middle")
    axis_y = 370
    s.line(x0, axis_y, x0 + unit * count * latency + 10, axis_y, GREY, 1)
    for step in range(0, count * latency + 1, latency):
        s.line(x0 + unit * step, axis_y - 4, x0 + unit * step, axis_y + 4, GREY, 1)
        s.text(x0 + unit * step, axis_y + 18, f"{step // latency}L" if step else "0", 11, "middle", GREY)
    s.text(x0 - 10, axis_y + 4, "time", 11, "end", GREY)
    s.lines(30, 412, ["Throughput on one address = 1 / latency; on many addresses the atomic units overlap the "
                      "updates,", "and the throughput is set by how many they can start per step."], 12.5, fill=INK)
    return s


# ---- Lab 03 Q5.2: the course's DRAM model --------------------------------------------------------
def lab03_dram_ports():
    s = Svg(960, 640, "Lab 03: address bits and DRAM ports")
    s.heading("Lab 03 Q5.2 — the course's DRAM model: address bits 6–10 pick the port",
              "32 ports work in parallel; a port serves its requests one after another. A simplified model: "
              "real GPUs mix more", "address bits into the choice, but the point stands: a step should spread its "
              "requests over the ports, and use the bytes it fetches.")
    for label, x, w, fill in [("bits 31 … 11: where in the port", 30, 360, "#FFFFFF"),
                              ("bits 10 … 6: port 0 … 31", 390, 220, TINT[ORANGE]),
                              ("bits 5 … 0: byte in a 64-byte chunk", 610, 260, "#FFFFFF")]:
        s.cell(x, 100, w, 30, label, fill=fill, size=12.5)
    s.text(30, 160, "d_samples as consecutive 64-byte chunks (16 ints each), each with its port; shaded: what one "
           "v2 warp reads in a step", 12.5)
    for c in range(40):
        s.cell(30 + 21 * c, 168, 21, 24, c % 32, fill=TINT[BLUE] if c < 2 else "#FFFFFF", size=10)
    s.text(30, 212, "Chunk c goes to port c mod 32: 32 consecutive chunks keep all 32 ports busy at once.", 12.5)
    # (title, gap, byte addresses one step reads)
    scenarios = [("v2 grid-stride, one warp", "lanes 4 B apart", [4 * l for l in range(32)]),
                 ("v2 grid-stride, warps 0–15", "lanes 4 B apart",
                  [4 * (32 * w + l) for w in range(16) for l in range(32)]),
                 ("v1, slices of 16 samples", "lanes 64 B apart", [64 * l for l in range(32)]),
                 ("v1, slices of 64 samples", "lanes 256 B apart", [256 * l for l in range(32)]),
                 ("v1, slices of 512 samples", "lanes 2 KiB apart", [2048 * l for l in range(32)])]
    px, pw, top, used_x = 330, 16.5, 284, 870
    s.text(30, 250, "One step of the loop: the 64-byte chunks it asks of each port, and the share of their bytes "
           "it uses", 12.5, bold=True)
    for p in range(32):
        s.text(px + pw * (p + 0.5), 274, str(p), 9, "middle", GREY)
    s.text(used_x + 40, 274, "bytes used", 10.5, "middle", GREY)
    for r, (title, gap, addresses) in enumerate(scenarios):
        y = top + 50 * r
        chunks = sorted({a // 64 for a in addresses})
        per_port = [sum(1 for c in chunks if c % 32 == p) for p in range(32)]
        ports = sum(1 for q in per_port if q)
        share = 4 * len(addresses) / (64 * len(chunks))
        s.text(30, y + 12, title, 12.5, bold=True)
        s.text(30, y + 29, f"{gap}: {len(chunks)} chunks on {ports} port{'s' if ports > 1 else ''}", 12)
        for p, q in enumerate(per_port):
            single = TINT[BLUE] if share == 1 else TINT[VERMILION]  # one chunk: all its bytes used, or 4 of 64
            fill = "#FFFFFF" if q == 0 else single if q == 1 else TINT[ORANGE] if q <= 4 else VERMILION
            s.cell(px + pw * p, y, pw, 26, q if q else "", fill=fill, size=10)
        s.cell(used_x, y, 80, 26, f"{share:.0%}", fill=TINT[BLUE] if share == 1 else TINT[VERMILION], size=11)
    s.text(px - 8, 274, "port", 11, "end", GREY)
    s.lines(30, 556, ["v1's lanes use 4 bytes of each 64-byte chunk a step: the other 60 pay only if the L1 still "
                      "holds the chunk when", "the thread comes back for its next samples. Measured (lab03-sweep, "
                      "NVIDIA H100 80GB HBM3, 2026-11-23): v1 with 16-sample slices", "0.1110 ms, v2 0.0490 ms: "
                      "sectioned is 2.3× slower than strided, although both spread their chunks over 32 ports."],
            12, fill=INK)
    s.legend(30, 625, [(TINT[BLUE], "1 chunk, all used"), (TINT[VERMILION], "1 chunk, 4 of its 64 bytes used"),
                       (TINT[ORANGE], "2–4 chunks in a queue"), (VERMILION, "more than 4 in a queue")], gap=18)
    return s
