#!/usr/bin/env python3
"""builder.pristine_environment: a worker's pristine build compiles with ccache's base folder at
the work folder, so that its compiles are the same for every worker and every later batch on the
machine (their absolute paths made relative): with ccache installed, a second work folder's build
of the same file is a cache hit. Seconds; the ccache part skips, saying so, without ccache.
builder.student_outputs: what is deleted before each submission's compile (what compiles a lab
file), and not the call tables made from the lab's header."""
import os
import shutil
import subprocess
import tempfile
import unittest

from batch import builder


def hits(env):
    """ccache's count of cache hits so far, of the cache `env` names."""
    out = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, env=env).stdout
    stats = dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    return int(stats.get("direct_cache_hit", 0)) + int(stats.get("preprocessed_cache_hit", 0))


class PristineEnvironment(unittest.TestCase):
    def test_the_base_folder_is_the_work_folder(self):
        env = builder.pristine_environment("/w/a1b2/work/project", "/w/a1b2/work/build/1")
        self.assertEqual(env["CCACHE_BASEDIR"], "/w/a1b2/work")
        self.assertEqual(env["PATH"], os.environ["PATH"])

    def test_another_work_folder_reuses_the_objects(self):
        if shutil.which("ccache") is None or shutil.which("c++") is None:
            self.skipTest("ccache or c++ not installed: nothing to reuse objects with")
        tmp = tempfile.mkdtemp(prefix="builder-ccache-")
        self.addCleanup(shutil.rmtree, tmp, True)
        cache = dict(CCACHE_DIR=os.path.join(tmp, "cache"), CCACHE_NOHASHDIR="1")
        before = None
        for work in ("work-a", "work-b"):  # two batches' work folders, the same project in each
            project, build = (os.path.join(tmp, work, name) for name in ("project", "build"))
            os.makedirs(project)
            os.makedirs(build)
            with open(os.path.join(project, "header.h"), "w") as f:
                f.write("int twice(int x);\n")
            with open(os.path.join(project, "file.cpp"), "w") as f:
                f.write("int twice(int x) { return 2 * x; }\n")
            env = dict(builder.pristine_environment(project, build), **cache)
            env.pop("CCACHE_DISABLE", None)  # as a benchmark run sets it (bench_student_loop.sh)
            # as the CPU backend compiles: a header forced in by its absolute path
            done = subprocess.run(["ccache", "c++", "-include", os.path.join(project, "header.h"),
                                   "-c", "../project/file.cpp", "-o", "file.o"], cwd=build, env=env,
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            before = hits(env) if before is None else before
        self.assertEqual(hits(env) - before, 1)


class StudentOutputs(unittest.TestCase):
    def test_what_compiles_a_lab_file_and_not_the_call_tables(self):
        b, slot = "/w/builds/0/labs/", "/w/slots/0"
        targets = [  # as meson introspect --targets gives them (CPU backend)
            {"filename": [b + "lab01_calls.cu"], "target_sources": [
                {"sources": ["/w/project/labs/01-global-atomics/lab01_global_atomics.cuh"]}]},
            {"filename": [b + "liblab01_runner_calls.a"], "target_sources": [
                {"sources": [], "generated_sources": [b + "liblab01_runner_calls.a.p/lab01_calls.cpp"]}]},
            {"filename": [b + "lab01_runner_graded"], "target_sources": [
                {"sources": [], "generated_sources": [b + "lab01_runner_graded.p/lab01_global_atomics.cpp"]}]},
            {"filename": [b + "lab01_sweep"], "target_sources": [
                {"sources": [slot + "/lab01_global_atomics.cu"], "generated_sources": None}]},
            {"filename": [b + "lab01_checker"], "target_sources": [{"sources": ["/w/project/grader/core/x.cpp"]}]}]
        found = builder.student_outputs(targets, ["lab01_global_atomics.cu"], slot)
        self.assertEqual(found, [b + "lab01_runner_graded", b + "lab01_runner_graded.p",
                                 b + "lab01_sweep", b + "lab01_sweep.p"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
