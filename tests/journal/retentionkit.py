"""Real journals moved aside for the retention tests: made with the station's own Journal and
moved aside with station.live.assembly's own naming, with shoes and the archive's acknowledgements
journaled as a station journals them."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml

from drivers.events import CardRead, Command
from station.journal import Journal
from station.live.assembly import _archive
from station.table.acks import ack_note
from station.table.tablerules import TableRules

TABLE = "t5"
DAY = 86_400.0


@dataclass(frozen=True)
class Made:
    path: Path
    journal_id: str
    last_seq: int
    head: str


def shoe_message(n: int) -> list[tuple[str, bytes]]:
    body = {"kind": "shoe_started", "seq": n, "shoe": f"s{n}", "table": TABLE, "v": 1}
    return [("events", orjson.dumps(body, option=orjson.OPT_SORT_KEYS))]


def fill(journal: Journal, *, shoes: int, records: int, ended: float) -> None:
    """``records`` records (at least one per shoe), the last at wall time ``ended``."""
    records = max(records, shoes)
    for i in range(records):
        wall = ended - (records - 1 - i)
        messages = shoe_message(i) if i < shoes else []
        journal.append(CardRead("AS", "scanner", wall), wall, 1000.0 + i, messages)


def make_aside(folder: Path, *, shoes: int = 1, records: int = 5, ended: float | None = None,
               table: str = TABLE) -> Made:
    """A journal of ``table`` beside ``folder/journal.sqlite3``, moved aside as a station
    moves one (which must not exist now)."""
    path = folder / "journal.sqlite3"
    # A session of its own, as a station's (its recording is named by it).
    with Journal.create(path, TableRules(table=table), None, secrets.token_hex(6)) as journal:
        fill(journal, shoes=shoes, records=records,
             ended=time.time() - 30 * DAY if ended is None else ended)
        made = (journal.journal_id.hex(), journal.last_seq, journal.head_hash.hex())
        created = journal.header.created
    return Made(_archive(path, created), *made)


def ack(journal: Journal, made: Made, *, seq: int | None = None, head: str | None = None,
        n: int = 1, refusal: str | None = None) -> None:
    """The archive's acknowledgement of ``made`` journaled in ``journal`` as the daemon
    journals it (by default of its last record, taken)."""
    seq = made.last_seq if seq is None else seq
    note = ack_note(made.journal_id, seq, head or made.head, refusal)
    journal.append(Command("archived", f"upstream:archive [a-{n}]", time.time(), note),
                   time.time(), 2000.0 + n)


def current(folder: Path, *, shoes: int = 0) -> Journal:
    """The journal in use (open: the caller closes it)."""
    journal = Journal.create(folder / "journal.sqlite3", TableRules(table=TABLE), None, "c")
    fill(journal, shoes=shoes, records=shoes, ended=time.time())
    return journal


def config(folder: Path, retention: dict[str, int] | None, *,
           recordings: Path | None = None) -> Path:
    cfg: dict[str, object] = {
        "table": {"id": TABLE},
        "display": {"type": "none"},
        "recording": {"dir": str(recordings) if recordings else None},
        "journal": {"path": str(folder / "journal.sqlite3")},
    }
    if retention is not None:
        cfg["journal"] = {"path": str(folder / "journal.sqlite3"), "retention": retention}
    path = folder / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path
