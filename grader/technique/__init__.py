"""The graded technique checks: a kernel that ran did its work the way the lab teaches (README.md)."""
