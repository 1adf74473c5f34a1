"""What ``PIT.yaml`` says, once parsed (station.services.pit.config reads it). Pure values."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.services.broker.config import BrokerSettings
from station.settings.pagetls import IN_CLEAR_ON_LOOPBACK, PageAccess

LANGUAGES: Final = ("en", "zh")
DEFAULT_PORT: Final = 8090
KEYS_RESCAN_S: Final = 2.0  # a key file added to tables.keys_dir is trusted within this
ANSWER_TIMEOUT_S: Final = 10.0  # a command no table answered within this is "no answer"
ANSWER_TIMEOUT_MIN_S: Final = 1.0


@dataclass(frozen=True, slots=True)
class PitSettings:
    """The ``pit:`` section."""

    name: str = "pit"  # the name the tables know the pit's key by (upstream.command_keys)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    signing_key_file: Path | None = None  # None: $CREDENTIALS_DIRECTORY/signing-key
    pins_file: Path | None = None  # the pit bosses' hashed PINs; None: nobody can act
    journal: Path = Path("var/pit.sqlite3")
    language: str = "en"
    # A command the table has not answered within this is marked unanswered (docs/pit.md);
    # an answer that comes later still fills it in.
    answer_timeout_s: float = ANSWER_TIMEOUT_S
    # The archive's public key (PEM): with it the pit takes the archive's signed alerts
    # (``<prefix>/+/archive``, docs/journal.md) and shows them; None: it does not subscribe.
    archive_key_file: Path | None = None
    # TLS, the DNS names answered as Host, plain HTTP beyond loopback (station.settings.pagetls).
    access: PageAccess = IN_CLEAR_ON_LOOPBACK


@dataclass(frozen=True, slots=True)
class PitConfig:
    path: Path  # the PIT.yaml it came from
    broker: BrokerSettings
    keys_dir: Path  # tables.keys_dir: <table>.pub (or .pub.pem) per trusted table
    pit: PitSettings

    @property
    def client_id(self) -> str:
        return self.broker.client_id_or(f"pit-{self.pit.name}")

    def events_topics(self) -> list[str]:
        topics = [self.broker.topic("+", "events"), self.broker.topic("+", "status")]
        if self.pit.archive_key_file is not None:
            topics.append(self.broker.topic("+", "archive"))
        return topics

    def command_topic(self, table: str) -> str:
        return self.broker.topic(table, "commands")
