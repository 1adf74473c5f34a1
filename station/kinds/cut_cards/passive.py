"""``cut_card.type: reader_code`` (the card reader reads the cut card: ``reader.cut_code``;
the simulated shoe deals it) and ``none`` (no sensor): no device of their own."""

from __future__ import annotations

from collections.abc import Iterator

from station.kinds.probes import Finding
from station.settings.configmodel import StationConfig


def probe(config: StationConfig) -> Iterator[Finding]:
    yield Finding(True, "cut_card", f"{config.cut_card.type} (no device of its own)")
