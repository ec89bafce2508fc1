"""The batch's tests and their helpers: a fake lab program, the fixture class's run, machine speed."""
