"""``reader.type: simulated``: no device; the simulated dealer deals (``drivers.simulated``,
on its thread: ``drivers.sim_table``), from a shoe that continues where the journal says."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from station.kinds.probes import Finding
from station.kinds.readers import DeviceHooks
from station.settings.configmodel import StationConfig

if TYPE_CHECKING:
    from drivers.sim_table import SimulatedTable

log = logging.getLogger("station.live.assembly")  # where `station run` has always said the seed


def build(config: StationConfig, hooks: DeviceHooks) -> SimulatedTable:
    from drivers.sim_table import SimulatedTable  # noqa: PLC0415 - a thread, for run only
    from drivers.simulated import SimulatedDealer, random_shoes  # noqa: PLC0415

    sim = config.simulation
    # A shuffled shoe is a physical shoe: with no seed configured it comes from the journal's
    # session, so a restart deals on from the same shoe.
    seed = sim.seed if sim.seed is not None else int(hooks.session, 16)
    dealer = SimulatedDealer(random_shoes(seed, sim.shoes, config.rules.decks), sim.faults,
                             pace=sim.pace, supervisor=sim.supervisor, start_ts=time.time(),
                             badges=sim.dealer_badges, change_every=sim.dealer_change_shoes,
                             player=sim.players)
    dealer.continue_shoe(*hooks.shoe_position)
    log.info("simulated table seed %d", seed)
    return SimulatedTable(dealer)


def probe(config: StationConfig) -> Iterator[Finding]:
    yield Finding(True, "reader", "simulated (no device)")
