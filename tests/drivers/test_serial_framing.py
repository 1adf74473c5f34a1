"""The serial scanner's frame parser and code format (issue 9), without any port.

The property tests build a stream from known good and bad frames, cut it at random places
and check the parser gives back exactly one result per frame: the card for a good one, one
error for a bad one. Random bytes and seeded mutations check that nothing escapes and that
the result never depends on how the bytes were split.
"""

from __future__ import annotations

import logging
import random
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codes import BadgeCode, CardCode, CodeFormat, CutCode, UnknownCode
from drivers.framing import (
    CONTROL,
    EMPTY,
    FRAMINGS,
    NO_PREFIX,
    NO_SUFFIX,
    NOISE,
    NOT_UTF8,
    TOO_LONG,
    UNFINISHED,
    Frame,
    FrameError,
    FrameParser,
    Parsed,
    show_bytes,
)
from drivers.reconnect import Backoff, LogOnce
from drivers.serial_scanner import error_code
from station.game.cards import try_parse_card
from tests.sampling import examples

MAX = 16


def feed_split(parser: FrameParser, data: bytes, cuts: list[int]) -> list[Parsed]:
    out: list[Parsed] = []
    prev = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        out += parser.feed(data[prev:cut])
        prev = cut
    return out


def feed_bytewise(parser: FrameParser, data: bytes) -> list[Parsed]:
    return [item for i in range(len(data)) for item in parser.feed(data[i:i + 1])]


# --- fixed cases -----------------------------------------------------------------------------
def test_cr_ends_a_frame_at_once() -> None:
    p = FrameParser("cr")
    assert p.feed(b"AS") == []
    assert p.feed(b"\r") == [Frame("AS", b"AS")]  # no waiting for an LF
    assert p.feed(b"\nKD\r\n") == [Frame("KD", b"KD")]  # CR+LF scanners read cleanly
    assert p.feed(b"\nQH\r") == [FrameError(CONTROL, b"\nQH")]  # a stray LF is not dropped


@pytest.mark.parametrize("stream", [b"AS\rKD\r", b"AS\nKD\n", b"AS\r\nKD\r\n", b"AS\rKD\n",
                                    b"AS\nKD\r\n", b"AS\r\nKD\r"])
def test_crlf_takes_either_ending_and_never_glues_two_codes(stream: bytes) -> None:
    assert [f.payload for f in FrameParser("crlf").feed(stream)  # type: ignore[union-attr]
            ] == ["AS", "KD"]


def test_crlf_lf_then_cr_is_an_empty_frame() -> None:
    assert FrameParser("crlf").feed(b"AS\n\r") == [Frame("AS", b"AS"), FrameError(EMPTY, b"")]


def test_lf_drops_the_cr_of_crlf_and_tab_frames() -> None:
    assert FrameParser("lf").feed(b"AS\r\nKD\n") == [Frame("AS", b"AS"), Frame("KD", b"KD")]
    assert FrameParser("lf").feed(b"A\rS\n") == [FrameError(CONTROL, b"A\rS")]
    assert FrameParser("tab").feed(b"AS\tKD\t\t") == [Frame("AS", b"AS"), Frame("KD", b"KD"),
                                                       FrameError(EMPTY, b"")]


def test_stx_etx() -> None:
    p = FrameParser("stx_etx")
    assert p.feed(b"\x02AS\x03\r\n\x02KD\x03") == [Frame("AS", b"AS"), Frame("KD", b"KD")]
    assert p.feed(b"zz\x02QH\x03") == [FrameError(NOISE, b"zz"), Frame("QH", b"QH")]
    assert p.feed(b"\x02Q\x02TD\x03") == [FrameError(UNFINISHED, b"\x02Q"), Frame("TD", b"TD")]
    assert p.feed(b"\x02\x03") == [FrameError(EMPTY, b"")]
    assert p.feed(b"x" * (MAX * 4 + 1)) == [FrameError(NOISE, b"x" * 65)]  # noise is not silent


def test_an_over_long_frame_is_one_error_and_the_parser_resynchronises() -> None:
    p = FrameParser("cr", max_len=4)
    out = p.feed(b"ABCDEFGHIJ")
    assert out == [FrameError(TOO_LONG, b"ABCDE")]  # reported as soon as it is too long
    assert p.feed(b"KLMNOP\rAS\r") == [Frame("AS", b"AS")]
    s = FrameParser("stx_etx", max_len=4)
    assert s.feed(b"\x02ABCDEFG\x03\x02AS\x03") == [FrameError(TOO_LONG, b"ABCDE"),
                                                    Frame("AS", b"AS")]


def test_bad_bytes_become_errors_with_the_raw_bytes() -> None:
    p = FrameParser("cr")
    assert p.feed(b"A\xffS\r") == [FrameError(NOT_UTF8, b"A\xffS")]
    assert p.feed(b"A\x1bS\r") == [FrameError(CONTROL, b"A\x1bS")]
    assert p.feed("A\u200bS\r".encode()) == [FrameError(CONTROL, "A\u200bS".encode())]
    assert p.feed(b"\r") == [FrameError(EMPTY, b"")]
    assert p.feed("Ä\r".encode()) == [Frame("Ä", "Ä".encode())]  # text, for the code format


def test_prefix_and_suffix() -> None:
    p = FrameParser("cr", prefix="]C0", suffix="#")
    assert p.feed(b"]C0AS#\r") == [Frame("AS", b"]C0AS#")]
    assert p.feed(b"AS#\r") == [FrameError(NO_PREFIX, b"AS#")]
    assert p.feed(b"]C0AS\r") == [FrameError(NO_SUFFIX, b"]C0AS")]
    assert p.feed(b"]C0#\r") == [FrameError(EMPTY, b"]C0#")]


def test_reset_drops_a_partial_frame() -> None:
    p = FrameParser("cr")
    p.feed(b"Q")
    assert p.pending == b"Q"
    p.reset()
    assert p.pending == b""
    assert p.feed(b"H\r") == [Frame("H", b"H")]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="framing must be one of"):
        FrameParser("etx")
    with pytest.raises(ValueError, match="max_len"):
        FrameParser("cr", max_len=0)


def test_show_bytes_is_printable_and_bounded() -> None:
    assert show_bytes(b"A\\\xff\x00z") == "A\\x5c\\xff\\x00z"
    assert show_bytes(b"x" * 100) == "x" * 64 + "..."


# --- the code format -------------------------------------------------------------------------
def test_default_code_format_normalises_todays_forms() -> None:
    f = CodeFormat()
    assert f.classify("AS") == CardCode("AS", "AS")
    assert f.classify("td") == CardCode("TD", "td")
    assert f.classify("10H") == CardCode("TH", "10H")
    assert f.classify(" qh ") == CardCode("QH", " qh ")
    for bad in ["", "1S", "AX", "ASD", "A S", "11H", "0H", "CUT", "ÄS"]:
        assert f.classify(bad) == UnknownCode(bad), bad


# Issue 18, defect 6: Unicode case folding and white space read look-alikes as codes.
@pytest.mark.parametrize("payload", ["A\u017f", "10\u017f", "\u212aH", "\u00a0AS",
                                     "AS\u3000", "\u2009QH\u2009", "\uff21\uff33"])
def test_a_non_ascii_look_alike_is_never_a_card_cut_card_or_badge(payload: str) -> None:
    assert CodeFormat().classify(payload) == UnknownCode(payload)
    special = CodeFormat(cut_codes=["CUT"], badge_codes=["SUP-0042"])
    for near in [payload, "CU\u0162", "\u00a0CUT", "SUP-0042\u00a0", "\u017fUP-0042"]:
        assert special.classify(near) == UnknownCode(near), near


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from("A23456789TJQK10SHDCshdc -CUTcut"),
                                  st.sampled_from("\u017f\u212a\u0131\u00a0\u3000\u2009"),
                                  st.characters(min_codepoint=0x80)), max_size=8)
       .filter(lambda text: not text.isascii()))
def test_no_payload_with_a_non_ascii_character_is_a_code(payload: str) -> None:
    f = CodeFormat(cut_codes=["CUT"], badge_codes=["SUP-0042"])
    assert f.classify(payload) == UnknownCode(payload)
    loose = CodeFormat(r"(?P<rank>\w+)\W*(?P<suit>\w+)", ignore_case=True)
    assert loose.classify(payload) == UnknownCode(payload)


def test_cut_and_badge_codes_and_a_custom_format() -> None:
    f = CodeFormat(r"CARD-(?P<suit>[SHDC])(?P<rank>[A2-9TJQK])", cut_codes=["CUT"],
                   badge_codes=["SUP-0042"])
    assert f.classify("card-hq") == CardCode("QH", "card-hq")
    assert f.classify("QH") == UnknownCode("QH")  # never guessed from another form
    assert f.classify("cut") == CutCode("cut")
    assert f.classify("sup-0042") == BadgeCode("SUP-0042", "sup-0042")
    assert CodeFormat(ignore_case=False).classify("as") == UnknownCode("as")


def test_a_loose_custom_format_never_makes_a_non_card() -> None:
    f = CodeFormat(r"(?P<rank>\w+)/(?P<suit>\w+)")
    assert f.classify("Q/H") == CardCode("QH", "Q/H")
    assert f.classify("X/H") == UnknownCode("X/H")
    assert f.classify("QQ/H") == UnknownCode("QQ/H")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"code_format": "(?P<rank>"}, "not a regular expression"),
    ({"code_format": "(?P<rank>A)S"}, "missing suit"),
    ({"cut_codes": ["AS"]}, "ambiguous"),
    ({"badge_codes": ["10h"]}, "ambiguous"),
    ({"cut_codes": [" "]}, "must not be empty"),
    ({"cut_codes": ["X"], "badge_codes": ["x"]}, "both cut-card and badge"),
])
def test_bad_code_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CodeFormat(**kwargs)  # type: ignore[arg-type]


def test_an_error_code_is_never_a_card() -> None:
    for raw in [b"AS", b"as", b"10H", b" KD ", b"\xff"]:
        code = error_code("unknown", raw)
        assert code.startswith("?unknown:")
        assert try_parse_card(code) is None


# --- reconnect helpers -----------------------------------------------------------------------
def test_backoff_doubles_to_its_cap_and_resets() -> None:
    b = Backoff(0.1, 0.5)
    assert [b.next() for _ in range(5)] == [0.1, 0.2, 0.4, 0.5, 0.5]
    b.reset()
    assert b.next() == 0.1
    with pytest.raises(ValueError):
        Backoff(1.0, 0.5)


def test_log_once_logs_each_distinct_error_once(caplog: pytest.LogCaptureFixture) -> None:
    once = LogOnce(logging.getLogger("test.logonce"))
    with caplog.at_level(logging.DEBUG, "test.logonce"):
        assert [once.warning(m) for m in ["gone", "gone", "busy", "gone"]] == [
            True, False, True, False]
        once.reset()
        assert once.warning("gone")
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.DEBUG,
                                                   logging.WARNING, logging.DEBUG,
                                                   logging.WARNING]


# --- properties ------------------------------------------------------------------------------
ENDINGS = {"cr": [b"\r", b"\r\n"], "lf": [b"\n", b"\r\n"], "crlf": [b"\r", b"\n", b"\r\n"],
           "tab": [b"\t"]}
CODES = CodeFormat(cut_codes=["CUT"])
card_payloads = st.builds(lambda r, s, low: (r + s).lower() if low else r + s,
                          st.sampled_from(["A", "2", "9", "10", "T", "J", "Q", "K"]),
                          st.sampled_from(list("SHDC")), st.booleans())
# Bytes that can sit inside a bad frame without being a terminator in any framing.
CONTROLS = [bytes([b]) for b in [*range(0x00, 0x02), *range(0x04, 0x09), 0x0B, 0x0C,
                                 *range(0x0E, 0x20), 0x7F]]
bad_payloads = st.one_of(
    st.tuples(st.just("empty"), st.just(b"")),
    st.tuples(st.just("not_utf8"), st.builds(lambda a, b: a + b"\xff" + a, st.sampled_from(
        [b"", b"A", b"QH"]), st.just(b""))),
    st.tuples(st.just("control"), st.builds(lambda c: b"A" + c + b"S", st.sampled_from(CONTROLS))),
    st.tuples(st.just("too_long"), st.integers(MAX + 1, 3 * MAX).map(lambda n: b"K" * n)),
    st.tuples(st.just("unknown"), st.sampled_from([b"XX", b"1S", b"ASD", b"hello"])),
)
items = st.one_of(card_payloads.map(lambda p: ("card", p.encode())), bad_payloads)


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, bytes, list[str]]:
    """A framing, a stream of frames with mixed endings, and the expected results: a card's
    code, or the one error each bad frame must give."""
    framing = draw(st.sampled_from(FRAMINGS))
    frames = draw(st.lists(items, max_size=25))
    data = bytearray()
    expected: list[str] = []
    for kind, payload in frames:
        if framing == "stx_etx":
            data += draw(st.sampled_from([b"", b"\r\n", b" "])) + b"\x02" + payload + b"\x03"
        else:
            endings = ENDINGS[framing]
            if kind == "empty" and data.endswith(b"\r"):
                endings = [e for e in endings if not e.startswith(b"\n")]  # that LF ends CR+LF
            data += payload + draw(st.sampled_from(endings))
        expected.append(CODES.classify(payload.decode()).code  # type: ignore[union-attr]
                        if kind == "card" else kind)
    return framing, bytes(data), expected


def outcome(parsed: list[Parsed]) -> list[str]:
    """Each result as the card's code, ``unknown``, or the error's reason."""
    out = []
    for item in parsed:
        if isinstance(item, FrameError):
            out.append(item.reason)
            continue
        code = CODES.classify(item.payload)
        out.append(code.code if isinstance(code, CardCode) else "unknown")
    return out


@settings(max_examples=examples(400), deadline=None)
@given(streams(), st.lists(st.integers(0, 400), max_size=30))
def test_every_good_frame_gives_its_card_and_every_bad_one_error(
        case: tuple[str, bytes, list[str]], cuts: list[int]) -> None:
    framing, data, expected = case
    assert outcome(feed_split(FrameParser(framing, max_len=MAX), data, cuts)) == expected


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(FRAMINGS), st.binary(max_size=300), st.lists(st.integers(0, 300),
                                                                     max_size=20))
def test_random_bytes_never_raise_and_the_split_never_matters(
        framing: str, data: bytes, cuts: list[int]) -> None:
    whole = FrameParser(framing, max_len=MAX).feed(data)
    assert feed_split(FrameParser(framing, max_len=MAX), data, cuts) == whole
    for item in whole:
        assert len(item.raw) <= 4 * MAX + 1  # what is kept is bounded, whatever arrives
        if isinstance(item, Frame):
            assert item.payload
            assert not any(unicodedata.category(ch).startswith("C") for ch in item.payload)


@pytest.mark.parametrize("framing", FRAMINGS)
def test_seeded_mutations_of_a_shoe_stream(framing: str) -> None:
    """A clean stream of 400 cards, then 200 seeded mutants (a byte flipped, dropped,
    inserted or duplicated): nothing raises, byte-wise and whole feeding agree, and each
    mutant changes at most the frames around the mutation."""
    rng = random.Random(9)
    codes = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 8
    rng.shuffle(codes)
    codes = codes[:400]
    ending = {"cr": b"\r", "lf": b"\n", "crlf": b"\r\n", "tab": b"\t"}.get(framing, b"")
    if framing == "stx_etx":
        clean = b"".join(b"\x02" + c.encode() + b"\x03" for c in codes)
    else:
        clean = b"".join(c.encode() + ending for c in codes)
    assert outcome(FrameParser(framing, max_len=MAX).feed(clean)) == codes
    for _ in range(200):
        data = bytearray(clean)
        at = rng.randrange(len(data))
        op = rng.choice(["flip", "drop", "insert", "dup"])
        if op == "flip":
            data[at] ^= 1 << rng.randrange(8)
        elif op == "drop":
            del data[at]
        elif op == "insert":
            data.insert(at, rng.randrange(256))
        else:
            data[at:at] = data[at:at + rng.randint(1, 6)]
        whole = FrameParser(framing, max_len=MAX).feed(bytes(data))
        assert feed_bytewise(FrameParser(framing, max_len=MAX), bytes(data)) == whole
        got = outcome(whole)
        # Every card read is one of the shoe's frames in order, except near the mutation.
        assert abs(len(got) - len(codes)) <= 3, (op, at)
        assert got[:max(0, at // 4 - 2)] == codes[:max(0, at // 4 - 2)], (op, at)
