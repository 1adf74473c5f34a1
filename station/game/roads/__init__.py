"""Scoreboard roads (RULES.md section 8, seed 003): pure functions and one incremental aggregate.

Nothing in this package does I/O; ``station roads`` (station/commands/roads.py) reads files and
the SVG renderer returns a string. The rules themselves live in small modules:

- ``bigroad``: logical columns of same-winner runs, ties attached to the last entry;
- ``derived``: big eye boy, small road, cockroach pig, from the big road's logical columns;
- ``layout``: the drawn 6-row grid with the dragon tail, kept apart from the logical columns;
- ``ask``: the next derived marks if the next round were Banker or Player;
- ``goodroads``: the ten good-road patterns of seed 003;
- ``scoreboard``: ``Scoreboard.add`` updates every road per round; ``compute_roads`` recomputes.
"""

from __future__ import annotations

from station.game.roads.model import Colour, Result, Round, Side
from station.game.roads.record import RecordError, round_from_record, rounds_from_sequence
from station.game.roads.scoreboard import Roads, Scoreboard, compute_roads, roads_json

__all__ = [
    "Colour",
    "RecordError",
    "Result",
    "Roads",
    "Round",
    "Scoreboard",
    "Side",
    "compute_roads",
    "roads_json",
    "round_from_record",
    "rounds_from_sequence",
]
