"""Command-line words the fuzzer found crashing a command (each a regression test)."""

from __future__ import annotations

import pytest

from station.cli import main


@pytest.mark.parametrize("argv", [["keygen", "\x00"], ["journal", "verify", "a\x00b"],
                                  ["replay", "a\x00b"], ["simulate", "--out", "x\x00"]])
def test_a_nul_byte_in_any_argument_is_refused_by_position(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("station: error: argument ") and "NUL byte" in err


@pytest.mark.parametrize("argv", [["journal", "verify", ""], ["journal", "export", ""],
                                  ["journal", "export", "", "--out", "x.jsonl"]])
def test_a_journal_path_that_names_no_file_is_refused(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "names a folder, not a journal file" in capsys.readouterr().err
