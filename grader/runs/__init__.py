"""Running a lab's checker test by test and scoring what it reports: shared by grade.py (a
student's own runs, grader/student_runs.py) and the batch grader (grader/batch)."""
