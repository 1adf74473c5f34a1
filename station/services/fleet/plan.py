"""What a fleet will be: each member's table id, folder, derived config and key, checked
whole before anything is written (a bad argument touches nothing), then ``write``.

A member's config is CONFIG with the table's own id, files and key: the data files under
``DIR/<table>/var/`` and every file CONFIG names relative to its own folder made absolute,
so the derived config works from ``DIR/<table>/``. Members have no display (there is no
one to watch N consoles, and N web pages would need N ports) and no metrics port.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from station.errors import ConfigError, StationError
from station.game.limits import SEED_MAX, TABLE_ID_RE
from station.live.config import parse_config
from station.settings.configsection import CREDENTIALS_PREFIX
from station.settings.textfile import describe_path
from station.settings.yamlload import load_yaml

TABLES_MAX: Final = 500  # beyond it one machine is the bottleneck, not the pit
KEYS_DIR: Final = "keys"  # DIR/keys/<table>.pub: the pit's tables.keys_dir
PRIVATE: Final = "signing-key.pem"  # in DIR/<table>/, as `station keygen` names the pair
PUBLIC: Final = "signing-key.pub.pem"


@dataclass(frozen=True, slots=True)
class Member:
    table: str
    folder: Path  # DIR/<table>
    data: dict[str, Any]  # its config
    key_exists: bool  # a key from an earlier run of the fleet: kept, so the pit trusts it

    @property
    def config(self) -> Path:
        return self.folder / "station.yaml"

    @property
    def journal(self) -> Path:
        return Path(self.data["journal"]["path"])

    @property
    def private(self) -> Path:
        return self.folder / PRIVATE

    @property
    def public(self) -> Path:
        return self.folder / PUBLIC

    @property
    def log(self) -> Path:
        return self.folder / "station.log"


@dataclass(frozen=True, slots=True)
class Plan:
    source: Path  # CONFIG
    directory: Path  # DIR, absolute
    members: tuple[Member, ...]

    @property
    def keys_dir(self) -> Path:
        return self.directory / KEYS_DIR

    def shared_key(self, member: Member) -> Path:
        return self.keys_dir / f"{member.table}.pub"


def plan(source: Path, tables: int, directory: Path) -> Plan:
    """The fleet of ``tables`` members of ``source`` in ``directory``; raises StationError
    naming what is wrong and what to do. Reads, never writes."""
    if not 1 <= tables <= TABLES_MAX:
        raise StationError(f"--tables {tables}: a fleet has 1 to {TABLES_MAX} tables")
    config = parse_config(source, raw := load_yaml(source, "config"))
    if config.upstream.type != "mqtt":
        raise ConfigError(f"{describe_path(source)}: upstream.type: {config.upstream.type}: a "
                          "fleet publishes to a broker, for the pit; set upstream.type: mqtt "
                          "with its host and port (config/fleet.yaml is an example)")
    if config.reader.type != "simulated":
        raise ConfigError(f"{describe_path(source)}: reader.type: {config.reader.type}: a "
                          "fleet's tables are simulated; set reader.type: simulated")
    width = max(2, len(str(tables)))  # -01 as the issue names them; -001 from 100 on
    base = config.rules.table
    last = f"{base}-{tables:0{width}d}"
    if TABLE_ID_RE.fullmatch(last) is None:
        raise ConfigError(f"{describe_path(source)}: table.id: {base!r} with --tables {tables} "
                          f"makes ids like {last!r}, longer than a table id may be (64); "
                          "choose a shorter table.id")
    folder = Path(os.path.abspath(directory))
    _check_writable(folder)
    _check_folder(folder / KEYS_DIR)
    here = Path(os.path.abspath(source)).parent
    members = []
    for n in range(1, tables + 1):
        table = f"{base}-{n:0{width}d}"
        member = Member(table, folder / table, {}, False)
        _check_folder(member.folder)
        data = derive(raw, here, table, member.folder, index=n - 1, number=f"{n:0{width}d}")
        try:
            parse_config(member.config, data)
        except ConfigError as exc:
            raise ConfigError(f"{describe_path(source)}, as fleet table {table}: {exc}") from None
        members.append(Member(table, member.folder, data, _old_key(member)))
    return Plan(source, folder, tuple(members))


def derive(raw: Any, here: Path, table: str, folder: Path, *, index: int,
           number: str) -> dict[str, Any]:
    """Member ``table``'s config from CONFIG's data ``raw`` (valid; ``here`` its folder):
    its id, its files under ``folder``, its key beside its config, and the files CONFIG
    names relative to its folder made absolute."""
    data: dict[str, Any] = copy.deepcopy(raw) if isinstance(raw, dict) else {}
    for section in ("table", "results", "recording", "upstream", "simulation"):
        data[section] = dict(data.get(section) or {})
    var = folder / "var"
    data["table"]["id"] = table
    if data["table"].get("paytable") is not None:
        data["table"]["paytable"] = _beside(here, data["table"]["paytable"])
    data["journal"] = {"path": str(var / "journal.sqlite3")}
    results = data["results"]
    results["path"] = str(var / "results.jsonl")
    if results.get("announcements_path", "") is not None:  # absent: on, as the station's
        results["announcements_path"] = str(var / "announcements.jsonl")
    if data["recording"].get("dir", "") is not None:
        data["recording"]["dir"] = str(var / "recordings")
    data["display"] = {"type": "none"}  # the table log goes to DIR/<table>/station.log
    data["metrics"] = {"port": None}
    up = data["upstream"]
    up["signing_key_file"] = PRIVATE  # beside the derived config
    if up.get("client_id") is not None:  # one client id each, or the broker drops the others
        up["client_id"] = f"{up['client_id']}-{number}"
    if up.get("credentials_file") is not None:
        up["credentials_file"] = _beside(here, up["credentials_file"])
    if isinstance(up.get("tls"), dict):
        # "{table}" in a file's name is the member's table id: on a locked broker each table
        # is its own client certificate (station-<table>), never one shared by the fleet.
        up["tls"] = {k: v if v is None else _beside(here, str(v).replace("{table}", table))
                     for k, v in up["tls"].items()}
    if isinstance(up.get("command_keys"), dict):
        up["command_keys"] = {k: _beside(here, v) for k, v in up["command_keys"].items()}
    sim = data["simulation"]
    if sim.get("seed") is not None:  # the same seed at every table would deal the same shoes
        sim["seed"] = (sim["seed"] + index) % (SEED_MAX + 1)
    return data


def write(fleet: Plan) -> None:
    """Folders, keys and configs; raises StationError (a disk that fills, a folder made
    read-only since the plan)."""
    from station.wire.keyfiles import write_pair  # noqa: PLC0415
    from station.wire.signing import load_private_key, public_pem  # noqa: PLC0415

    try:
        fleet.keys_dir.mkdir(parents=True, exist_ok=True)
        for member in fleet.members:
            member.folder.mkdir(exist_ok=True)
            if member.key_exists:
                key = load_private_key(member.private)
                _replace(member.public, public_pem(key.public_key()))
            else:
                member.public.unlink(missing_ok=True)  # a public key without its private one
                key = write_pair(member.private, member.public)
            _replace(fleet.shared_key(member), public_pem(key.public_key()))
            text = (f"# Written by `station fleet` from {fleet.source} at each start: edit "
                    "that file, not this one.\n"
                    + yaml.safe_dump(member.data, sort_keys=False, allow_unicode=True))
            _replace(member.config, text.encode("utf-8"))
    except OSError as exc:
        raise StationError(f"--dir {describe_path(fleet.directory)}: "
                           f"{exc.filename or ''}: {exc.strerror or exc}") from None


def _beside(here: Path, value: Any) -> Any:
    """A file CONFIG names relative to its folder, absolute; a systemd credential as is."""
    if not isinstance(value, str) or value.startswith(CREDENTIALS_PREFIX):
        return value
    return str(here / value)


def _check_writable(folder: Path) -> None:
    """DIR, or the folder it will be made in, is a folder this user may write."""
    probe = folder
    try:
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if not probe.is_dir():
            raise StationError(f"--dir {describe_path(folder)}: {describe_path(probe)} is not "
                               "a folder; choose another --dir")
    except OSError as exc:
        raise StationError(f"--dir {describe_path(folder)}: {exc.strerror or exc}; choose "
                           "another --dir") from None
    if not os.access(probe, os.W_OK | os.X_OK):
        raise StationError(f"--dir {describe_path(folder)}: {describe_path(probe)} is not "
                           "writable by this user; choose another --dir")


def _check_folder(path: Path) -> None:
    try:
        if path.exists() and not path.is_dir():
            raise StationError(f"--dir: {describe_path(path)} is a file, where the fleet keeps "
                               "a folder; move it, or choose another --dir")
    except OSError as exc:
        raise StationError(f"--dir: {describe_path(path)}: {exc.strerror or exc}") from None


def _old_key(member: Member) -> bool:
    """Whether the member has a key from an earlier run; one that cannot be used is refused
    here, before anything is written."""
    try:
        if not member.private.exists():
            return False
    except OSError as exc:
        raise StationError(f"--dir: {describe_path(member.private)}: "
                           f"{exc.strerror or exc}") from None
    from station.wire.signing import load_private_key  # noqa: PLC0415

    load_private_key(member.private)  # ConfigError names the file and the fix
    return True


def _replace(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (a stopped fleet never leaves half a config)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
