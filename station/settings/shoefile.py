"""Shoe files: the cards of one shoe in draw order, for ``station simulate --shoe-file``.

One code per line or several separated by white space, from the first card of the shoe (the
burn indicator) on; ``CUT`` is the cut card; ``#`` starts a comment. The whole file is checked
before anything is dealt, so a bad file never produces half a simulation.
"""

from __future__ import annotations

from pathlib import Path

from drivers.simulated import CUT
from station.errors import InputFileError
from station.game.analysis.tree import ROUND_CARDS
from station.game.cards import DECK_SIZE, parse_card, try_parse_card
from station.game.limits import DECKS_MAX, short
from station.settings.textfile import describe_path, parse_json, read_text


def read_shoe_file(path: Path, decks: int = 8) -> list[str]:
    """Return the shoe's tokens as canonical codes and ``CUT``.

    Raises ``InputFileError`` naming the file, the line and the fault: a code that is not a
    card, a card beyond ``decks`` copies, a second cut card, or no card at all; and for a
    file that cannot be read, is not UTF-8 or is too large. A leading byte order mark is
    accepted.
    """
    text = read_text(path, "shoe file", InputFileError)
    name = describe_path(path)
    tokens = _tokens(text, name, decks)
    if not tokens or tokens == [CUT]:
        raise InputFileError(f"{name}: no card codes in the file; nothing to deal")
    return tokens


def _tokens(text: str, name: str, decks: int) -> list[str]:
    tokens: list[str] = []
    copies: dict[str, int] = {}
    cut_line = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        for raw in line.split("#", 1)[0].split():
            if raw.upper() == CUT:
                if cut_line:
                    raise InputFileError(
                        f"{name}, line {line_no}: a second CUT (the first is on line "
                        f"{cut_line}); a shoe has one cut card"
                    )
                cut_line = line_no
                tokens.append(CUT)
                continue
            card = try_parse_card(raw)
            if card is None:
                raise InputFileError(
                    f"{name}, line {line_no}: {short(raw)} is not a card code; write a rank "
                    "A,2-9,T(or 10),J,Q,K then a suit S,H,D,C (e.g. AS, TD, QH) or CUT"
                )
            n = copies.get(card.code, 0) + 1
            if n > decks:
                raise InputFileError(
                    f"{name}, line {line_no}: {card.code} appears {n} times; a {decks}-deck "
                    f"shoe holds each card {decks} times"
                )
            copies[card.code] = n
            tokens.append(card.code)
    return tokens


def read_remaining(path: Path, decks: int = 8) -> tuple[list[int], str]:
    """The cards left in a shoe, as 52 counts by ``Card.index``, and how they were given
    (for ``station analyze --remaining``, issue 25).

    Either a JSON object of the cards remaining, ``{"AS": 31, "TD": 32}`` (a code absent
    counts 0; at most ``DECKS_MAX`` of a card), or a shoe file of the cards that have left
    the shoe (``CUT`` ignored): the rest of a full ``decks``-deck shoe remains. Raises
    ``InputFileError`` naming the file and the fault, and for fewer than six cards left.
    """
    text = read_text(path, "remaining-cards file", InputFileError)
    name = describe_path(path)
    if text.lstrip()[:1] in ("{", "["):  # JSON; a shoe file starts with a card or a comment
        counts = _remaining_json(text, name)
        how = "cards remaining"
    else:
        counts = [decks] * DECK_SIZE
        for code in _tokens(text, name, decks):
            if code != CUT:
                counts[parse_card(code).index] -= 1
        how = f"{decks * DECK_SIZE - sum(counts)} cards out of {decks} decks"
    left = sum(counts)
    if left < ROUND_CARDS:
        raise InputFileError(f"{name}: {left} cards left; a round may need {ROUND_CARDS}, "
                             "so nothing can be valued")
    return counts, how


def _remaining_json(text: str, name: str) -> list[int]:
    try:
        doc = parse_json(text)
    except ValueError as exc:
        raise InputFileError(f"{name}: {exc}; write one JSON object such as "
                             '{"AS": 31, "TD": 32}') from None
    if not isinstance(doc, dict):
        raise InputFileError(f"{name}: not a JSON object; write the cards remaining as "
                             '{"AS": 31, "TD": 32}')
    counts = [0] * DECK_SIZE
    spelled: dict[int, str] = {}
    for code, n in doc.items():
        card = try_parse_card(code)
        if card is None:
            raise InputFileError(
                f"{name}: key {short(code)} is not a card code; write a rank A,2-9,T(or 10),"
                "J,Q,K then a suit S,H,D,C (e.g. AS, TD, QH)")
        if card.index in spelled:
            raise InputFileError(f"{name}: {short(code)} and {short(spelled[card.index])} are "
                                 "the same card; give it once")
        spelled[card.index] = code
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= DECKS_MAX:
            raise InputFileError(f"{name}: {card.code}: {short(n)} is not a count of "
                                 f"cards; give a whole number from 0 to {DECKS_MAX}")
        counts[card.index] = n
    return counts
