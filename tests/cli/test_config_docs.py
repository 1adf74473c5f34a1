"""docs/configuration.md lists every key the config reads, and the kinds' rows are exactly
what the kinds declare (station.kinds.registry), so the page cannot drift from the code."""

from __future__ import annotations

import re

import pytest

from station.config import SECTIONS, TOP_KEYS
from station.kinds.registry import FAMILIES, doc_rows
from tests.conftest import REPO

DOC = REPO / "docs" / "configuration.md"
ROW_KEY = re.compile(r"^\| `([a-z_\[\].]+)` \|", re.M)


def documented() -> list[str]:
    return ROW_KEY.findall(DOC.read_text(encoding="utf-8"))


def read_by_the_config() -> set[str]:
    keys = {f"{section}.{key}" for section, names in SECTIONS.items() for key in names}
    keys |= {f"{fam.section}.{key}" for fam in FAMILIES.values() for key in fam.allowed()}
    return keys


def test_every_key_the_config_reads_is_documented_once_and_no_other() -> None:
    found = documented()
    assert len(found) == len(set(found)), "a key is documented twice"
    assert set(found) == read_by_the_config(), (
        f"missing: {sorted(read_by_the_config() - set(found))}; "
        f"not read by the config: {sorted(set(found) - read_by_the_config())}")


def test_every_top_level_section_has_its_keys_documented() -> None:
    sections = {key.split(".")[0].removesuffix("[]") for key in documented()}
    assert sections == set(TOP_KEYS)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_kinds_rows_are_the_kinds_declarations(family: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    for row in doc_rows(family):
        assert row in text, f"docs/configuration.md: write this row as the kind declares it:\n{row}"


def test_the_config_module_points_to_the_page() -> None:
    assert "docs/configuration.md" in (REPO / "station" / "config.py").read_text()
