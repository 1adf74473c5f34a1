"""OpenCV and the decoders are an optional extra: a serial or simulated table never loads them,
and a missing extra fails at selection with the fix (STYLE.md: lazy registry by type)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.core.test_layering import imports

CAMERA_MODULES = {"cv2", "numpy", "zxingcpp", "pyzbar"}


def run(code: str, env_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if env_path is not None:
        env = {**os.environ, "PYTHONPATH": f"{env_path}{os.pathsep}{REPO}"}
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env=env, check=False)


def test_drivers_and_the_station_never_import_opencv() -> None:
    code = ("import sys, drivers, drivers.serial_scanner, drivers.sim_serial, "
            "drivers.simulated, drivers.cut_card, drivers.reconnect, drivers.codes, "
            "station.cli, station.live.daemon, station.live.assembly, station.live.config\n"
            f"print(sorted(m for m in {sorted(CAMERA_MODULES)!r} if m in sys.modules))")
    out = run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_choosing_the_camera_loads_it() -> None:
    out = run("import sys, drivers.camera; print('cv2' in sys.modules)")
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


def test_without_opencv_the_camera_says_to_install_the_extra(tmp_path: Path) -> None:
    # A cv2 that cannot be imported, ahead of the real one on the path.
    (tmp_path / "cv2").mkdir()
    (tmp_path / "cv2" / "__init__.py").write_text("raise ImportError('no OpenCV here')\n")
    code = ("import drivers.serial_scanner\n"  # a serial table is unaffected
            "try:\n"
            "    import drivers.camera\n"
            "except ImportError as exc:\n"
            "    print(type(exc).__name__, '|', exc)\n")
    out = run(code, env_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("CameraUnavailable |")
    assert "pip install 'dealer-station[camera]'" in out.stdout


def test_without_libzbar_pyzbar_says_to_install_it(tmp_path: Path) -> None:
    (tmp_path / "pyzbar").mkdir()
    (tmp_path / "pyzbar" / "__init__.py").write_text("")
    (tmp_path / "pyzbar" / "pyzbar.py").write_text(
        "raise ImportError('Unable to find zbar shared library')\n")
    code = ("from drivers.camera import CameraReader, CameraUnavailable\n"
            "CameraReader('x.avi')\n"  # zxing, the default, needs no zbar
            "try:\n"
            "    CameraReader('x.avi', decoder='pyzbar')\n"
            "except CameraUnavailable as exc:\n"
            "    print(exc)\n")
    out = run(code, env_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "libzbar0" in out.stdout and "--no-install-recommends" in out.stdout


CAMERA_FILES = [*sorted((REPO / "drivers" / "camera").glob("*.py")),
                REPO / "drivers" / "sim_camera.py"]


@pytest.mark.parametrize("path", CAMERA_FILES, ids=lambda p: p.name)
def test_the_camera_never_imports_station(path: Path) -> None:
    bad = {n for n in imports(path) if n == "station" or n.startswith("station.")}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", [REPO / "drivers" / "camera" / "agreement.py"],
                         ids=lambda p: p.name)
def test_the_agreement_rule_is_pure(path: Path) -> None:
    io = {"os", "sys", "io", "cv2", "numpy", "threading", "time", "logging", "pathlib"}
    assert not {n.split(".")[0] for n in imports(path)} & io
