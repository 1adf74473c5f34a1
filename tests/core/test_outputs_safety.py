"""No command destroys a file before refusing: outputs are checked first, replaced last."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from station.cli import main
from tests.conftest import REPO

SHORT = str(REPO / "tests" / "shoes" / "short.txt")
RECORDING = REPO / "tests" / "recordings" / "clean_short_shoe.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def snapshot(*paths: Path) -> list[tuple[bytes, float]]:
    return [(p.read_bytes(), p.stat().st_mtime) for p in paths]


def test_replay_refuses_to_write_over_its_own_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "evidence.jsonl"
    shutil.copy(RECORDING, rec)
    before = snapshot(rec)
    code, err = run(capsys, "replay", str(rec), "--out", str(rec))
    assert code == 2 and "is an input of this command" in err and str(rec) in err
    assert snapshot(rec) == before


def test_replay_refuses_a_hard_link_to_its_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "evidence.jsonl"
    shutil.copy(RECORDING, rec)
    os.link(rec, tmp_path / "alias.jsonl")
    code, err = run(capsys, "replay", str(rec), "--out", str(tmp_path / "alias.jsonl"))
    assert code == 2 and "is an input" in err
    assert rec.read_bytes() == RECORDING.read_bytes()


def test_an_unwritable_record_leaves_out_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keep = tmp_path / "K.jsonl"
    keep.write_text("rounds of yesterday\n")
    before = snapshot(keep)
    code, err = run(capsys, "simulate", "--shoe-file", SHORT, "--out", str(keep),
                    "--record", str(tmp_path / "missing" / "rec.jsonl"))
    assert code == 2 and "--record" in err and "does not exist" in err
    assert snapshot(keep) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["K.jsonl"]  # no temporary left


def test_an_output_that_cannot_be_created_leaves_the_others_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keep = tmp_path / "K.jsonl"
    keep.write_text("rounds of yesterday\n")
    (tmp_path / "dir").mkdir()
    code, err = run(capsys, "simulate", "--shoe-file", SHORT, "--out", str(keep),
                    "--record", str(tmp_path / "dir"))
    assert code == 2 and "is a directory" in err
    assert keep.read_text() == "rounds of yesterday\n"


def test_two_outputs_may_not_share_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = tmp_path / "X"
    code, err = run(capsys, "simulate", "--shoe-file", SHORT, "--out", str(x), "--record",
                    str(tmp_path / "." / "X"))
    assert code == 2 and "--out writes the same file" in err
    assert not x.exists()


def test_only_one_output_may_be_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(capsys, "simulate", "--shoe-file", SHORT, "--out", "-",
                    "--announcements", "-")
    assert code == 2 and "already writes to stdout" in err


def test_a_shoe_file_is_never_an_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoe = tmp_path / "shoe.txt"
    shutil.copy(SHORT, shoe)
    code, err = run(capsys, "simulate", "--shoe-file", str(shoe), "--record", str(shoe))
    assert code == 2 and "is an input" in err
    assert shoe.read_text() == Path(SHORT).read_text()


def test_a_replay_that_fails_half_way_keeps_the_previous_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "r.jsonl"
    lines = RECORDING.read_text().splitlines()
    rec.write_text("\n".join([*lines[:20], '{"t": 1, "e": "bogus"}', *lines[20:]]) + "\n")
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    code, err = run(capsys, "replay", str(rec), "--out", str(out))
    assert code == 2 and "line 21" in err
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "r.jsonl"]


def test_a_successful_run_replaces_the_output_and_dev_null_is_written_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    code, _ = run(capsys, "simulate", "--shoe-file", SHORT, "--out", str(out),
                  "--record", os.devnull)
    assert code == 0
    assert out.read_text().count('"status":"complete"') == 4
    assert Path(os.devnull).is_char_device()  # not replaced by a regular file
