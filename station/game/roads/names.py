"""Display names of the derived roads and the good roads (text output and SVG)."""

from __future__ import annotations

from typing import Final

LABELS: Final[dict[str, str]] = {  # good-road key -> badge text (English: the SVG font has no CJK)
    "long_banker": "Long Banker",
    "long_player": "Long Player",
    "double_jump": "Double Jump",
    "single_jump": "Single Jump",
    "one_room_two_halls_banker": "1 Room 2 Halls (B)",
    "one_room_two_halls_player": "1 Room 2 Halls (P)",
    "banker_sticky": "Banker Sticky",
    "player_sticky": "Player Sticky",
    "separated_banker_sticky": "Separated B Sticky",
    "separated_player_sticky": "Separated P Sticky",
}
TITLES: Final[dict[str, str]] = {
    "big_eye_boy": "Big Eye Boy",
    "small_road": "Small Road",
    "cockroach_pig": "Cockroach Pig",
}
