"""GitHub Classroom: the workflow, made from the grader's points table, and its step commands."""
