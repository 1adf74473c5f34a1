"""``station simulate --messages``: a simulated session's upstream messages, as the file
upstream writes them.

The daemon numbers, builds and signs the messages of each applied event with a ``Feed``,
from a ``Snapshot`` of the station before and after the event (station.live.daemon), and the file
upstream writes each payload and a newline (station.upstream.filesink). Here a fast
simulation does the same with the same ``Feed``, so a seeded shoe's stream can be checked
from outside without a daemon, a journal or a clock.

It hangs off the simulation's two hooks instead of its loop, so a simulation that does not
ask for messages pays nothing: ``event`` is called before each event is applied (the
recorder's hook, which every applied event passes through) and ``outputs`` after an event
that had outputs. The snapshot after one event is the one before the next, so each event
costs one snapshot; the last event's messages are written by ``close``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from drivers.events import InputEvent
from station.errors import ConfigError
from station.table.outputs import Output
from station.table.station import Station
from station.wire.chain import Chain
from station.wire.feed import Feed
from station.wire.observe import Snapshot
from station.wire.recording import header_line
from station.wire.signing import Signer, load_signer

if TYPE_CHECKING:
    from station.settings.configmodel import StationConfig


def signer_of(config: StationConfig | None) -> Signer | None:
    """The signer of ``upstream.signing_key_file`` when the config names one (the daemon
    signs with it), else None: unsigned, as the file upstream writes without a key. The
    systemd credential the daemon falls back to exists only under its unit, so it is not
    looked for. Raises ConfigError naming the config and the key's problem."""
    if config is None or config.upstream.signing_key_file is None:
        return None
    try:
        return load_signer(config.upstream.signing_key_file)
    except ConfigError as exc:
        raise ConfigError(f"{config.path}: upstream.signing_key_file: {exc}") from None


def virtual_chain(station: Station) -> Chain:
    """The chain a journal of ``station``'s events would hold if its header were the
    recording's header line (what ``--record`` writes first): the statuses of a run that
    journals nothing name it (docs/upstream.md, "The journal's head")."""
    return Chain(header_line(station.rules, station.paytable, station.session).encode())


class MessageStream:
    """Writes every upstream message of the events applied to ``station``, in order, one
    payload and a newline each, numbered from seq 1. Called on the simulation's thread only.

    ``out`` is a text stream (the command's output file, or stdout); the payloads go to its
    byte buffer when it has one, so they are written exactly as built.
    """

    def __init__(self, station: Station, feed: Feed, out: IO[str]) -> None:
        self._station = station
        self._feed = feed
        self._text = out
        self._bytes: IO[bytes] | None = getattr(out, "buffer", None)
        if self._bytes is not None:
            out.flush()  # nothing of the text layer may come after our bytes
        self._before = Snapshot.of(station)
        self._event: InputEvent | None = None
        self._outputs: list[Output] = []
        self.written = 0

    def hooks(self, record: Callable[[InputEvent], None] | None,
              on_outputs: Callable[[list[Output]], None] | None
              ) -> tuple[Callable[[InputEvent], None], Callable[[list[Output]], None]]:
        """The simulation's hooks (``station.table.simulation.simulate``'s ``record``, called
        before each event is applied, and ``on_outputs``) with this stream's added."""

        def before(event: InputEvent) -> None:
            if record is not None:
                record(event)
            self.event(event)

        def after(outputs: list[Output]) -> None:
            self.outputs(outputs)
            if on_outputs is not None:
                on_outputs(outputs)

        return before, after

    def event(self, event: InputEvent) -> None:
        """``event`` is about to be applied: the previous one's messages are complete."""
        if self._event is not None:
            self._flush()
        self._event = event

    def outputs(self, outputs: list[Output]) -> None:
        """What the event being applied caused (the round records and announcements)."""
        self._outputs.extend(outputs)

    def close(self) -> None:
        """After the last event: write its messages. Does not close ``out``."""
        if self._event is not None:
            self._flush()
        if self._bytes is not None:
            self._bytes.flush()

    def _flush(self) -> None:
        assert self._event is not None
        after = Snapshot.of(self._station)
        payloads = self._feed.messages(self._before, after, self._event, self._outputs)
        self._before, self._event, self._outputs = after, None, []
        if not payloads:
            return
        data = b"".join(payload + b"\n" for _, payload in payloads)
        if self._bytes is not None:
            self._bytes.write(data)
        else:
            self._text.write(data.decode("utf-8"))
        self.written += len(payloads)
