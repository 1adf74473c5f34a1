"""The first reading of a recording (refuse a bad one whole) accepts and refuses exactly
what reading it line by line does, with the same message (issue 13 made it read blocks).

The reference below is how every line used to be checked: each line after the header,
as ``bounded_lines`` yields it, through ``_event``. Seeded mutations of real recordings, at
block sizes that cut lines anywhere, must get the same verdict from both.
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.errors import InputFileError
from station.game.limits import MAX_LINE_BYTES
from station.wire import recording
from station.wire.recording import _event, _lines, event_to_json, read_recording
from tests.conftest import REPO
from tests.fuzz.mutate import mutate
from tests.sampling import examples

SOURCES = sorted((REPO / "tests" / "recordings").glob("*.jsonl"))
SOURCES = [p for p in SOURCES if not p.name.endswith(".results.jsonl")]


def reference(path: Path) -> str:
    """'ok', or the error, checking line by line as before."""
    try:
        read_recording_header_only(path)
        with path.open("rb") as stream:
            lines = _lines(stream, str(path))
            next(lines, None)
            for line_no, line in lines:
                _event(line, line_no, str(path))
    except InputFileError as exc:
        return str(exc)
    return "ok"


def read_recording_header_only(path: Path) -> None:
    # The header is read as before; only the lines after it are checked in blocks now.
    saved = recording._check_events
    recording._check_events = lambda *_: None
    try:
        read_recording(path)
    finally:
        recording._check_events = saved


def verdict(path: Path) -> str:
    try:
        read_recording(path)
    except InputFileError as exc:
        return str(exc)
    return "ok"


@pytest.mark.parametrize("block", [1, 7, 64, 1000, 1 << 20])
def test_blocks_of_any_size_get_the_line_by_line_verdict(block: int, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(recording, "_BLOCK_BYTES", block)
    rng = random.Random(block)
    texts = [p.read_bytes() for p in SOURCES]
    path = tmp_path / "rec.jsonl"
    seen = set()
    for n in range(300):
        data = texts[n % len(texts)]
        if n % 5:
            data = mutate(rng, data, texts)
        path.write_bytes(data)
        expected = reference(path)
        assert verdict(path) == expected, (n, data[:300])
        seen.add(expected == "ok")
    assert seen == {True, False}


def test_a_line_too_long_is_refused_at_its_number(tmp_path: Path) -> None:
    text = SOURCES[0].read_bytes().splitlines(keepends=True)
    text.insert(3, b" " * (MAX_LINE_BYTES + 5) + b"\n")
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"".join(text))
    assert verdict(path) == reference(path)
    assert "line 4: longer than 1024 KiB" in verdict(path)


@pytest.mark.parametrize("line", [
    b'{"t":4102444800.0,"e":"card","code":"AS","src":"a"}\n',  # 2100: refused
    b'{"t":9999999999.5,"e":"card","code":"AS","src":"a"}\n',
    b'{"t":4102444799.5,"e":"card","code":"AS","src":"a"}\n',  # just before: accepted
    b'{"t":0.0,"e":"cut","src":"a"}\n',
    b'{"t":1.5,"e":"card","code":"A\\u0000","src":"a"}\n',
    b'{"t":1.5,"e":"card","code":"A\x01","src":"a"}\n',
    b'{"t":1.5,"e":"card","code":"\xc3\xa9","src":"a"}\n',
    b'{"t":1.5,"e":"card","code":"\xff","src":"a"}\n',
    b'{"t":1.5,"e":"card","code":"AS","src":"a","extra":1}\n',
    b'{"t":-1.5,"e":"card","code":"AS","src":"a"}\n',
    b'{"t":1.5,"e":"teleport","src":"a"}\n',
    b'{"t":1.5,"e":"lost","src":"a"}\n',
])
def test_edge_lines_get_the_line_by_line_verdict(line: bytes, tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(SOURCES[0].read_bytes() + line)
    assert verdict(path) == reference(path)
    assert (verdict(path) == "ok") == (b"4102444799" in line or b'"cut"' in line
                                       or b"\xc3\xa9" in line or b"extra" in line
                                       or b"\\u0000" in line)


def reference_events(path: Path) -> list[object]:
    """Every event line by line, then the error that stops the reading, if any."""
    out: list[object] = []
    try:
        with path.open("rb") as stream:
            lines = _lines(stream, str(path))
            next(lines, None)
            for line_no, line in lines:
                out.append(_event(line, line_no, str(path)))
    except InputFileError as exc:
        out.append(str(exc))
    return out


def block_events(path: Path) -> list[object]:
    out: list[object] = []
    try:
        out.extend(recording._events(path, str(path)))
    except InputFileError as exc:
        out.append(str(exc))
    return out


@pytest.mark.parametrize("block", [1, 7, 64, 1000, 1 << 20])
def test_the_second_reading_yields_the_line_by_line_events(block: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """What replay applies: the same events, in order, or the same error at the same line
    (a recording changed on disk after its first reading)."""
    monkeypatch.setattr(recording, "_BLOCK_BYTES", block)
    rng = random.Random(block + 1)
    texts = [p.read_bytes() for p in SOURCES]
    path = tmp_path / "rec.jsonl"
    kinds: set[str] = set()
    for n in range(200):
        data = texts[n % len(texts)]
        if n % 4:
            data = mutate(rng, data, texts)
        path.write_bytes(data)
        expected = reference_events(path)
        assert block_events(path) == expected, (n, data[:300])
        kinds.update(type(x).__name__ for x in expected)
    assert {"CardRead", "Command", "str"} <= kinds


def test_a_timestamp_with_a_leading_zero_is_refused_by_line_not_a_traceback(
        tmp_path: Path) -> None:
    """The block reader's pattern once took ``"t":0767...`` (JSON forbids the leading zero)
    and handed it to orjson, which raised out of replay."""
    good = (REPO / "tests" / "recordings" / "clean_short_shoe.jsonl").read_bytes()
    head, first, rest = good.split(b"\n", 2)
    bad = first.replace(b'"t":17', b'"t":07', 1)  # ten digits, as a station writes them
    assert bad != first
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"\n".join([head, bad, rest]))
    with pytest.raises(InputFileError, match="line 2: bad event"):
        for _ in read_recording(path).events:
            pass


# --- the plain blocks, read by splitting each line at its quotes (issue 13) -------------------
_PLAIN_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                             blacklist_characters='"\\'), max_size=40)


@st.composite
def _recorded_events(draw: st.DrawFn) -> object:
    from drivers import events as ev  # noqa: PLC0415

    # The timestamps a station writes (from 1 s, orjson spells each with at most 17 digits
    # after the point and no exponent, as the pattern takes them; smaller ones go line by
    # line, as tests above check).
    t = draw(st.floats(1.0, 3.9e9) | st.sampled_from(
        [0.0, 0.5, 1.5, 1_800_000_000.123456789, 3_999_999_999.999999]))
    a, b = draw(_PLAIN_TEXT), draw(_PLAIN_TEXT)
    return draw(st.sampled_from([
        ev.CardRead(a, b, t), ev.Command(a, b, t), ev.CutCardSeen(a, t),
        ev.DeviceLost(a, b, t), ev.DeviceRestored(a, t), ev.TimerExpired(a, t)]))


@settings(max_examples=examples(400), deadline=None, derandomize=True)
@given(st.lists(_recorded_events(), min_size=1, max_size=30))
def test_a_plain_block_reads_to_the_events_the_json_parser_reads(events: list[object]) -> None:
    """Lines as the recorder writes them (orjson, any event kind, any plain text, any
    timestamp): split at their quotes, they give the events orjson and the line-by-line
    checks give, timestamps to the last bit."""
    lines = [orjson.dumps(event_to_json(e)) + b"\n" for e in events]  # type: ignore[arg-type]
    block = b"".join(lines)
    assert recording._PLAIN_EVENTS.fullmatch(block) is not None, block
    got = list(recording._plain_events(block))
    assert got == [_event(line, n, "rec") for n, line in enumerate(lines, 2)] == events
    assert [e.ts.hex() for e in got] == [e.ts.hex() for e in events]  # type: ignore[attr-defined]


def test_the_plain_reading_meets_every_event_kind_in_the_recordings() -> None:
    """The tests' recordings hold every kind: each read both ways, event for event."""
    kinds: set[str] = set()
    for path in SOURCES:
        data = path.read_bytes()
        body = data[data.index(b"\n") + 1:]
        if recording._PLAIN_EVENTS.fullmatch(body) is None:
            continue
        got = list(recording._plain_events(body))
        assert got == [_event(x + b"\n", 2, "rec") for x in body.split(b"\n")[:-1]], path
        kinds.update(type(e).__name__ for e in got)
    assert kinds >= {"CardRead", "Command", "CutCardSeen", "TimerExpired"}


@pytest.mark.parametrize("t", [
    b"0.0", b"0.00000000000000001", b"1.5", b"1800000000.12345678901234567",
    b"3999999999.99999999999999999", b"999999999.00000000000000001", b"1234567890.1",
    b"2147483648.99999999999999995",
])
def test_long_timestamps_read_as_orjson_reads_them(t: bytes) -> None:
    """Timestamps with as many digits as the pattern takes (10 before the point, 17 after):
    ``float`` of the text is orjson's double, to the last bit, for each event kind."""
    lines = [b'{"t":T,"e":"card","code":"AS","src":"shoe"}\n',
             b'{"t":T,"e":"lost","src":"shoe","reason":"no answer"}\n',
             b'{"t":T,"e":"restored","src":"shoe"}\n',
             b'{"t":T,"e":"cmd","action":"resume","actor":"sup"}\n']
    block = b"".join(x.replace(b"T", t) for x in lines)
    assert recording._PLAIN_EVENTS.fullmatch(block) is not None
    got = recording._plain_events(block)
    want = [_event(x.replace(b"T", t), 2, "rec") for x in lines]
    assert got == want
    assert {e.ts.hex() for e in got} == {orjson.loads(t).hex()}
    assert [type(e).__name__ for e in got] == ["CardRead", "DeviceLost", "DeviceRestored",
                                               "Command"]
