"""The udev rules offline (udev cannot run in the test container, docs/testing.md): every
device they hand over goes to a group the unit has, and the HID scanner's keyboard node is
kept out of the desktop (issue 36)."""

from __future__ import annotations

import re

from tests.conftest import REPO

RULES = REPO / "systemd" / "99-dealer-station.rules"
UNIT = REPO / "systemd" / "dealer-station.service"


def rules() -> list[str]:
    return [line for line in RULES.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def test_every_rule_gives_its_device_to_a_group_of_the_unit() -> None:
    groups = set(re.search(r"^SupplementaryGroups=(.+)$", UNIT.read_text(), re.M)
                 .group(1).split())  # type: ignore[union-attr]
    for line in rules():
        group = re.search(r'GROUP="([^"]+)"', line)
        assert group and group.group(1) in groups, line
        assert 'ATTRS{serial}=="CHANGE-ME' in line or "CHANGE-ME" in line, line


def test_the_hid_scanner_rules_keep_its_keys_out_of_the_desktop() -> None:
    (kbd,) = [x for x in rules() if 'SUBSYSTEM=="input"' in x]
    assert 'KERNEL=="event*"' in kbd and 'ENV{ID_INPUT_KEYBOARD}=="1"' in kbd
    assert 'TAG-="seat"' in kbd and 'ENV{LIBINPUT_IGNORE_DEVICE}="1"' in kbd
    assert 'MODE="0640"' in kbd and 'SYMLINK+="dealer-scanner-kbd"' in kbd
    (pos,) = [x for x in rules() if 'SUBSYSTEM=="hidraw"' in x]
    assert 'MODE="0640"' in pos and 'SYMLINK+="dealer-scanner-pos"' in pos
