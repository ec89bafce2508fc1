"""The project's checks of itself: self-test oracles and CI scripts (README.md)."""
