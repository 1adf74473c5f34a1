from __future__ import annotations

from station.commands.diagram import page
from tests.conftest import REPO


def test_checked_in_diagram_matches_the_machine_table() -> None:
    on_disk = (REPO / "docs" / "machine.md").read_text()
    assert on_disk == page(), "regenerate: python -m station.commands.diagram > docs/machine.md"
