"""Builds one lab's count program with a lab file for the counting mode and prints its path: what
the batch grader runs in its compile sandbox (grader/batch/counting_step.py), from the students'
copy of the project, so that a submission's file is compiled where it sees nothing else.

  PYTHONPATH=grader python3 -m counting.build_count_program --lab 01 --build-dir BUILD --prepare
  PYTHONPATH=grader python3 -m counting.build_count_program --lab 01 --build-dir BUILD
      --lab-file F --out DIR

--prepare (the batch's set-up, outside the sandbox: no student code) builds BUILD's CPU backend
libraries and the lab's count program's own object (programs.main_object). Then BUILD is read,
never written: the program is built under DIR. Exit status: 0 and the program's path as the last
line, 2 and the compiler's messages when it does not build."""
import argparse
import sys

from counting import programs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--prepare", action="store_true")
    parser.add_argument("--lab-file")
    parser.add_argument("--out")
    options = parser.parse_args(argv)
    if not options.prepare and not (options.lab_file and options.out):
        parser.error("give --prepare, or --lab-file and --out")
    try:
        if options.prepare:
            programs.ensure_libraries(options.build_dir, counting=True)
            program = programs.main_object(options.build_dir, programs.target(options.lab), counting=True)
        else:
            programs.REBUILD_LIBRARIES = False  # the build folder is read-only here
            program = programs.build(options.build_dir, options.lab, options.lab_file, counting=True,
                                     out_root=options.out)
    except programs.BuildError as error:
        print(error, file=sys.stderr)
        return 2
    print(program)
    return 0


if __name__ == "__main__":
    sys.exit(main())
