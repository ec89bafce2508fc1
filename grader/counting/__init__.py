"""What a kernel does, measured: the counting mode's host side, ncu, and the SASS reader (README.md)."""
