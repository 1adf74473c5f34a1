"""Shoe files: the cards of one shoe in draw order, for ``station simulate --shoe-file``.

One code per line or several separated by white space, from the first card of the shoe (the
burn indicator) on; ``CUT`` is the cut card; ``#`` starts a comment. The whole file is checked
before anything is dealt, so a bad file never produces half a simulation.
"""

from __future__ import annotations

from pathlib import Path

from drivers.simulated import CUT
from station.cards import try_parse_card
from station.errors import InputFileError
from station.limits import short
from station.textfile import describe_path, read_text


def read_shoe_file(path: Path, decks: int = 8) -> list[str]:
    """Return the shoe's tokens as canonical codes and ``CUT``.

    Raises ``InputFileError`` naming the file, the line and the fault: a code that is not a
    card, a card beyond ``decks`` copies, a second cut card, or no card at all; and for a
    file that cannot be read, is not UTF-8 or is too large. A leading byte order mark is
    accepted.
    """
    text = read_text(path, "shoe file", InputFileError)
    name = describe_path(path)
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
    if not copies:
        raise InputFileError(f"{name}: no card codes in the file; nothing to deal")
    return tokens
