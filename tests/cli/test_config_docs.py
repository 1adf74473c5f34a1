"""docs/configuration.md lists every key the config reads, and the kinds' rows are exactly
what the kinds declare (station.kinds.registry), so the page cannot drift from the code; the
services' configs (PIT.yaml, ARCHIVE.yaml) likewise: every key of their shipped configs is
documented, and every documented key is one their parser takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from station.kinds.registry import FAMILIES, doc_rows
from station.live.config import SECTIONS, TOP_KEYS
from station.services.archive.config import ARCHIVE_KEYS
from station.services.broker.config import BROKER_KEYS, TABLES_KEYS
from station.services.pit.config import PIT_KEYS
from tests.conftest import REPO

DOC = REPO / "docs" / "configuration.md"
ROW_KEY = re.compile(r"^ *\| `([a-z_\[\].]+)` \|", re.M)
SERVICES_HEADING = "## broker and tables (`station pit`, `station archive`)"
# Each service config's sections: what its parser takes, and the page that documents them.
SERVICE_SECTIONS: dict[str, tuple[tuple[str, ...], Path]] = {
    "broker": (BROKER_KEYS, DOC),
    "tables": (TABLES_KEYS, DOC),
    "pit": (PIT_KEYS, REPO / "docs" / "pit.md"),
    "archive": (ARCHIVE_KEYS, REPO / "docs" / "operations.md"),
}
SHIPPED_SERVICE_CONFIGS = ("pit.yaml", "archive.yaml")


def documented() -> list[str]:
    """The station's keys: the rows before the services' section."""
    return ROW_KEY.findall(DOC.read_text(encoding="utf-8").split(SERVICES_HEADING, 1)[0])


def documented_for_services(section: str) -> list[str]:
    where = SERVICE_SECTIONS[section][1]
    page = where.read_text(encoding="utf-8")
    if where == DOC:
        page = page.split(SERVICES_HEADING, 1)[1]
    return [k for k in ROW_KEY.findall(page) if k.split(".")[0] == section]


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
    assert "docs/configuration.md" in (REPO / "station" / "live" / "config.py").read_text()


def test_the_services_section_is_there() -> None:
    assert SERVICES_HEADING in DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("section", list(SERVICE_SECTIONS))
def test_every_key_a_service_takes_is_documented_once_and_no_other(section: str) -> None:
    found = documented_for_services(section)
    assert len(found) == len(set(found)), f"{section}: a key is documented twice"
    taken = {f"{section}.{key}" for key in SERVICE_SECTIONS[section][0]}
    assert set(found) == taken, (f"missing: {sorted(taken - set(found))}; not taken: "
                                 f"{sorted(set(found) - taken)}")


@pytest.mark.parametrize("name", SHIPPED_SERVICE_CONFIGS)
def test_every_key_of_a_shipped_service_config_is_documented(name: str) -> None:
    shipped = yaml.safe_load((REPO / "config" / name).read_text(encoding="utf-8"))
    for section, values in shipped.items():
        assert section in SERVICE_SECTIONS, f"config/{name}: {section}: not documented"
        documented_keys = set(documented_for_services(section))
        for key in values:
            assert f"{section}.{key}" in documented_keys, f"config/{name}: {section}.{key}"
