"""Raw device traffic beside the recording: byte-exact, never overwritten, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.errors import StationError
from station.journal.rawtraffic import RawTraffic, raw_path, read_raw


def test_raw_path_sits_beside_the_recording() -> None:
    rec = Path("var/recordings/t1-20261201T000000Z-abc-1f2e3d.jsonl")
    assert raw_path(rec, "scanner") == Path(
        "var/recordings/t1-20261201T000000Z-abc-1f2e3d.scanner.raw.jsonl")
    assert raw_path(rec, "camera", ".avi").name.endswith(".camera.avi")


@given(st.lists(st.binary(min_size=1, max_size=300), max_size=20))
def test_every_chunk_comes_back_exactly(chunks: list[bytes]) -> None:
    import tempfile  # noqa: PLC0415 - hypothesis forbids function-scoped fixtures

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.scanner.raw.jsonl"
        raw = RawTraffic.create(path, "scanner")
        for i, chunk in enumerate(chunks):
            raw.write(chunk, 1767225700.0 + i / 8)
        raw.close()
        raw.write(b"after close", 0.0)  # a late chunk from a stopping driver is dropped
        back = list(read_raw(path))
        assert [c for _, _, c in back] == chunks
        assert all(src == "scanner" for _, src, _ in back)
        assert [t for t, _, _ in back] == [1767225700.0 + i / 8 for i in range(len(chunks))]


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "r.scanner.raw.jsonl"
    path.write_bytes(b"evidence\n")
    with pytest.raises(FileExistsError):
        RawTraffic.create(path, "scanner")
    assert path.read_bytes() == b"evidence\n"


def test_a_full_disk_is_logged_once_and_never_raises(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    # A device that is always full: every flush fails with ENOSPC, as a full disk does.
    full = Path("/dev/full").open("wb")  # noqa: SIM115 - closed by raw.close()
    raw = RawTraffic(full, tmp_path / "r.raw.jsonl", "scanner")
    for _ in range(3):
        raw.write(b"AS\r", 1.0)
    raw.close()
    assert [r.levelname for r in caplog.records].count("ERROR") == 1
    assert "cannot write" in caplog.text


def test_a_torn_last_line_is_skipped_and_a_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.raw.jsonl"
    path.write_bytes(b'{"t":1.0,"src":"scanner","hex":"41530d"}\n{"t":2.0,"src":"sc')
    assert list(read_raw(path)) == [(1.0, "scanner", b"AS\r")]
    path.write_bytes(b'{"t":1.0,"src":"scanner","hex":"zz"}\n{"t":2.0,"src":"s","hex":""}\n')
    with pytest.raises(StationError, match=r"line 1: not a raw traffic line"):
        list(read_raw(path))
    with pytest.raises(StationError, match="cannot read raw traffic"):
        list(read_raw(tmp_path / "missing"))
