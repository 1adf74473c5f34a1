"""``reader.type: simulated``: no device; the simulated dealer deals (``drivers.simulated``).

Its table is built by ``station.assembly`` from the journal (the shoe continues where a
restart left it), so the kind builds no device and has nothing to probe.
"""

from __future__ import annotations

from collections.abc import Iterator

from station.configmodel import StationConfig
from station.kinds.probes import Finding


def probe(config: StationConfig) -> Iterator[Finding]:
    yield Finding(True, "reader", "simulated (no device)")
