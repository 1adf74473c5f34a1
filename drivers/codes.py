"""What a scanned payload means: a card, the cut card, a supervisor's badge, or unknown.

Pure. A card is recognised only by the configured regular expression matching the whole
payload (surrounding spaces ignored); its ``rank`` and ``suit`` groups are normalised to the
station's form (``AS``, ``TD``, ``QH``: ``10`` becomes ``T``, letters upper case). A payload
with any character outside printable ASCII is ``Unknown`` whatever it looks like. Nothing
else is ever turned into a card: a payload that does not match is ``Unknown``, and the
station pauses on it. Cut-card and badge codes are exact strings, compared case-insensitively;
one that would also match the card format is refused at construction (it would be ambiguous).
A payload that is no card but starts with a passed prefix (a dealer's badge, ``DEALER-...``)
goes to the station as it was read, for the station to judge.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from drivers.events import CardRead, CutCardSeen
from drivers.framing import show_bytes

log = logging.getLogger(__name__)

# Today's forms: AS, TD, 10H, QH (any case). The groups ``rank`` and ``suit`` are required.
DEFAULT_CODE_FORMAT: Final = r"(?P<rank>10|[A2-9TJQK])(?P<suit>[SHDC])"
RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
# Blanks around a payload are ignored: ASCII ones only (str.strip() takes Unicode spaces too).
_ASCII_BLANKS: Final = " \t\r\n\x0b\x0c"


@dataclass(frozen=True, slots=True)
class CardCode:
    code: str  # the station's form, e.g. "TD"
    payload: str
    pack: str | None = None  # the format's optional ``pack`` group, as read


@dataclass(frozen=True, slots=True)
class CutCode:
    payload: str


@dataclass(frozen=True, slots=True)
class BadgeCode:
    badge: str  # the configured badge code it matched
    payload: str


@dataclass(frozen=True, slots=True)
class PassedCode:
    text: str  # the payload without surrounding white space, as the station is to see it
    payload: str


@dataclass(frozen=True, slots=True)
class UnknownCode:
    payload: str


Code = CardCode | CutCode | BadgeCode | PassedCode | UnknownCode


class CodeFormat:
    """Maps payloads to ``Code`` results with a configured card format and special codes."""

    def __init__(self, code_format: str = DEFAULT_CODE_FORMAT, *,
                 cut_codes: Iterable[str] = (), badge_codes: Iterable[str] = (),
                 ignore_case: bool = True, passed_prefixes: Iterable[str] = ()) -> None:
        """``passed_prefixes``: a payload that is no card and starts with one of these (case
        sensitive) is passed to the station as it is (a dealer's badge, station.table.dealers)."""
        self._passed = tuple(p for p in passed_prefixes if p)
        try:
            self._re = re.compile(code_format, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ValueError(f"code format {code_format!r} is not a regular expression: "
                             f"{exc}") from exc
        self._has_pack = "pack" in self._re.groupindex
        missing = {"rank", "suit"} - set(self._re.groupindex)
        if missing:
            raise ValueError(f"code format {code_format!r} needs named groups (?P<rank>...) "
                             f"and (?P<suit>...); missing {', '.join(sorted(missing))}")
        self._cut = {c.strip().casefold() for c in cut_codes}
        self._badges = {b.strip().casefold(): b for b in badge_codes}
        for special in [*self._cut, *self._badges]:
            if not special:
                raise ValueError("a cut-card or badge code must not be empty")
            if self._card(special) is not None:
                raise ValueError(f"code {special!r} also matches the card format: ambiguous")
        both = self._cut & set(self._badges)
        if both:
            raise ValueError(f"codes {sorted(both)} are both cut-card and badge codes")

    def _card(self, text: str) -> str | None:
        found = self._card_and_pack(text)
        return None if found is None else found[0]

    def _card_and_pack(self, text: str) -> tuple[str, str | None] | None:
        m = self._re.fullmatch(text)
        if m is None:
            return None
        rank = m.group("rank").upper()
        suit = m.group("suit").upper()
        rank = "T" if rank == "10" else rank
        if rank not in RANKS or len(rank) != 1 or suit not in SUITS or len(suit) != 1:
            return None  # a loose custom format matched something that is not a card
        # A code format may name the card's pack (``(?P<pack>...)``): passed on as read, for
        # the station to check against the packs registered for the shoe.
        pack = m.group("pack") if self._has_pack else None
        return rank + suit, pack or None

    def classify(self, payload: str) -> Code:
        text = payload.strip(_ASCII_BLANKS)
        if not (text.isascii() and text.isprintable()):
            # Barcodes are printable ASCII. Anything else is never a card, a cut card or a
            # badge: Unicode case folding and white space would read look-alikes as codes
            # ("A" and U+017F as AS, "10" and U+017F as TS, a no-break space stripped).
            return UnknownCode(payload)
        key = text.casefold()
        if key in self._cut:
            return CutCode(payload)
        badge = self._badges.get(key)
        if badge is not None:
            return BadgeCode(badge, payload)
        card = self._card_and_pack(text)
        if card is not None:
            return CardCode(card[0], payload, card[1])
        if self._passed and text.startswith(self._passed):
            return PassedCode(text, payload)
        return UnknownCode(payload)


def code_event(code: Code, raw: bytes, source: str, ts: float,
               symbology: str | None = None) -> CardRead | CutCardSeen | None:
    """What a reader posts for a classified payload, whatever the device: a card, the cut
    card, or, for a payload that is no known code, one ``CardRead`` whose code is
    ``?unknown:<raw bytes shown>`` (never a card: the station pauses and shows it). A
    supervisor badge is logged and gives None: no event carries it yet. ``symbology``: the
    barcode's symbology as the scanner reported it (HID-POS), kept on a card's event."""
    if isinstance(code, CardCode):
        return CardRead(code.code, source, ts, code.pack, symbology)
    if isinstance(code, CutCode):
        return CutCardSeen(source, ts)
    if isinstance(code, PassedCode):
        return CardRead(code.text, source, ts)
    if isinstance(code, BadgeCode):
        log.info("%s: supervisor badge %s read (not acted on by the drivers yet)", source,
                 code.badge)
        return None
    shown = show_bytes(raw)
    log.warning("%s: unknown code %s", source, shown)
    return CardRead(f"?unknown:{shown}", source, ts)
