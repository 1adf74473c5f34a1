"""Build the station's wheel from a copy of the checkout and install it into a fresh venv.

Offline and fast: the wheel is built with this venv's setuptools (no build isolation, no
index), so the checkout is never touched; it is installed without dependencies, and the
fresh venv borrows them from this one's site-packages."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

from tests.conftest import REPO

SOURCES = ("station", "drivers", "config", "systemd", "pyproject.toml", "README.md")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # Without PYTHONPATH: a checkout on it would hide the installed wheel.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False, env=env)


def build_wheel(tmp_path: Path) -> Path:
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
    return wheel


def install(wheel: Path, env: Path) -> Path:
    """A new venv at ``env`` with ``wheel`` installed; returns its site-packages."""
    venv.create(env, with_pip=False)
    (purelib,) = (env / "lib").glob("python3*/site-packages")
    # Dependencies from this venv; the station itself only from the wheel.
    (purelib / "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    installed = run(sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
                    "install", "--no-deps", "--no-index", "-q", str(wheel), cwd=env.parent)
    assert installed.returncode == 0, installed.stderr[-3000:]
    return purelib
