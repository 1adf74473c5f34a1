"""How much of a large test CI runs, and ``STATION_LONG_TESTS=1`` the whole of it.

CI has two cores and eight minutes for the suite: a matrix (every screen size in both
languages, hundreds of hypothesis examples) runs a sample there that still covers every
value of each axis once, and whole under ``STATION_LONG_TESTS=1`` (docs/testing.md, Long
runs). A sample is fixed, never random, so a CI failure reruns the same.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

LONG = os.environ.get("STATION_LONG_TESTS") == "1"

# A hypothesis property's examples in CI: a quarter of its own figure, never under ten.
SHARE = 4
LEAST = 10


def examples(n: int) -> int:
    """Hypothesis ``max_examples``: ``n`` in a long run, else a quarter of it (at least 10)."""
    return n if LONG else max(min(n, LEAST), n // SHARE)


def pick(sample: Sequence[T], every: Sequence[T]) -> list[T]:
    """``every`` in a long run, else ``sample`` (each of which must be one of ``every``)."""
    missing = [s for s in sample if s not in every]
    assert not missing, f"sampled cases not in the matrix: {missing}"
    return list(every if LONG else sample)


def count(n: int) -> int:
    """How many of ``n`` seeded cases a loop takes: as ``examples``, for plain loops."""
    return examples(n)
