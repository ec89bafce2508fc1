"""Batch grading of a class's submissions: grader/grade_submissions.py (see its --help and
handouts/instructor-guide.md)."""
