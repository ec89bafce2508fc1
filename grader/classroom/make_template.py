#!/usr/bin/env python3
"""Make the GitHub Classroom template repository's files: the project as students see it (the
batch's copy, batch/project.py: no solutions/, answer keys, instructor guide, fixtures, builds or
version control) and the workflows of .github/workflows/ (classroom.yml, classroom-gpu.yml).

    make_template.py --out DIR       DIR must not exist or be empty

Then: cd DIR && git init -b main && git add -A && git commit -m "GPU workbook", push it to a new
repository of the course's organization, and tick "Template repository" in its settings
(handouts/instructor-guide.md, section GitHub Classroom).
"""
import argparse
import os
import shutil
import sys

GRADER = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and GRADER not in map(os.path.realpath, sys.path):
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [GRADER, os.environ.get("PYTHONPATH")]))))

from batch import project  # noqa: E402
from classroom import make_workflow  # noqa: E402


def make_template(out):
    if os.path.exists(out) and os.listdir(out):
        raise SystemExit(f"error: {out} is not empty: give a new folder")
    os.makedirs(out, exist_ok=True)
    project.sync_snapshot(out, project.ROOT, skip_paths=[out])
    workflows = os.path.join(out, ".github", "workflows")
    os.makedirs(workflows)
    for name in (make_workflow.CPU_WORKFLOW, make_workflow.GPU_WORKFLOW):
        shutil.copy2(os.path.join(make_workflow.WORKFLOWS, name), os.path.join(workflows, name))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--out", required=True, help="the template's folder (new or empty)")
    out = os.path.abspath(parser.parse_args(argv).out)
    make_template(out)
    print(f"{out}: the students' copy of the project and its Classroom workflows; next: git init "
          "there, push, and mark the repository as a template")
    return 0


if __name__ == "__main__":
    sys.exit(main())
