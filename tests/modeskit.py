"""Drive a real ``Station`` through the table modes and collect everything that leaves it.

``Exits`` is every observer the daemon attaches to a station (station.live.daemon, assembly): the
upstream feed's messages (events and status), the journal mirror's record of the event (the
third topic, sealed for the archive as ``upstream.mirror_key`` makes it, and every base64
field inside any of them decoded), the console display, the table log at info level, the
dealer's page view and the metrics text. ``Table`` plays a given card sequence with a chosen way of
revealing each face-down hand, so a test can ask, after every event, what each of those exits
said and what the station was still keeping secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from prometheus_client import generate_latest

from drivers.events import CardRead, Command, InputEvent, TimerExpired
from station.journal.codec import encode_event
from station.kinds.displays.lines import format_output
from station.live.service.metrics import Metrics
from station.live.service.tablelog import TableLog
from station.table.outputs import Output, Prompt, Published
from station.table.station import Station
from station.table.tablerules import TableRules
from station.upstream.mirror import record_message
from station.web.view import ShoeHistory, Surroundings, build_view, notices_of
from station.wire.chain import outbox_digest, record_hash
from station.wire.feed import Feed
from station.wire.observe import Snapshot
from station.wire.sealing import Sealer
from station.wire.signing import Signer

START = 1_800_000_000.0
DEALER = "dealer:ann"
CLIENT = "client:vip-7 [c-{n}]"  # an upstream command's actor (station.live.daemon)


MIRROR_SIGNER = Signer(Ed25519PrivateKey.generate())
MIRROR_SEALER = Sealer(X25519PrivateKey.generate().public_key())


def unwrapped(payload: bytes, depth: int = 0) -> list[str]:
    """What an outsider who decodes everything reads in a message: its text, with each
    base64 field (16 characters or more) read as what it holds: the text it decodes to,
    unwrapped in turn when that is JSON, or nothing when it is not text (ciphertext, a
    signature: random letters of base64 would spell a card, "+5D/", by chance now and then,
    and tell nobody anything). A part of a split message is a slice of the whole's bytes,
    so the whole, read here, holds everything its parts do."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return []
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return [text]
    inner: list[str] = []

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            return {k: walk(v) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v) for v in item]
        if isinstance(item, str) and len(item) >= 16 and depth < 4:
            try:
                raw = base64.b64decode(item, validate=True)
            except (binascii.Error, ValueError):
                return item
            inner.extend(unwrapped(raw, depth + 1))
            return "<base64>"
        return item

    return [orjson.dumps(walk(obj)).decode(), *inner]


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@dataclass
class Exits:
    """The observers of one station, as the daemon wires them."""

    station: Station
    feed: Feed = field(init=False)
    log: TableLog = field(init=False)
    metrics: Metrics = field(init=False)
    history: ShoeHistory = field(default_factory=ShoeHistory)
    notices: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    # The mirror's sealing (None: in clear, as before issue 32; the test proves it then fails).
    sealer: Sealer | None = MIRROR_SEALER
    mirrored: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._journal_id = hashlib.sha256(b"a journal header").digest()
        self._head = self._journal_id
        self._seq = 0
        self.feed = Feed(self.station.rules.table, self.station.rules.decks, None)
        self.log = TableLog(self.station)
        self.metrics = Metrics(clock=lambda: START)
        self.metrics.attach(self.station)
        self.prompt = self.station.prompt
        self._capture = _Capture()

    def apply(self, event: InputEvent) -> tuple[list[Output], list[str]]:
        """Apply ``event`` as the daemon does; the outputs and every text that left."""
        logger = logging.getLogger("station.table")
        old_level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self._capture)
        self._capture.lines = []
        try:
            before = Snapshot.of(self.station)
            outputs = self.station.apply(event)
            payloads = self.feed.messages(before, Snapshot.of(self.station), event, outputs)
            self.log.observe(event, outputs, 0.001)
            self.metrics.observe(event, outputs, 0.001)
        finally:
            logger.removeHandler(self._capture)
            logger.setLevel(old_level)
        texts = [t for _, p in payloads for t in unwrapped(p)]
        self.messages.extend(orjson.loads(p) for _, p in payloads)
        record = self._mirror(event, [(topic, p) for topic, p in payloads])
        self.mirrored.append(record)
        texts += unwrapped(record)
        texts += [format_output(o) for o in outputs]
        texts += self._capture.lines
        for o in outputs:
            if isinstance(o, Prompt):
                self.prompt = o
        self.notices.extend(notices_of(outputs))
        self.history.add(outputs)
        for language in ("en", "zh"):
            view = build_view(self.station, self.prompt, self.history, self.notices,
                              Surroundings(self.station.rules.table, language))
            # Earlier rounds' results are published facts; only one of the round in
            # progress would be news.
            d = self.station.dealing
            view["results"] = [r for r in view["results"]
                               if d.round_open and r["round"] == d.round_no]
            texts.append(orjson.dumps(view).decode())
        texts.append(generate_latest(self.metrics.registry).decode())
        return outputs, texts


    def _mirror(self, event: InputEvent, rows: list[tuple[str, bytes]]) -> bytes:
        """The journal record of ``event`` with the messages it caused, as the journal
        chains it and the mirror sends it on <prefix>/<table>/journal."""
        self._seq += 1
        body = encode_event(event)
        wall, mono = event.ts, 1000.0 + self._seq
        self._head = record_hash(self._head, seq=self._seq, wall_ts=wall, mono_ts=mono,
                                 digest=outbox_digest(rows), body=body)
        return record_message(MIRROR_SIGNER, self.station.rules.table, self._journal_id,
                              (self._seq, wall, mono, body, self._head), rows,
                              sealer=self.sealer)


# How a face-down hand gets revealed: by the dealer's button, by the player's client
# upstream, or by letting its deadline pass; ``delay`` seconds after it became due.
Reveal = tuple[str, float]
Chooser = Callable[[], Reveal]
Observer = Callable[[InputEvent, list[Output], list[str]], None]


class Table:
    """Plays ``cards`` (the burn first) on ``station``: dealer-opened betting, every card the
    display asks for, each reveal as ``choose`` says. Stops when the cards run out."""

    def __init__(self, station: Station, cards: list[str], choose: Chooser,
                 observe: Observer | None = None) -> None:
        self.station = station
        self.exits = Exits(station)
        self.cards = list(cards)
        self.choose = choose
        self.observe = observe
        self.now = START
        self.published: list[dict[str, Any]] = []
        self.n = 0

    def send(self, event: InputEvent) -> list[Output]:
        outputs, texts = self.exits.apply(event)
        self.published += [o.record for o in outputs if isinstance(o, Published)]
        if self.observe is not None:
            self.observe(event, outputs, texts)
        return outputs

    def tick(self, dt: float = 1.0) -> float:
        self.now += dt
        return self.now

    def run(self) -> None:
        d = self.station.dealing
        self.send(Command("new_shoe", DEALER, self.tick()))
        while True:
            state = d.state
            if state == "between_rounds":
                if not self.cards:
                    return
                self.send(Command("open_betting", DEALER, self.tick()))
            elif state == "betting_open":
                self.send(Command("close_betting", DEALER, self.tick(2.0)))
            elif state == "reveal":
                self._reveal()
            elif state in ("burn_indicator", "burning", "player_1", "banker_1", "player_2",
                           "banker_2", "player_3", "banker_3"):
                if not self.cards:
                    return
                self.send(CardRead(self.cards.pop(0), "shoe", self.tick(0.5)))
            elif self.station.deadlines:
                self._fire_next()
            else:
                raise AssertionError(f"the table stopped in {state}: {self.station.prompt}")

    def _fire_next(self) -> None:
        name, due = min(self.station.deadlines.items(), key=lambda kv: kv[1])
        self.now = max(self.now, due)
        self.send(TimerExpired(name, self.now))

    def _reveal(self) -> None:
        how, delay = self.choose()
        due = min(self.station.deadlines.values(), default=None)
        if how == "timer" or (due is not None and self.now + delay >= due):
            if due is None:
                raise AssertionError("a face-down hand waits with no deadline")
            name = min(self.station.deadlines, key=self.station.deadlines.__getitem__)
            if self.now < due - 0.25:
                # An early event of the same timer first: it must change nothing.
                self.send(TimerExpired(name, due - 0.25))
            self._fire_next()
            return
        self.n += 1
        actor = DEALER if how == "dealer" else CLIENT.format(n=self.n)
        self.send(Command("reveal", actor, self.tick(delay)))


def face_down_rules(mode: str, **kw: Any) -> TableRules:
    return TableRules(table="t9", decks=8, dedupe_ms=0, mode=mode, **kw)
