"""ARCHIVE.yaml: ``broker:`` and ``tables:``, read by the parser of every service that
listens to many tables (station.services.broker.config), and ``archive:`` (``dir``, ``name``,
``signing_key_file``, ``mirror_key_file``). Unknown keys are refused."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.services.broker.config import BrokerSettings, TablesSettings, parse_service_config
from station.settings.configsection import secret_path
from station.settings.upstream import KEY_NAME
from station.settings.yamlload import load_yaml

ARCHIVE_KEYS: Final = ("dir", "name", "signing_key_file", "mirror_key_file", "max_lag_s")
MAX_LAG_S: Final = 300.0  # a record that reaches the archive older than this is an alert
# The broker keeps queueing the mirror for the archive this long while it is away (a restart,
# an upgrade): a day, since every record it misses is one the stations must send again.
SESSION_EXPIRY_S: Final = 86400


@dataclass(frozen=True, slots=True)
class ArchiveSettings:
    dir: Path  # one folder per table under it
    name: str  # who acknowledges: the `actor` of the archived commands
    signing_key_file: Path | None  # None: the unit's credential signing-key
    # The X25519 private key the stations seal their mirror for (upstream.mirror_key);
    # None: the unit's credential mirror-key, if it has one (without, sealed records are
    # refused and alerted).
    mirror_key_file: Path | None = None
    # A record this much older than the archive's clock when it arrives: the mirror is behind
    # (a table's backlog, an outage): the ``lag`` alert, which the pit shows.
    max_lag_s: float = MAX_LAG_S


@dataclass(frozen=True, slots=True)
class ArchiveConfig:
    path: Path
    broker: BrokerSettings
    tables: TablesSettings
    archive: ArchiveSettings

    def client_id(self) -> str:
        return self.broker.client_id_or(f"archive-{self.archive.name}")


def load_archive_config(path: Path) -> ArchiveConfig:
    """Read and check ARCHIVE.yaml; raises ConfigError naming the file, key and fix."""
    data = load_yaml(path, "archive config")
    sections = parse_service_config(path, data, "archive", ARCHIVE_KEYS,
                                    session_expiry_s=SESSION_EXPIRY_S)
    sec = sections.own
    folder = sec.path_("dir", None, "the folder the journals are kept in")
    if folder is None:
        sec.fail(sec.key("dir"), "missing: name the folder the journals are kept in")
    given = sec.str_("name", None, "who acknowledges, e.g. dc1")
    if given is None or not KEY_NAME.match(given):
        sec.fail(sec.key("name"), f"{given!r}: 1-64 letters, digits, '_', '-' or '.'; the "
                 "stations list the archive's key under this name in upstream.command_keys")
    key = sec.path_("signing_key_file", None, "the archive's Ed25519 private key (PEM)")
    mirror = sec.path_("mirror_key_file", None, "the archive's X25519 private key (PEM), "
                       "`station keygen DIR --mirror`")
    lag_fix = f"seconds a record may be behind when it arrives, e.g. {MAX_LAG_S:g}"
    lag = sec.float_("max_lag_s", MAX_LAG_S, lag_fix)
    if not lag > 0:
        sec.fail(sec.key("max_lag_s"), f"{lag:g}: {lag_fix} (more than 0)")
    return ArchiveConfig(path, sections.broker, sections.tables, ArchiveSettings(
        path.parent / folder, given,
        None if key is None else secret_path(sec, "signing_key_file", key),
        mirror_key_file=None if mirror is None else secret_path(sec, "mirror_key_file", mirror),
        max_lag_s=lag))
