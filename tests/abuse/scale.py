"""How hard the abuse suite pushes (issue 18).

CI runs a sample: floods small enough to finish in seconds, yet each past the ceiling it tests
(a flood that never reaches the ceiling proves nothing). ``ABUSE_FULL=1`` runs the figures of
docs/testing.md (the campaign's own: 10 MB of scanner noise, 1,100 idle connections, 3,000
refused requests). Every ceiling asserted is on bytes, counts or descriptors, never on time.
"""

from __future__ import annotations

import os

FULL = os.environ.get("ABUSE_FULL", "") not in ("", "0")


def pick(sample: int, full: int) -> int:
    """``full`` under ``ABUSE_FULL=1``, else ``sample``."""
    return full if FULL else sample
