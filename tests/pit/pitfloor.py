"""A real pit over a real broker, fed a floor of tables (tests/pit/pagekit.py): what the page
tests and the screenshots (tests/pit/screens.py) look at.

Two pits on one Mosquitto, each with its own prefix and keys folder: one of 20 tables, one of
60. Each table's messages are the simulated station's, re-signed with the table's key and
timed as if sent just now; a table of the plan that pauses is published in two steps (calm,
then its pause), so a page can be looked at before and after.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.pit.pagekit import Publisher, Table, base_shoe, iso_now, plan, retable, write_keys
from tests.pit.pitkit import BOSS, Pit, PitFolder
from tests.upstream.broker import Broker, wait_until

# The station's words for an unsynchronised clock (its clock check's alert).
UNSYNC = ("the system clock is not synchronised (the kernel's adjtimex says so): check the "
          "time service")


@dataclass
class PitFloor:
    """One pit and its tables."""

    name: str
    prefix: str
    pit: Pit
    folder: PitFolder
    config: Path
    keys: Path
    tables: list[tuple[Table, int]]
    offline: set[str] = field(default_factory=set)
    forged: set[str] = field(default_factory=set)

    def table(self, table_id: str) -> Table:
        return next(t for t, _ in self.tables if t.id == table_id)

    def restart(self) -> None:
        self.pit.stop()
        self.pit.close()
        self.pit = Pit(self.config, self.folder.port)


def pit_config(folder: PitFolder, broker_port: int, keys: Path, *, name: str,
               prefix: str, language: str = "en", extra: str = "") -> Path:
    """The pit's config; ``extra`` goes into its ``pit:`` section (``, key: value``)."""
    path = folder.dir / "pit.yaml"
    path.write_text(
        f"broker: {{host: 127.0.0.1, port: {broker_port}, prefix: {prefix}, keepalive_s: 5}}\n"
        f"tables: {{keys_dir: {keys}}}\n"
        f"pit: {{name: {name}, host: 127.0.0.1, port: {folder.port}, language: {language}, "
        f"signing_key_file: pit.pem, pins_file: pit.pins, "
        f"journal: {folder.dir / 'var' / 'pit.sqlite3'}{extra}}}\n", encoding="utf-8")
    return path


class Floors:
    """The broker, the shoe, and the pits of 20 and 60 tables (``sizes``)."""

    def __init__(self, tmp: Path, sizes: tuple[int, ...] = (20, 60), *, paused: int = 2,
                 offline: int = 1) -> None:
        self.shoe = base_shoe(tmp / "shoe")
        self.broker = Broker(tmp / "broker")
        self.broker.start()
        self.publisher = Publisher(self.broker.port)
        self.paused, self.n_offline = paused, offline
        self.floors: dict[int, PitFloor] = {}
        try:
            for n in sizes:
                self.floors[n] = self._floor(tmp, n)
        except BaseException:
            self.close()
            raise

    def _floor(self, tmp: Path, n: int) -> PitFloor:
        prefix = f"floor{n}"
        tables = plan(self.shoe, n, paused=self.paused, offline=self.n_offline, prefix=prefix)
        keys = write_keys([t for t, _ in tables], tmp / prefix / "keys")
        folder = PitFolder(tmp / prefix / "pit")
        # The floor of 60 speaks Chinese by default (pit.language), that of 20 English.
        config = pit_config(folder, self.broker.port, keys, name=f"pit-{n}", prefix=prefix,
                            language="zh" if n == 60 else "en")
        return PitFloor(f"pit-{n}", prefix, Pit(config, folder.port), folder, config, keys,
                        tables)

    def calm(self, floor: PitFloor) -> None:
        """Every table plays up to just before its end of the plan: no pause yet."""
        items: list[tuple[str, bytes]] = []
        for i, (t, upto) in enumerate(floor.tables):
            stop = upto - 2 if i < self.paused else upto  # before the pause and its status
            # Timed as if each table's newest message were sent just now: its lag is the
            # broker's and the pit's, not the simulation's calendar.
            items += t.payloads(self.shoe, stop, now=time.time())
        self.publisher.publish(items)
        self.wait_for(floor)

    def trouble(self, floor: PitFloor) -> None:
        """The paused tables pause (the station's own pauses), the offline ones die, and the
        next table's stream carries a forged message (signed with another key)."""
        items: list[tuple[str, bytes]] = []
        for i, (t, upto) in enumerate(floor.tables):
            if i < self.paused:
                items += t.payloads(self.shoe, upto, now=time.time())
            elif i < self.paused + self.n_offline:
                items.append(t.last_will(iso_now()))
                floor.offline.add(t.id)
            elif i == self.paused + self.n_offline:
                forger = Table(t.id, t.prefix, seq=t.seq, event_seq=t.event_seq)
                items.append(forger.extra("resume", iso_now(), by="upstream:pit/mallory",
                                          shoe=None, round=None))
                floor.forged.add(t.id)
        self.publisher.publish(items)
        self.wait_for(floor)

    def pit_stops(self, floor: PitFloor, clocks: int = 4) -> tuple[str, str, list[str]]:
        """After ``trouble``: the next table paused by a pit boss (the station's words say
        "held by the dealer", its ``raised_by`` the pit's command), the one after waiting in
        its shuffle check, and the ``clocks`` after that with an unsynchronised clock (the
        station's alert and status). The three: the paused, the waiting, the clocks."""
        first = self.paused + self.n_offline + 1
        (boss, _), (waiting, _) = floor.tables[first], floor.tables[first + 1]
        clocked = [t for t, _ in floor.tables[first + 2:first + 2 + clocks]]
        at = iso_now()
        items = boss.dealer_pause(self.shoe, at, "dispute",
                                  by=f"upstream:{floor.name}/{BOSS} [{floor.name}-0123456789ab]")
        items.append(waiting.extra("status", at, online=True, phase="shuffle_check",
                                   paused=None, shoe=None, round=None))
        for t in clocked:
            last = self.shoe[t.sent - 1]
            where = {"shoe": retable(last, t.id).get("shoe"), "round": last.get("round")}
            items.append(t.extra("alert", at, alert="clock_unsynchronised", by="clock",
                                 detail=UNSYNC, **where))
            items.append(t.extra("status", at, online=True, phase="between_rounds",
                                 paused=None, clock="unsynchronised", **where))
        self.publisher.publish(items)

        def shown() -> bool:
            tiles = {t["table"]: t for t in floor.pit.get("/api/tables")["tables"]}
            return "paused" in tiles[boss.id]["needs"] and \
                "shuffle_check" in tiles[waiting.id]["needs"] and \
                all(tiles[t.id]["clock"] == "unsynchronised" for t in clocked) and \
                len(floor.pit.alerts(kind="clock_unsynchronised")) >= len(clocked)

        wait_until(shown, 60, f"{floor.name} showing the pit boss's pause, the shuffle check "
                   "and the clocks")
        return boss.id, waiting.id, [t.id for t in clocked]

    def wait_for(self, floor: PitFloor) -> None:
        """Until the pit shows every table as far as it was sent."""
        def caught_up() -> bool:
            try:
                got = floor.pit.get("/api/tables")["tables"]
            except OSError:
                # A pit folding a floor's burst on a busy machine may answer late (its idle
                # bound closes the connection): ask again, as a page would.
                return False
            tiles = {t["table"]: t for t in got}
            for t, _ in floor.tables:
                tile = tiles.get(t.id)
                last = self.shoe[t.sent - 1] if t.sent else None
                if tile is None or last is None:
                    return False
                if t.id in floor.offline and tile["online"] is not False:
                    return False
                if t.id in floor.forged and "stream" not in tile["needs"]:
                    return False
                if tile["round"] != last.get("round", tile["round"]):
                    return False
            return True

        wait_until(caught_up, 180, f"{floor.name} showing every table")

    def close(self) -> None:
        for f in self.floors.values():
            f.pit.close()
        self.publisher.close()
        self.broker.stop()


def tile_of(floor: PitFloor, table: str) -> dict[str, Any]:
    tile = floor.pit.tile(table)
    assert tile is not None, table
    return tile
