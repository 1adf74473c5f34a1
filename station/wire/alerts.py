"""Every alert kind, declared once: its name, who raises it, its urgency and its words.

Pure. An alert kind is a name a person acts on: the station's own (the ``alert`` field of an
``alert`` message, docs/upstream.md) and the pit's (``station.services.pit.alerts``, in the
same shape). Everything else reads these declarations: the pit's ranking (``URGENCY``) and its
words (``station.services.pit.words``), and the tests that hold the JSON Schema's enum
(schemas/alert.json) and docs/pit.md's table to them, so a kind cannot be half added.

The emitters in ``station.game``, ``station.table`` and ``station.live`` sit below this layer
and write the name where they raise it; tests/upstream/test_declarations.py fails on a name
they raise that is not declared here.

The words are data keyed by kind and language, the exact strings the pit's pages show; one
table to hand to a catalogue when words move to message ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

# The languages every kind has words in (the pit's pages: station.services.pit.words).
LANGUAGES: Final = ("en", "zh")
# The pit's alert list, lower first: 0 a table that stopped or waits for someone, 1 what puts
# the table's evidence in doubt (its stream, its journal, its install), 2 what a pit boss sees
# to between rounds, 3 what is for the record. docs/pit.md.
URGENCIES: Final = (0, 1, 2, 3)


@dataclass(frozen=True, slots=True)
class AlertKind:
    """One alert kind: ``name`` as it is on the wire and in the pit's journal, ``raised_by``
    (the module that raises it, for a reader of the code), ``urgency`` (one of ``URGENCIES``)
    and ``words``: the kind's name as a person reads it, one per language of ``LANGUAGES``."""

    name: str
    raised_by: str
    urgency: int
    words: Mapping[str, str]

    def __post_init__(self) -> None:
        # A kind declared without its rank or its words is refused where it is declared, so
        # it never reaches a page as a bare name.
        if not self.name or not self.name.isidentifier() or self.name != self.name.lower():
            raise ValueError(f"alert kind {self.name!r}: a name is lower_snake_case, as on "
                             "the wire")
        if not self.raised_by:
            raise ValueError(f"alert kind {self.name!r}: say which module raises it "
                             "(raised_by)")
        if isinstance(self.urgency, bool) or self.urgency not in URGENCIES:
            raise ValueError(f"alert kind {self.name!r}: urgency {self.urgency!r} is not one "
                             f"of {', '.join(map(str, URGENCIES))} (docs/pit.md)")
        missing = [lang for lang in LANGUAGES if not self.words.get(lang)]
        if missing:
            raise ValueError(f"alert kind {self.name!r}: no words in {', '.join(missing)}; "
                             f"give words for each of {', '.join(LANGUAGES)}")
        extra = sorted(set(self.words) - set(LANGUAGES))
        if extra:
            raise ValueError(f"alert kind {self.name!r}: words in {', '.join(extra)}, not a "
                             f"language of {', '.join(LANGUAGES)}")


def kinds_by_name(*groups: tuple[AlertKind, ...]) -> dict[str, AlertKind]:
    """The declarations of ``groups`` by name; a name declared twice is refused."""
    out: dict[str, AlertKind] = {}
    for group in groups:
        for kind in group:
            if kind.name in out:
                raise ValueError(f"alert kind {kind.name!r} is declared twice "
                                 f"({out[kind.name].raised_by}, {kind.raised_by}); keep one")
            out[kind.name] = kind
    return out


# The station's own: the ``alert`` names of an ``alert`` message (schemas/alert.json's enum).
STATION_ALERTS: Final[tuple[AlertKind, ...]] = (
    AlertKind("dealer_requested", "station.table.modes", 0,
              {"en": "Another dealer asked for", "zh": "请求更换荷官"}),
    AlertKind("new_shoe_late", "station.table.modes", 0,
              {"en": "New shoe late", "zh": "新牌靴逾时"}),
    AlertKind("bet_positive", "station.game.betguard", 2,
              {"en": "Bet over its return limit", "zh": "投注回报超限"}),
    AlertKind("cut_card_position", "station.table.machine", 2,
              {"en": "Cut card out of place", "zh": "切牌位置异常"}),
    AlertKind("clock_unsynchronised", "station.live.clock", 2,
              {"en": "Clock not synchronised", "zh": "时钟未同步"}),
    AlertKind("clock_jump", "station.live.clock", 2,
              {"en": "Clock jumped", "zh": "时钟跳变"}),
    AlertKind("install_modified", "station.live.install_watch", 1,
              {"en": "Install modified", "zh": "安装文件被改动"}),
    # The archive asked for records again (``resend``) that this station no longer holds.
    AlertKind("records_unrecoverable", "station.table.station", 1,
              {"en": "Archive gap cannot heal", "zh": "归档缺口无法补齐"}),
)
STATION_ALERT_NAMES: Final = tuple(kind.name for kind in STATION_ALERTS)
