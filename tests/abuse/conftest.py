"""The abuse suite's switch: under ``ABUSE_FULL=1`` its tests run the campaign's figures
(docs/testing.md, "Abuse suite"), which take minutes, so each gets a longer timeout than
the suite's 120 s. The sample CI runs keeps the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.abuse.scale import FULL

FULL_TIMEOUT_S = 1800
HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not FULL:
        return
    for item in items:
        # A session-wide hook: only this folder's tests, and only those without their own.
        if HERE in item.path.parents and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(FULL_TIMEOUT_S))
