"""``PIT.yaml``: three sections, every key checked, unknown keys refused with the nearest
known one, as the station's own config (station.settings.configsection). A bad file raises
ConfigError naming the file, the key and the fix; ``station pit`` exits 2 with it.

``broker:`` and ``tables:`` are those of every service that listens to many tables, read by
one parser (station.services.broker.config). Files (keys, PINs, TLS, credentials) are relative to
the
config's folder; the journal is relative to the working directory, as the station's
``journal.path``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from station.services.broker.config import parse_service_config
from station.services.pit.settings import (
    ANSWER_TIMEOUT_MIN_S,
    DEFAULT_PORT,
    LANGUAGES,
    PitConfig,
    PitSettings,
)
from station.settings.configsection import Section, secret_path
from station.settings.pagetls import ACCESS_KEYS, parse_access
from station.settings.upstream import KEY_NAME
from station.settings.yamlload import load_yaml

# The broker keeps the pit's session (the tables' messages queued) this long while it is away.
SESSION_EXPIRY_S: Final = 3600
PIT_KEYS: Final = ("name", "host", "port", "signing_key_file", "pins_file", "journal",
                   "language", "answer_timeout_s", "archive_key_file",
                   *ACCESS_KEYS)


def _pit_language(sec: Section, default: str) -> str:
    """``pit.language``, a BCP 47 tag (``zh`` is ``zh-Hans``), as the pit's words name it:
    they are English and Simplified Chinese so far (their catalogues are issue 29's part
    still to do), so a tag the pit has no words in is refused, never shown half."""
    tag = sec.language("language", default)
    said = {"en": "en", "zh-Hans": "zh"}.get(tag)
    if said is None:
        sec.fail(sec.key("language"), f"{tag}: the pit's pages are in {', '.join(LANGUAGES)} "
                 "only so far; use en or zh-Hans")
    return said


def load_pit_config(path: Path, *, keys_must_exist: bool = True) -> PitConfig:
    """``keys_must_exist=False`` for what reads no table's key (``station pit pin``): the
    PINs can be set before the fleet has written the tables' keys."""
    return parse_pit_config(path, load_yaml(path, "pit config"),
                            keys_must_exist=keys_must_exist)


def parse_pit_config(path: Path, data: Any, *, keys_must_exist: bool = True) -> PitConfig:
    sections = parse_service_config(path, data, "pit", PIT_KEYS,
                                    session_expiry_s=SESSION_EXPIRY_S,
                                    keys_must_exist=keys_must_exist)
    return PitConfig(path, sections.broker, sections.tables.keys_dir, _pit(sections.own))


def _pit(sec: Section) -> PitSettings:
    d = PitSettings()
    name = sec.str_("name", d.name, "e.g. pit") or d.name
    if not KEY_NAME.match(name):
        sec.fail("pit.name", f"{name[:64]!r}: 1-64 letters, digits, '_', '-' or '.': the "
                 "name the tables give the pit's key in upstream.command_keys")
    host = sec.str_("host", d.host, "an address of this machine, e.g. 127.0.0.1") or d.host
    port = sec.int_("port", DEFAULT_PORT, 1, "a TCP port", 65535) or DEFAULT_PORT
    key = sec.path_("signing_key_file", None, "the pit's Ed25519 private key (PEM), e.g. "
                    "keys/pit.pem; `station keygen DIR --name pit` writes one")
    pins = sec.path_("pins_file", None, "a file next to the config, e.g. pit.pins")
    journal = sec.path_("journal", str(d.journal), "e.g. var/pit.sqlite3") or str(d.journal)
    timeout_fix = f"seconds a command waits for the table's answer, e.g. {d.answer_timeout_s:g}"
    timeout = sec.float_("answer_timeout_s", d.answer_timeout_s, timeout_fix)
    if timeout < ANSWER_TIMEOUT_MIN_S:
        sec.fail("pit.answer_timeout_s", f"{timeout:g} s is too short for a table to answer "
                 f"over the broker; {timeout_fix} (at least {ANSWER_TIMEOUT_MIN_S:g})")
    archive = sec.path_("archive_key_file", None, "the archive's public key (PEM), e.g. "
                        "keys/archive.pub.pem")
    return replace(
        d, name=name, host=host, port=port,
        archive_key_file=None if archive is None else sec.path.parent / archive,
        signing_key_file=None if key is None else secret_path(sec, "signing_key_file", key),
        pins_file=None if pins is None else sec.path.parent / pins,
        journal=Path(journal),
        language=_pit_language(sec, d.language), answer_timeout_s=timeout,
        access=parse_access(sec, host))

