"""``station install-service --service NAME`` for every service of the registry
(station.live.service.install.SERVICES): its unit runs the right command on the config it
installs, the skeleton loads as that service's config, and the operator's config is kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from station.live.config import load_config
from station.live.service.install import SERVICES
from station.services.archive.config import load_archive_config
from station.services.pit.config import load_pit_config
from tests.conftest import REPO
from tests.service.test_install_check import station

PROGRAM = "/opt/dealer-station/.venv/bin/station"
# What each service's unit must run, after the program: its command and its config.
LOADERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "station": ("run", load_config),
    "pit": ("pit", load_pit_config),
    "archive": ("archive", load_archive_config),
}


def test_every_shipped_unit_is_a_service_of_the_registry() -> None:
    shipped = {p.name for p in (REPO / "systemd").glob("*.service")}
    assert shipped == {s.unit for s in SERVICES.values()}
    assert set(LOADERS) == set(SERVICES)


@pytest.mark.parametrize("name", list(SERVICES))
def test_install_service_puts_the_services_unit_and_config_in_place(tmp_path: Path,
                                                                    name: str) -> None:
    service = SERVICES[name]
    root = tmp_path / "root"
    root.mkdir()
    done = station("install-service", "--service", name, "--root", str(root),
                   "--exec-start", PROGRAM, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    unit = root / "etc/systemd/system" / service.unit
    config = root / "etc" / service.config_dir / service.skeleton
    assert f"wrote     {unit}" in done.stdout and f"wrote     {config}" in done.stdout
    text = unit.read_text()
    command, load = LOADERS[name]
    run = f"{PROGRAM} {command} -c /{config.relative_to(root)}"
    assert re.search(rf"^ExecStart={re.escape(run)}$", text, re.M), text
    assert f"the unit runs: {run}" in done.stdout
    assert f"ConfigurationDirectory={service.config_dir}\n" in text
    assert (root / "etc" / service.config_dir / "credentials").stat().st_mode & 0o777 == 0o700
    # The skeleton is a valid config of that service as installed.
    load(config)
    assert f"systemctl daemon-reload && systemctl enable --now {service.unit[:-8]}" \
        in done.stdout
    # Only this service's files: no other unit.
    assert {p.name for p in (root / "etc/systemd/system").iterdir()} == {service.unit}
    # Again after the operator's edit: theirs kept, ours unchanged.
    config.write_text(config.read_text() + "# edited\n")
    again = station("install-service", "--service", name, "--root", str(root),
                    "--exec-start", PROGRAM, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"kept      {config} (yours; not overwritten)" in again.stdout
    assert f"unchanged {unit}" in again.stdout
    assert config.read_text().endswith("# edited\n")


def test_the_pits_and_archives_keys_folder_is_readable_by_the_unit(tmp_path: Path) -> None:
    for name in ("pit", "archive"):
        done = station("install-service", "--service", name, "--root", str(tmp_path),
                       cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        keys = tmp_path / "etc" / SERVICES[name].config_dir / "keys"
        assert keys.stat().st_mode & 0o777 == 0o755
        assert f"station keygen {tmp_path}/etc/{SERVICES[name].config_dir}/credentials" \
            in done.stdout


def test_an_unknown_service_is_refused_naming_the_choices(tmp_path: Path) -> None:
    done = station("install-service", "--service", "pitt", "--root", str(tmp_path),
                   cwd=tmp_path)
    assert done.returncode == 2 and "pitt" in done.stderr and "pit" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "etc").exists()
