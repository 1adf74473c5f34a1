"""``cut_card:``: how the station learns the cut card came out, one module per kind:
``reader_code`` and ``none`` (``passive``: no device of their own), ``modem_pin``."""

from __future__ import annotations

from station.kinds.keys import Key

COMMON = (Key("type", "text", "reader_code", "how the cut card is seen"),)
