"""The Gradescope autograder: its zip (make_autograder_zip.py) and what runs there (autograder.py)."""
