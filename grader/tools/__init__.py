"""Checks the project runs on itself: technique checks, call tables, self-test verdicts (README.md)."""
