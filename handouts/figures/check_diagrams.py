#!/usr/bin/env python3
"""Fails when the committed diagram_*.svg files differ from what diagrams.py draws now.
Fix: python3 handouts/figures/diagrams.py, then commit the SVG files it rewrote."""
import filecmp
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

with tempfile.TemporaryDirectory() as fresh:
    subprocess.run([sys.executable, os.path.join(HERE, "diagrams.py"), "--out", fresh], check=True,
                   stdout=subprocess.DEVNULL)
    drawn = sorted(os.path.basename(p) for p in glob.glob(os.path.join(fresh, "diagram_*.svg")))
    committed = sorted(os.path.basename(p) for p in glob.glob(os.path.join(HERE, "diagram_*.svg")))
    stale = [name for name in drawn if name not in committed
             or not filecmp.cmp(os.path.join(fresh, name), os.path.join(HERE, name), shallow=False)]
    orphans = [name for name in committed if name not in drawn]
if stale or orphans:
    print("out of date:", ", ".join(stale) or "-", "| no longer drawn:", ", ".join(orphans) or "-")
    print(__doc__.splitlines()[1])
    sys.exit(1)
print(f"{len(drawn)} diagrams up to date")
