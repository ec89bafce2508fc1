"""Tests for grader/bench/plot_sweeps.py and sweep_csv.py: any lab's sweep CSV is read from its
metadata alone, and drawn as students should see it.
Run: PYTHONPATH=grader python3 grader/bench/tests/test_plot_sweeps.py

The reading needs no matplotlib. The drawing tests (DrawingTest) need it: where it is missing they
are skipped, saying so; `--check` and a clear error without it are tested either way.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from bench import sweep_csv

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "grader" / "bench"
SCRIPT = BENCH / "plot_sweeps.py"

SMALL = """\
# lab: 99
# title: Lab 99 sweep
# gpu: Test GPU (sm_90, 2 SMs)
# x: chunk
# xlabel: samples per block
# xscale: log
# y: time_ms
# ylabel: time (ms)
# series: {version}, {block} threads
# style: data
# panel: group
# mark: result=WRONG
# reference: streaming read = 0.05
# note: free text, not drawn
kernel note,version,block,chunk,data,group,time_ms,result
"a, quoted",v1,256,256,uniform,first,2.90,correct
x,v1,256,1024,uniform,first,2.85,correct
x,v1,256,4096,uniform,first,2.88,WRONG
x,v1,256,256,all equal,first,2.95,correct
x,v2,512,1024,uniform,second,3.10,correct
x,v2,512,4096,uniform,second,3.00,correct
x,v3,512,,uniform,second,3.05,correct
"""


def write(folder, name, text):
    path = Path(folder) / name
    path.write_text(text)
    return path


class ReadingTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = write(self.folder.name, "small.csv", SMALL)

    def tearDown(self):
        self.folder.cleanup()

    def test_metadata_rows_panels_and_series_come_from_the_file_alone(self):
        sweep = sweep_csv.read_sweep(self.path)
        self.assertEqual(sweep.title(), "Lab 99 sweep on Test GPU (sm_90, 2 SMs)")
        self.assertEqual(sweep.references, [("streaming read", 0.05)])
        self.assertEqual(sweep.notes, ["free text, not drawn"])
        self.assertEqual(sweep.rows[0]["kernel note"], "a, quoted")
        self.assertEqual([name for name, _ in sweep_csv.panels(sweep)], ["first", "second"])
        first, second = (sweep_csv.series(sweep, rows) for _, rows in sweep_csv.panels(sweep))
        self.assertEqual([(s.label, s.style, len(s.points)) for s in first],
                         [("v1, 256 threads", "uniform", 3), ("v1, 256 threads", "all equal", 1)])
        self.assertEqual([p[2] for p in first[0].points], [False, False, True])  # the WRONG row
        self.assertEqual([(s.label, len(s.points), s.levels) for s in second],
                         [("v2, 512 threads", 2, []), ("v3, 512 threads", 0, [3.05])])

    def test_auto_scale_is_linear_over_a_narrow_band_and_log_past_ten_times(self):
        self.assertEqual(sweep_csv.choose_scale("auto", [2.84, 2.86, 2.93]), "linear")
        self.assertEqual(sweep_csv.choose_scale("auto", [2.84, 2.93, 0.046]), "log")
        self.assertEqual(sweep_csv.choose_scale("auto", [423, 3093]), "linear")
        self.assertEqual(sweep_csv.choose_scale("auto", [0, 3000]), "linear")
        self.assertEqual(sweep_csv.choose_scale("log", [2.84, 2.93]), "log")

    def test_log_ticks_are_the_values_only_when_their_labels_cannot_collide(self):
        self.assertEqual(sweep_csv.log_ticks([256, 512, 1024, 256]), [256, 512, 1024])
        self.assertIsNone(sweep_csv.log_ticks([1, 2, 4, 7.76, 8]))  # 7.76 and 8 would overlap
        self.assertIsNone(sweep_csv.log_ticks([2 ** k for k in range(12)]))  # too many

    def test_metadata_that_names_a_missing_column_is_refused_with_its_name(self):
        bad = write(self.folder.name, "bad.csv", SMALL.replace("# series: {version}, {block} threads",
                                                                "# series: {version}, {threads} threads"))
        with self.assertRaisesRegex(sweep_csv.SweepError, "lacks: threads"):
            sweep_csv.read_sweep(bad)
        plain = write(self.folder.name, "plain.csv", "a,b\n1,2\n")
        with self.assertRaisesRegex(sweep_csv.SweepError, "not a sweep CSV"):
            sweep_csv.read_sweep(plain)
        other = write(self.folder.name, "other.csv", SMALL.replace("# y: time_ms", "# y: block"))
        with self.assertRaisesRegex(sweep_csv.SweepError, "not the same sweep"):
            sweep_csv.check_comparable(sweep_csv.read_sweep(self.path), sweep_csv.read_sweep(other))


class SweepProgramsTest(unittest.TestCase):
    """The handout's reference CSVs have the columns and metadata the sweep programs write now."""

    def test_every_sweep_program_has_reference_csvs_in_its_own_format(self):
        programs = sorted(ROOT.glob("labs/*/lab*_sweep.cu"))
        self.assertTrue(programs)
        for program in programs:
            source = program.read_text()
            lab = re.match(r"lab(\d+)_sweep", program.name)[1]
            header = re.search(r'csv\.row\(\{((?:\s*"[^"]*",?)+)\}\);', source)
            self.assertIsNotNone(header, f"{program.name} writes no CSV header row")
            columns = re.findall(r'"([^"]*)"', header[1])
            meta = dict(re.findall(r'csv\.meta\("(\w+)", "([^"]*)"\)', source))
            plot = re.search(r'csv\.plot\(((?:\s*"[^"]*",?)+)\);', source)
            self.assertIsNotNone(plot, f"{program.name} does not say what to draw (csv.plot)")
            meta.update(zip(("x", "xlabel", "y", "ylabel", "series"), re.findall(r'"([^"]*)"', plot[1])))
            meta["mark"] = "result=WRONG"
            references = sorted(ROOT.glob(f"handouts/figures/sweeps/lab{lab}_*.csv"))
            self.assertTrue(references, f"no handouts/figures/sweeps/lab{lab}_*.csv for {program.name}")
            for path in references:
                sweep = sweep_csv.read_sweep(path)
                self.assertEqual(sweep.columns, columns, path.name)
                for key in ("x", "xlabel", "y", "ylabel", "series", "style", "panel", "xscale", "yscale", "mark"):
                    self.assertEqual(sweep.get(key), meta.get(key, ""), f"{path.name}: {key}")
                self.assertTrue(sweep.references, f"{path.name}: no reference line")
                self.assertTrue(sweep.rows, path.name)


class CommandLineTest(unittest.TestCase):
    """Without matplotlib (a stand-in package that fails to import): --check works, a plot is refused."""

    def run_without_matplotlib(self, *args):
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "matplotlib").mkdir()
            (Path(folder) / "matplotlib" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
            env = dict(os.environ, PYTHONPATH=folder, PYTHONDONTWRITEBYTECODE="1")
            return subprocess.run([sys.executable, str(SCRIPT), *args, "--out", folder],
                                  capture_output=True, text=True, env=env)

    def test_check_reads_a_reference_csv_without_matplotlib(self):
        csv = ROOT / "handouts" / "figures" / "sweeps" / "lab03_h100.csv"
        done = self.run_without_matplotlib("--check", "--csv", str(csv), "--reference", "none")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("panel 1024 bins:", done.stdout)
        # One y scale for the four panels: 7-bin letters at ~170 GB/s and a 4 TB/s read span > 10x.
        panels = [line for line in done.stdout.splitlines() if line.startswith("panel ")]
        self.assertEqual(len(panels), 4, done.stdout)
        self.assertTrue(all("x log, y log" in line for line in panels), done.stdout)

    def test_a_plot_without_matplotlib_fails_saying_how_to_install_it(self):
        csv = ROOT / "handouts" / "figures" / "sweeps" / "lab01_h100.csv"
        done = self.run_without_matplotlib("--no-install", "--csv", str(csv))
        self.assertEqual(done.returncode, 2)
        self.assertIn("matplotlib is not installed", done.stderr)
        self.assertIn("requirements-plots.txt", done.stderr)


try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from bench import plot_sweeps
except ImportError:
    plt = None


@unittest.skipIf(plt is None, "DRAWING NOT TESTED: matplotlib is not installed here "
                              "(python3 -m pip install -r requirements-plots.txt)")
class DrawingTest(unittest.TestCase):
    def draw(self, text, reference_text=None):
        with tempfile.TemporaryDirectory() as folder:
            sweep = sweep_csv.read_sweep(write(folder, "a.csv", text))
            reference = sweep_csv.read_sweep(write(folder, "b.csv", reference_text)) if reference_text else None
            fig = plot_sweeps.draw(plt, sweep, reference)
            plot_sweeps.save_png(fig, Path(folder) / "a.png", 110)
            self.assertGreater((Path(folder) / "a.png").stat().st_size, 5000)
        self.addCleanup(plt.close, fig)
        return fig

    def visible_axes(self, fig):
        return [ax for ax in fig.axes if ax.get_visible()]

    def test_a_narrow_band_is_linear_from_zero_and_the_legend_is_beside_the_data(self):
        narrow = SMALL.replace("# reference: streaming read = 0.05", "# reference: streaming read = 2.5")
        fig = self.draw(narrow)
        self.assertIn("Test GPU", fig._suptitle.get_text())
        renderer = fig.canvas.get_renderer()
        for ax in self.visible_axes(fig):
            self.assertEqual(ax.get_yscale(), "linear")
            self.assertEqual(ax.get_ylim()[0], 0)
            legend = ax.get_legend().get_window_extent(renderer)
            self.assertGreaterEqual(legend.x0, ax.get_window_extent(renderer).x1)

    def test_log_axes_label_plain_numbers_that_do_not_overlap(self):
        fig = self.draw(SMALL)  # the 0.05 reference: 60x, a log y axis
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in self.visible_axes(fig):
            self.assertEqual(ax.get_yscale(), "log")
            self.assertEqual(ax.get_xscale(), "log")
            for axis in (ax.xaxis, ax.yaxis):
                labels = [t for t in axis.get_ticklabels(which="both") if t.get_visible() and t.get_text()]
                self.assertGreaterEqual(len(labels), 2)
                for text in labels:
                    self.assertNotIn("times", text.get_text())  # no 2x10^0 style labels
                boxes = [t.get_window_extent(renderer) for t in labels]
                for a, b in zip(boxes, boxes[1:]):
                    self.assertFalse(a.overlaps(b), [t.get_text() for t in labels])

    def test_the_reference_run_is_drawn_faint_beside_the_students(self):
        reference = SMALL.replace("Test GPU", "Reference GPU").replace("2.90", "1.90")
        fig = self.draw(SMALL, reference)
        self.assertIn("Reference GPU", fig._suptitle.get_text())
        ax = self.visible_axes(fig)[0]
        faint = [line for line in ax.get_lines() if line.get_alpha() is not None and line.get_alpha() < 0.5]
        self.assertTrue(any(1.90 in line.get_ydata() for line in faint))

    def test_panels_share_one_y_scale_and_the_common_legend_entries_once(self):
        lab03 = (ROOT / "handouts" / "figures" / "sweeps" / "lab03_h100.csv").read_text()
        fig = self.draw(lab03)
        axes = self.visible_axes(fig)
        self.assertEqual(len(axes), 4)
        self.assertEqual({ax.get_yscale() for ax in axes}, {"log"})
        self.assertEqual(len({ax.get_ylim() for ax in axes}), 1)
        reads = [ax for ax in axes if any("streaming read" in t.get_text() for t in ax.get_legend().get_texts())]
        self.assertEqual(reads, axes[:1])

    def test_the_students_plot_is_put_beside_the_handouts(self):
        from bench import plot_beside
        with tempfile.TemporaryDirectory() as folder:
            fig = self.draw(SMALL)
            yours = Path(folder) / "lab01_sweep.png"
            plot_sweeps.save_png(fig, yours, 110)
            beside = plot_beside.write_beside("01", yours, folder, "yours", "the handout's")
            from PIL import Image
            width = Image.open(beside).width
            handout = Image.open(plot_beside.handout_figure("01"))
            self.assertGreater(width, handout.width)
            self.assertIsNone(plot_beside.write_beside("99", yours, folder, "yours", "none"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
