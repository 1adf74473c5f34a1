"""The built wheel, installed in a fresh venv: the station command with its default config,
paytables and unit files as package data. Built offline from a copy of the checkout (so the
checkout is never touched), with this venv's setuptools, and installed without dependencies
(the fresh venv borrows them from this one's site-packages)."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

from station import __version__
from tests.conftest import REPO

SOURCES = ("station", "drivers", "config", "systemd", "pyproject.toml", "README.md")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # Without PYTHONPATH: a checkout on it would hide the installed wheel.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False, env=env)


def test_the_wheel_installs_station_with_its_configs_and_unit_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy(REPO / name, src / name)
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                "--no-index", "-q", "-w", str(tmp_path / "dist"), str(src), cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("dealer_station-*.whl")
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    (purelib,) = (env / "lib").glob("python3*/site-packages")
    # Dependencies from this venv; the station itself only from the wheel.
    (purelib / "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    installed = run(sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
                    "install", "--no-deps", "--no-index", "-q", str(wheel), cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"  # no config/ in the working directory
    elsewhere.mkdir()
    station = str(env / "bin" / "station")
    version = run(station, "--version", cwd=elsewhere)
    assert version.stdout.strip() == f"station {__version__}", version.stderr
    where = run(str(env / "bin" / "python"), "-c",
                "import station; from station.config import default_config_path, load_config;"
                "p = default_config_path(); c = load_config(p);"
                "print(station.__file__); print(p); print(c.paytable.path)", cwd=elsewhere)
    assert where.returncode == 0, where.stderr
    module, config, paytable = where.stdout.split()
    assert module.startswith(str(purelib))  # the wheel's copy, not the checkout
    assert config.startswith(str(purelib)) and config.endswith("shipped/config/station.yaml")
    assert Path(paytable).is_file()
    root = tmp_path / "root"
    root.mkdir()
    done = run(station, "install-service", "--root", str(root), cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    unit = (root / "etc/systemd/system/dealer-station.service").read_text()
    assert f"ExecStart={station} run -c /etc/dealer-station/station.yaml" in unit
    assert (root / "etc/udev/rules.d/99-dealer-station.rules").is_file()
    assert (root / "etc/dealer-station/paytables/seed003.yaml").is_file()
