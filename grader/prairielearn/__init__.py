"""PrairieLearn: the external grader's entry point (grade_pl.py, run.sh), its results format, a question template."""
