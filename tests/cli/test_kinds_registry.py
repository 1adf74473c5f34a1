"""A new reader kind and a new outlet kind are one module and one registry line each.

The kinds below are defined here, in the test, and registered for the test only
(``station.kinds.registry.registered``): a reader that reads codes from a text file, one a
line (key ``codes_path``), an outlet that keeps the messages in memory (key ``limit``), and a
display with the dealer's buttons that keeps the prompts. Each declares its own settings
type here, beside its code, as a kind's module does. Nothing else in the station is touched,
no shared settings type among them: config loading validates their keys with the station's
words, ``check-config`` runs their probes, and the assembly builds them and runs a table
with them. And no shared settings type holds a field named like a kind's key.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.base import EventSource
from drivers.events import CardRead, Command
from station.cli import main
from station.errors import ConfigError
from station.journal.outbox import Outbox
from station.kinds.keys import Key
from station.kinds.outlets import OutletContext
from station.kinds.probes import Finding
from station.kinds.readers import DeviceHooks
from station.kinds.registry import BUTTONS, FAMILIES, LIVE, Kind, registered
from station.live.assembly import build_daemon
from station.live.config import StationConfig, load_config, parse_config
from station.live.service.check import check
from station.settings import configmodel
from station.settings import upstream as upstream_settings
from station.settings.configsection import Section
from station.table.outputs import Output
from station.upstream.filesink import FileSink
from station.upstream.mqtt import MqttPublisher
from station.upstream.outlet import Outlet

# --- the reader kind: its settings, parser, device, probe and description ------------------


@dataclass(frozen=True, slots=True)
class CodesFileSettings:
    path: Path


def parse_codes_file(sec: Section, chosen: bool) -> CodesFileSettings | None:
    value = sec.path_("codes_path", None, "a text file of codes, one a line")
    if value is None:
        if chosen:
            sec.fail(sec.key("codes_path"), "a codes_file reader needs its file")
        return None
    return CodesFileSettings(sec.path.parent / value)


class CodesFileReader(EventSource):
    name = "codes-file"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def _run(self) -> None:
        for word in self.path.read_text().split():
            if self.stopping.wait(0.01):
                return
            # "!action" is the dealer's button, anything else a code read from the shoe.
            self.post(Command(word[1:], "dealer", time.time()) if word.startswith("!")
                      else CardRead(word, self.name, time.time()))
        self.stopping.wait()


def codes_file_settings(config: StationConfig) -> CodesFileSettings:
    return config.reader.kind_as(CodesFileSettings)


def build_codes_file(config: StationConfig, hooks: DeviceHooks) -> CodesFileReader:
    return CodesFileReader(codes_file_settings(config).path)


def probe_codes_file(config: StationConfig) -> Iterator[Finding]:
    path = codes_file_settings(config).path
    if not path.is_file():
        yield Finding(False, "reader.codes_path", f"{path} is not a file")
        return
    yield Finding(True, "reader.codes_path", f"{len(path.read_text().split())} codes")


CODES_FILE = Kind("codes_file", "codes read from a text file", (
    Key("codes_path", "file", "required", "the text file of codes, one a line"),),
    parse_codes_file, build_codes_file, probe_codes_file,
    lambda config, device: f"codes from {codes_file_settings(config).path}",
    frozenset({LIVE}))

# --- the outlet kind ------------------------------------------------------------------------


class MemoryOutlet:
    """Keeps up to ``limit`` messages; its link is always up."""

    def __init__(self, box: Outbox, limit: int) -> None:
        self.box = box
        self.limit = limit
        self.messages: list[bytes] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        self.notify()

    def notify(self) -> None:
        with self.lock:
            rows = self.box.pending(self.limit)
            self.messages = [*self.messages, *(r.payload for r in rows)][-self.limit:]
            self.box.mark_delivered([r.id for r in rows])

    def stop(self, timeout_s: float = 5.0) -> None:
        pass

    def backlog(self) -> int:
        return self.box.backlog()

    @property
    def connected(self) -> bool | None:
        return True


def outlets_conform(file: FileSink, mqtt: MqttPublisher, memory: MemoryOutlet) -> list[Outlet]:
    """Never called: mypy checks that each outlet has the declared interface (connected and
    backlog included), so no caller need ask an outlet by name what it can do."""
    return [file, mqtt, memory]


@dataclass(frozen=True, slots=True)
class MemorySettings:
    limit: int = 100


def parse_memory(sec: Section, chosen: bool) -> MemorySettings:
    return MemorySettings(sec.int_("limit", 100, 1, "how many messages to keep, e.g. 100",
                                   10_000) or 100)


def build_memory(ctx: OutletContext) -> MemoryOutlet:
    return MemoryOutlet(ctx.box, ctx.config.upstream.kind_as(MemorySettings).limit)


def probe_memory(config: StationConfig) -> Iterator[Finding]:
    limit = config.upstream.kind_as(MemorySettings).limit
    yield Finding(True, "upstream", f"memory, {limit} messages kept")


MEMORY = Kind("memory", "the messages kept in memory", (
    Key("limit", "whole number", "100", "how many messages are kept"),),
    parse_memory, build_memory, probe_memory)

# --- a display with the dealer's buttons (a live table needs one) -----------------------------


class PromptKeeper:
    def __init__(self) -> None:
        self.shown: list[Output] = []

    def show(self, outputs: list[Output]) -> None:
        self.shown += outputs


KEEPER = Kind("keeper", "keeps the prompts", build=lambda ctx: PromptKeeper(),
              traits=frozenset({BUTTONS}))


@pytest.fixture
def extra_kinds() -> Iterator[None]:
    with registered("reader", CODES_FILE), registered("upstream", MEMORY), \
            registered("display", KEEPER):
        yield


# NEW SHOE, the burn indicator (an ace: one card burnt), then one round of two naturals.
SHOE = ("!new_shoe", "AS", "KD", "!open_betting", "!close_betting", "9C", "8D", "KH", "KS")


def write_config(tmp: Path, **sections: Any) -> Path:
    (tmp / "codes.txt").write_text(" ".join(SHOE))
    doc: dict[str, Any] = {
        "table": {"id": "plug-1"},
        "cut_card": {},
        "reader": {"type": "codes_file", "codes_path": "codes.txt"},
        "upstream": {"type": "memory", "limit": 50},
        "display": {"type": "keeper"},
        "results": {"path": str(tmp / "results.jsonl"),
                    "announcements_path": str(tmp / "announcements.jsonl")},
        "recording": {"dir": None},
        "journal": {"path": str(tmp / "journal.sqlite3")},
    }
    for name, value in sections.items():
        doc[name] = {**doc[name], **value}
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_the_extra_kinds_load_with_their_own_keys(tmp_path: Path, extra_kinds: None) -> None:
    config = load_config(write_config(tmp_path))
    assert config.reader.type == "codes_file"
    assert codes_file_settings(config).path == tmp_path / "codes.txt"
    assert (config.upstream.type, config.upstream.kind) == ("memory", MemorySettings(50))
    assert config.display.type == "keeper"


@pytest.mark.parametrize(("section", "value", "message"), [
    ("reader", {"codes_path": None}, "reader.codes_path: a codes_file reader needs its file"),
    ("upstream", {"limit": 0},
     "upstream.limit: expected a whole number >= 1, got 0; how many messages to keep"),
    ("upstream", {"limt": 5}, "upstream.limt: unknown key (did you mean 'limit'?)"),
])
def test_the_extra_kinds_validate_their_keys_in_the_stations_words(
        tmp_path: Path, extra_kinds: None, section: str, value: dict[str, Any],
        message: str) -> None:
    path = write_config(tmp_path, **{section: value})
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: {message}"), str(err.value)


def test_the_types_offered_are_the_registered_ones(tmp_path: Path, extra_kinds: None) -> None:
    with pytest.raises(ConfigError, match=r"reader\.type: 'rfid' is not one of: simulated, "
                       r"serial, camera, hid, codes_file$"):
        parse_config(tmp_path / "s.yaml", {"reader": {"type": "rfid"}})


def test_without_the_registry_line_the_kind_and_its_keys_are_unknown(tmp_path: Path) -> None:
    assert "codes_file" not in FAMILIES["reader"].kinds  # the fixture removed it again
    with pytest.raises(ConfigError, match=r"reader\.codes_path: unknown key"):
        parse_config(tmp_path / "s.yaml", {"reader": {"codes_path": "x"}})
    with pytest.raises(ConfigError, match=r"is not one of: file, mqtt$"):
        parse_config(tmp_path / "s.yaml", {"upstream": {"type": "memory"}})


def test_check_config_runs_the_extra_kinds_probes(
        tmp_path: Path, extra_kinds: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path)
    lines = [f.line() for f in check(load_config(path))]
    assert f"ok   reader.codes_path: {len(SHOE)} codes" in lines
    assert "ok   upstream: memory, 50 messages kept" in lines
    assert "ok   upstream.signing_key_file: none: the memory upstream's messages go out " \
        "unsigned" in " ".join(lines)
    (tmp_path / "codes.txt").unlink()
    code = main(["check-config", "-c", str(path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"FAIL reader.codes_path: {tmp_path / 'codes.txt'} is not a file" in out


def test_the_assembly_builds_and_runs_a_table_of_the_extra_kinds(
        tmp_path: Path, extra_kinds: None) -> None:
    config = load_config(write_config(tmp_path))
    built = build_daemon(config)
    try:
        daemon = built.daemon
        outlet = daemon.outlet
        assert isinstance(outlet, MemoryOutlet)
        assert isinstance(daemon.display, PromptKeeper)
        assert [type(s) for s in daemon.sources] == [CodesFileReader]
        as_outlet: Outlet = outlet  # the declared interface, nothing probed by name
        assert as_outlet.connected is True
        # Every word of the file goes through the station, and the round goes upstream.
        daemon.run(until=lambda: daemon.station.phase.value in ("between_rounds", "paused")
                   and daemon.station.dealing.round_no >= 1)
        outlet.notify()
    finally:
        for s in built.daemon.sources:
            s.stop()
        built.close()
    assert daemon.station.phase.value != "paused", daemon.station.prompt
    assert any(b'"banker_total":8' in m and b'"player_total":9' in m
               for m in outlet.messages), outlet.messages
    assert isinstance(daemon.display, PromptKeeper) and daemon.display.shown


def test_a_reader_kind_without_a_device_is_built_and_needs_no_buttons(tmp_path: Path) -> None:
    """The simulated reader is a kind like any other: a reader kind without trait ``live``
    (say, one that replays a file) is built by the assembly in its place, with the console
    display, and no cut-card sensor joins it."""
    offline = replace(CODES_FILE, name="codes_offline", traits=frozenset())
    with registered("reader", offline), registered("upstream", MEMORY):
        path = write_config(tmp_path, reader={"type": "codes_offline"},
                            display={"type": "console"},
                            cut_card={"type": "modem_pin", "port": "loop://"})
        built = build_daemon(load_config(path))
        try:
            assert [type(s) for s in built.daemon.sources] == [CodesFileReader]
        finally:
            built.close()


# --- the seam: a kind's settings are its own -------------------------------------------------

# The modules of the settings every kind shares: a new kind adds nothing to them.
SHARED_SETTINGS = (configmodel, upstream_settings)
# StationConfig's own fields named like a kind's key: the config file's path, and the YAML
# as loaded (``source``), not a camera's source.
NOT_A_KIND_KEY = {("StationConfig", "path"), ("StationConfig", "source")}


def kind_keys() -> dict[str, str]:
    """Every registered kind's own key, with the kind that reads it."""
    return {key.name: f"{family}.type {entry.name}" for family, fam in FAMILIES.items()
            for entry in fam.kinds.values() for key in entry.keys}


def shared_fields() -> dict[str, str]:
    """Every field of every settings type of the shared modules, with its class."""
    found: dict[str, str] = {}
    for module in SHARED_SETTINGS:
        for name, cls in inspect.getmembers(module, dataclasses.is_dataclass):
            if cls.__module__ != module.__name__:
                continue  # imported (a table rule, a paytable): not this module's
            for f in dataclasses.fields(cls):
                if (name, f.name) not in NOT_A_KIND_KEY:
                    found[f.name] = f"{module.__name__}.{name}"
    return found


def test_no_shared_settings_type_holds_a_kinds_key(extra_kinds: None) -> None:
    """A kind's key is a field of the kind's own type, never of a type every kind shares
    (the built-in kinds and the ones this test registers alike)."""
    keys, fields = kind_keys(), shared_fields()
    assert {"port", "source", "host", "path", "language", "codes_path", "limit"} <= set(keys)
    clash = {name: (keys[name], fields[name]) for name in set(keys) & set(fields)}
    assert clash == {}, f"a kind's key in a shared settings type: {clash}"


def test_each_family_value_holds_only_what_its_kinds_share() -> None:
    """A section's value is its family's common keys, ``kind`` (the chosen kind's own
    settings), and what the config puts in from another section (the reader's
    ``badge_prefix``, from ``dealers:``); ``dedupe_ms`` is a table rule."""
    from_elsewhere = {"reader": {"badge_prefix"}}
    for family, fam in FAMILIES.items():
        names = {f.name for f in dataclasses.fields(fam.settings())}
        common = {k.name for k in fam.common} - {"dedupe_ms"}
        assert names == common | {"kind"} | from_elsewhere.get(family, set()), family


def test_a_new_kinds_settings_are_its_own_type(tmp_path: Path, extra_kinds: None) -> None:
    """The registered kinds' settings come back as the types declared in this test, and the
    shared settings modules do not name them: one module and one registry line."""
    config = load_config(write_config(tmp_path))
    assert config.reader.kind == CodesFileSettings(tmp_path / "codes.txt")
    assert config.upstream.kind == MemorySettings(50)
    assert config.display.kind is None  # a kind without keys has no settings
    with pytest.raises(TypeError, match="codes_file kind's settings are CodesFileSettings, "
                       "not MemorySettings"):
        config.reader.kind_as(MemorySettings)
    for module in SHARED_SETTINGS:
        text = inspect.getsource(module)
        for word in ("codes_file", "codes_path", "CodesFile", "Memory", "limit"):
            assert word not in text, (module.__name__, word)
