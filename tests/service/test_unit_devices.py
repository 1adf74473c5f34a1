"""The unit's devices follow the config (issue 36): the shipped unit opens serial and video
devices only; ``station install-service`` adds a HID scanner's input or hidraw devices in a
drop-in only when the config's reader uses them, and takes it away when it no longer does."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from station.kinds.readers import DEVICES_DROPIN
from tests.service.test_install_check import station
from tests.service.test_unit import UNIT, analyze, clean, unit_root, verify

PROGRAM = "/opt/dealer-station/.venv/bin/station"


def install(root: Path, cwd: Path) -> str:
    done = station("install-service", "--root", str(root), "--exec-start", PROGRAM, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def set_reader(config: Path, reader: dict[str, object]) -> None:
    data = yaml.safe_load(config.read_text())
    data["reader"] = reader
    data["display"] = {"type": "web"}  # a live reader needs the dealer's buttons
    config.write_text(yaml.safe_dump(data))


def test_the_shipped_unit_opens_no_input_or_hidraw_device() -> None:
    allowed = [line for line in UNIT.read_text().splitlines() if line.startswith("DeviceAllow")]
    assert allowed and not [line for line in allowed if "input" in line or "hidraw" in line]


def test_the_drop_in_follows_the_configs_reader(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    dropin = root / DEVICES_DROPIN
    config = root / "etc/dealer-station/station.yaml"
    out = install(root, tmp_path)
    assert not dropin.exists() and f"unchanged {dropin} (none needed" in out
    assert "run station install-service again" in out

    set_reader(config, {"type": "hid", "device": "/dev/input/by-id/usb-X-event-kbd"})
    out = install(root, tmp_path)
    assert f"wrote     {dropin}" in out
    lines = dropin.read_text().splitlines()
    assert "[Service]" in lines and [x for x in lines if x.startswith("DeviceAllow")] == [
        "DeviceAllow=char-input r"]

    set_reader(config, {"type": "hid", "usb_id": "0c2e:0b61", "mode": "pos"})
    out = install(root, tmp_path)
    assert f"replaced  {dropin}" in out
    assert [x for x in dropin.read_text().splitlines() if x.startswith("DeviceAllow")] == [
        "DeviceAllow=char-hidraw r"]

    # A config naming the unit's credentials is read without them (none exist yet).
    data = yaml.safe_load(config.read_text())
    data["upstream"]["signing_key_file"] = "${CREDENTIALS_DIRECTORY}/signing-key"
    config.write_text(yaml.safe_dump(data))
    assert f"unchanged {dropin}" in install(root, tmp_path)

    set_reader(config, {"type": "serial", "port": "/dev/dealer-scanner"})
    out = install(root, tmp_path)
    assert f"removed   {dropin}" in out and not dropin.exists()

    config.write_text("reader: {type: hid}\n")  # does not load: nothing decided on it
    out = install(root, tmp_path)
    assert f"skipped   {dropin}" in out and "does not load" in out and not dropin.exists()


def test_the_unit_with_the_drop_in_passes_verify(tmp_path: Path) -> None:
    tool = analyze()
    root = unit_root(tmp_path, UNIT.read_text().replace(
        "/opt/dealer-station/.venv/bin/station", PROGRAM))
    work = tmp_path / "install"
    work.mkdir()
    install(work, tmp_path)
    set_reader(work / "etc/dealer-station/station.yaml",
               {"type": "hid", "device": "/dev/hidraw0", "mode": "pos"})
    install(work, tmp_path)
    (root / DEVICES_DROPIN).parent.mkdir(parents=True)
    shutil.copy(work / DEVICES_DROPIN, root / DEVICES_DROPIN)
    done = verify(tool, root)
    assert clean(done), done.stderr
    # The check can fail: a drop-in with a key systemd does not know is reported.
    (root / DEVICES_DROPIN).write_text("[Service]\nDeviceAlow=char-hidraw r\n")
    assert not clean(verify(tool, root))
