"""What a journal records of the config it was written under, to tell a changed one.

A start compares this config with the journal's last (docs/journal.md, "Configuration
changes"): the SHA-256 of the config file's and the paytable file's bytes (what
``station verify-install -c`` checks the files against), and a short digest of every
dotted key's value (``upstream.mqtt.host``), so the keys that changed can be named without
the journal or a message ever holding a value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from drivers.events import ConfigChanged

DIGEST_HEX = 16  # 64 bits of SHA-256 per value: enough to tell a change, too few to guess from


@dataclass(frozen=True, slots=True)
class ConfigPrint:
    config: str | None  # SHA-256 hex of the config file; None: not known
    paytable: str | None  # of the paytable file; None: none, or not known
    values: tuple[tuple[str, str], ...]  # (dotted key, value digest), sorted

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config, "paytable": self.paytable, "values": dict(self.values)}

    @classmethod
    def from_json(cls, obj: Any) -> ConfigPrint | None:
        """The print a journal header holds; None for one that holds none (older)."""
        if not isinstance(obj, dict):
            return None
        values = obj.get("values")
        if not isinstance(values, dict):
            return None
        return cls(_text(obj.get("config")), _text(obj.get("paytable")),
                   tuple(sorted((str(k), str(v)) for k, v in values.items())))

    @classmethod
    def of_event(cls, ev: ConfigChanged) -> ConfigPrint:
        return cls(ev.new_config, ev.new_paytable, ev.values)

    def changed(self, old: ConfigPrint) -> tuple[str, ...]:
        """The dotted keys whose values differ from ``old``'s (added or gone too)."""
        mine, theirs = dict(self.values), dict(old.values)
        return tuple(sorted(k for k in mine.keys() | theirs.keys()
                            if mine.get(k) != theirs.get(k)))

    def same_files(self, old: ConfigPrint) -> bool:
        return (self.config, self.paytable) == (old.config, old.paytable)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def file_sha256(path: Path) -> str | None:
    """The file's SHA-256 (hex), or None when it cannot be read (a config given as data)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def flatten(data: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of a YAML mapping as (dotted key, value); a list is one value."""
    if isinstance(data, Mapping) and data:
        for key in sorted(data, key=str):
            yield from flatten(data[key], f"{prefix}{key}.")
        return
    yield prefix[:-1], data


def value_digest(value: Any) -> str:
    data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
                        default=str)
    return hashlib.sha256(data).hexdigest()[:DIGEST_HEX]


def print_of(source: Mapping[str, Any], config_file: Path,
             paytable_file: Path | None) -> ConfigPrint:
    """The print of a config: ``source`` as loaded from ``config_file``."""
    values = tuple(sorted((k, value_digest(v)) for k, v in flatten(source) if k))
    return ConfigPrint(file_sha256(config_file),
                       file_sha256(paytable_file) if paytable_file is not None else None,
                       values)
