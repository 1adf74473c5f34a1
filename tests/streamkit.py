"""Check an upstream stream from outside, as a game server could: only the bytes, no station.

``consistent`` reads a whole stream (the file upstream's lines, or ``station simulate
--messages``) and raises AssertionError naming the first line that breaks a promise of
docs/upstream.md: every line one canonical (or signed) message that its kind's schema takes,
``seq`` 1..n without a gap, every events message linked by ``prev_seq`` to the one before it,
every ``key`` once, one table; each shoe started before anything
of it and ended after; each round announced, closed, its cards dealt in the tableau's order
(player 1, banker 1, player 2, banker 2, then any third cards) and then its round message
with those very cards, nothing of a round after its result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.wire.canonical import encode, normalize
from station.wire.schema import validate
from station.wire.signing import verify

NO_SIG = "A" * 86 + "=="
DEAL_ORDER = [("player", 1), ("banker", 1), ("player", 2), ("banker", 2)]


def lines_of(data: bytes) -> list[bytes]:
    """The stream's lines; every one, the last too, ends with a newline."""
    assert data == b"" or data.endswith(b"\n"), "the last line has no newline"
    return data.split(b"\n")[:-1]


def consistent(data: bytes, key: Ed25519PublicKey | None = None) -> list[dict[str, Any]]:
    """The messages of ``data``, after checking every promise above; ``key``: the station's
    public key, every message then verified (else none may be signed)."""
    messages: list[dict[str, Any]] = []
    for n, line in enumerate(lines_of(data), 1):
        msg = json.loads(line)
        assert isinstance(msg, dict), f"line {n}: not an object"
        if key is not None:
            verify(msg, key)  # raises SignatureError: unsigned, or not by this key
        else:
            assert "sig" not in msg, f"line {n}: signed, but no key was given"
        # Signed or not, a line is the canonical form of what it says (with its sig).
        assert encode(normalize(msg)) == line, f"line {n}: not in canonical form"
        # The schemas require a sig; an unsigned stream (the file upstream without a key) is
        # checked for everything else.
        validate(msg if "sig" in msg else {**msg, "sig": NO_SIG})
        messages.append(msg)
    _numbered(messages)
    linked(messages)
    _shoes_and_rounds(messages)
    return messages


def _numbered(messages: Sequence[dict[str, Any]]) -> None:
    seqs = [m["seq"] for m in messages]
    assert seqs == list(range(1, len(seqs) + 1)), f"seq not 1..{len(seqs)} without gaps"
    keys = [m["key"] for m in messages]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    assert not twice, f"keys sent twice: {twice[:5]}"
    tables = {m["table"] for m in messages}
    assert len(tables) <= 1, f"more than one table: {tables}"


def linked(messages: Sequence[dict[str, Any]], first: int | None = None) -> None:
    """Every message but status carries ``prev_seq``: the seq of the one before it that is
    not a status (``first`` for the first of them: null at the table's first message)."""
    prev = first
    for m in messages:
        if m["kind"] == "status":
            assert "prev_seq" not in m, f"seq {m['seq']}: a status with prev_seq"
            continue
        assert "prev_seq" in m and m["prev_seq"] == prev, (
            f"seq {m['seq']} ({m['kind']}): prev_seq {m.get('prev_seq', 'absent')}, the events "
            f"message before it is {prev}")
        prev = m["seq"]


def _shoes_and_rounds(messages: Sequence[dict[str, Any]]) -> None:
    started: set[str] = set()
    ended: set[str] = set()
    rounds: dict[str, dict[str, Any]] = {}  # round key -> what has been seen of it
    for m in messages:
        where = f"seq {m['seq']} ({m['kind']})"
        shoe: str = m.get("shoe") or ""
        if m["kind"] == "shoe_started":
            assert shoe not in started, f"{where}: the shoe started twice"
            started.add(shoe)
            continue
        if shoe:
            assert shoe in started, f"{where}: before its shoe started"
            # The table's status goes on naming the closed shoe until the next one starts, and
            # an alert may be about it (a new shoe asked for is late).
            assert shoe not in ended or m["kind"] in ("status", "alert"), (
                f"{where}: after its shoe ended")
        if m["kind"] == "shoe_ended":
            ended.add(shoe)
            open_rounds = [k for k, r in rounds.items() if r["shoe"] == shoe and not r["done"]]
            assert not open_rounds, f"{where}: rounds {open_rounds} never got their result"
            continue
        if m["kind"] in ("betting_open", "betting_closed", "card", "reveal", "round"):
            _round_step(rounds, m, where)


def _round_step(rounds: dict[str, dict[str, Any]], m: dict[str, Any], where: str) -> None:
    key = m["round_key"] if m["kind"] in ("betting_open", "betting_closed", "reveal") else (
        m["key"] if m["kind"] == "round" else f"{m['shoe']}:{m['round']}")
    if m["kind"] == "betting_open":
        assert key not in rounds, f"{where}: round {key} announced twice"
        rounds[key] = {"shoe": m["shoe"], "closed": False, "done": False,
                       "cards": {"player": [], "banker": []}, "order": []}
        return
    assert key in rounds, f"{where}: round {key} was never announced"
    r = rounds[key]
    assert not r["done"], f"{where}: after round {key}'s result"
    if m["kind"] == "betting_closed":
        assert not r["closed"], f"{where}: betting closed twice"
        r["closed"] = True
    elif m["kind"] == "card":
        assert r["closed"], f"{where}: a card dealt while betting was open"
        hand = r["cards"][m["hand"]]
        assert m["position"] == len(hand) + 1, f"{where}: {m['hand']} card out of order"
        # A squeeze or VIP table's card is dealt face down (null); its reveal gives the value.
        assert (m["card"] is None) == bool(m.get("face_down")), f"{where}: face_down"
        hand.append(m["card"])
        r["order"].append((m["hand"], m["position"]))
        n = len(r["order"])
        if n <= len(DEAL_ORDER):
            assert r["order"][-1] == DEAL_ORDER[n - 1], f"{where}: not the tableau's order"
    elif m["kind"] == "reveal":
        hand = r["cards"][m["hand"]]
        for c in m["cards"]:
            i = c["position"] - 1
            assert i < len(hand) and hand[i] is None, f"{where}: revealed what was not face down"
            hand[i] = c["card"]
    else:  # the round's result, complete or void
        r["done"] = True
        if m["status"] == "complete":
            assert None not in r["cards"]["player"] + r["cards"]["banker"], (
                f"{where}: a result before every card was revealed")
        if m["status"] == "complete":
            assert len(r["order"]) >= 4, f"{where}: a result before the first four cards"
        for hand in ("player", "banker"):
            # A void ends a squeeze: its record lists cards that were never revealed.
            seen = r["cards"][hand]
            assert len(m[hand]) == len(seen) and all(
                c is None or c == v for c, v in zip(seen, m[hand], strict=True)), (
                f"{where}: {hand} cards differ")
