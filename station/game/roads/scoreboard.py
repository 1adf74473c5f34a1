"""Every road of one shoe: the incremental ``Scoreboard`` and the batch ``compute_roads``.

The display redraws on every card, so ``Scoreboard.add`` does O(1) work per road; the two
constructions are kept separate so the property tests can hold one against the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from station.game.roads.ask import AskRoad, ask
from station.game.roads.bigroad import BigColumns, BigRoad, big_road
from station.game.roads.derived import DERIVED_ROADS, ColourColumns, DerivedRoad, derived_road
from station.game.roads.goodroads import good_roads
from station.game.roads.layout import GridLayout
from station.game.roads.model import Round
from station.game.roads.record import RecordError, round_from_record

_PLAIN: Final[dict[str, Round]] = {w: Round(w) for w in ("banker", "player", "tie")}
_PLAIN.update({"B": _PLAIN["banker"], "P": _PLAIN["player"], "T": _PLAIN["tie"]})


@dataclass(frozen=True, slots=True)
class Roads:
    """An immutable view of every road after some rounds (what ``--json`` prints)."""

    beads: tuple[Round, ...]
    big_road: BigColumns
    leading_ties: int
    derived: dict[str, ColourColumns]
    """``big_eye_boy``, ``small_road``, ``cockroach_pig``: logical colour columns."""
    ask: AskRoad
    good_roads: tuple[str, ...]

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(len(column) for column in self.big_road)


class Scoreboard:
    """The roads of one shoe, updated round by round.

    One owner thread calls ``add``; a new shoe needs a new ``Scoreboard``.
    """

    __slots__ = ("beads", "big", "big_grid", "derived", "derived_grids")

    def __init__(self) -> None:
        self.beads: list[Round] = []
        self.big = BigRoad()
        self.big_grid = GridLayout()
        self.derived = {name: DerivedRoad(offset) for name, offset in DERIVED_ROADS}
        self.derived_grids = {name: GridLayout() for name, _ in DERIVED_ROADS}

    @classmethod
    def from_records(cls, records: Iterable[Round | Mapping[str, Any] | str]) -> Scoreboard:
        board = cls()
        for record in records:
            board.add(record)
        return board

    def add(self, item: Round | Mapping[str, Any] | str) -> Round | None:
        """Add a round given as a ``Round``, a result record, a winner name or B/P/T.

        A void record is skipped and gives ``None``. Raises ``RecordError`` for anything else
        the roads cannot use.
        """
        if isinstance(item, str):
            # A str-valued Enum (station.game.outcome.Winner) hashes by name, not by value.
            plain = _PLAIN.get(item.value if isinstance(item, Enum) else item)
            if plain is None:
                raise RecordError(f"winner {item!r} is not banker, player, tie, B, P or T")
            item = plain
        elif not isinstance(item, Round):
            parsed = round_from_record(item)
            if parsed is None:
                return None
            item = parsed
        self.beads.append(item)
        placed = self.big.add(item.winner)
        if placed is not None:
            column, row = placed
            self.big_grid.add(row == 0)
            lengths = self.big.lengths
            for name, road in self.derived.items():
                runs = len(road.columns)
                if road.add(lengths, column, row) is not None:
                    self.derived_grids[name].add(len(road.columns) != runs)
        return item

    def ask(self) -> AskRoad:
        return ask(self.big.winners, self.big.lengths)

    def good_roads(self) -> tuple[str, ...]:
        return tuple(good_roads(self.big.winners, self.big.lengths))

    def snapshot(self) -> Roads:
        return Roads(
            beads=tuple(self.beads),
            big_road=self.big.columns(),
            leading_ties=self.big.leading_ties,
            derived={name: road.snapshot() for name, road in self.derived.items()},
            ask=self.ask(),
            good_roads=self.good_roads(),
        )

    def recompute(self) -> Roads:
        """The same roads rebuilt from the rounds alone (see ``compute_roads``)."""
        return compute_roads(self.beads)


def compute_roads(rounds: Iterable[Round]) -> Roads:
    """Every road of a whole shoe at once, without the incremental state."""
    beads = tuple(rounds)
    columns, leading = big_road(r.winner for r in beads)
    winners = [column[0].winner for column in columns]
    lengths = [len(column) for column in columns]
    return Roads(
        beads=beads,
        big_road=columns,
        leading_ties=leading,
        derived={name: derived_road(lengths, offset) for name, offset in DERIVED_ROADS},
        ask=ask(winners, lengths),
        good_roads=tuple(good_roads(winners, lengths)),
    )


def roads_json(roads: Roads) -> dict[str, Any]:
    """The ``station roads --json`` object (schema in issue 4 and docs/roads.md)."""
    out: dict[str, Any] = {
        "big_road": [
            [{"winner": entry.winner, "ties": entry.ties} for entry in column]
            for column in roads.big_road
        ]
    }
    for name, columns in roads.derived.items():
        out[name] = [list(column) for column in columns]
    out["ask"] = {side: dict(marks) for side, marks in roads.ask.items()}
    out["good_roads"] = list(roads.good_roads)
    return out
