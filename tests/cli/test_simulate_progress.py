"""``simulate --progress`` (issue 35): a bar on stderr, only when asked or on a terminal;
stdout (the results with ``--out -``) never holds any of it."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from station.cli import main
from tests.conftest import REPO


def test_the_bar_goes_to_stderr_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--shoes", "3", "--progress", "--out", "-"]) == 0
    out = capsys.readouterr()
    assert "] 3/3 shoes" in out.err and "rounds/s" in out.err
    assert all(json.loads(line)["round"] >= 1 for line in out.out.splitlines())


def test_no_bar_unless_asked_when_stderr_is_not_a_terminal(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--shoes", "2"]) == 0
    assert "shoes," not in capsys.readouterr().err


def test_a_terminal_gets_the_bar_without_asking() -> None:
    main_fd, child_fd = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "station.cli", "simulate", "--shoes", "2"],
                              cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=child_fd, timeout=60, check=True)
        assert proc.returncode == 0
        os.close(child_fd)
        child_fd = -1
        seen = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the pty's other end is closed: all is read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if child_fd >= 0:
            os.close(child_fd)
        os.close(main_fd)
    assert b"] 2/2 shoes" in seen
