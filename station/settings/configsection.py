"""One section of a YAML file, read key by key: every error names the file, the key and the
fix (``ConfigError``), and keys nobody asked for are refused with the nearest known one.

Shared by the config's parser and each kind's (``station/kinds/``), so a kind validates its
own keys with the same words as the rest of the config.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from station.errors import ConfigError
from station.game.limits import seconds_problem, short, whole_problem
from station.settings.languages import accepted, tag_of
from station.settings.textfile import describe_path

MAX_PATH_CHARS = 4096
CREDENTIALS_PREFIX = "${CREDENTIALS_DIRECTORY}/"


class Section:
    """Reads one mapping, remembering which keys were used so the rest can be refused."""

    def __init__(self, path: Path, prefix: str, data: Any, allowed: tuple[str, ...]) -> None:
        self.path = path
        self.prefix = prefix
        if data is None:
            data = {}
        if not isinstance(data, dict):
            self.fail(prefix or "(top level)",
                      f"must be a mapping of keys to values, got {short(data)}")
        for key in data:
            if key not in allowed:
                near = difflib.get_close_matches(str(key)[:100], allowed, n=1)
                hint = f"did you mean '{near[0]}'?" if near else f"known keys: {', '.join(allowed)}"
                self.fail(self.key(short(key)[1:-1] if isinstance(key, str) else short(key)),
                          f"unknown key ({hint})")
        self.data: dict[str, Any] = data

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def fail(self, key: str, message: str) -> NoReturn:
        raise ConfigError(f"{describe_path(self.path)}: {key}: {message}")

    def int_(self, name: str, default: int | None, minimum: int, fix: str,
             maximum: int) -> int | None:
        value = self.data.get(name, default)
        if value is None and default is None:
            return None
        problem = whole_problem(value, minimum, maximum)
        if problem is not None:
            self.fail(self.key(name), f"{problem}; {fix}")
        return value if isinstance(value, int) else None

    def float_(self, name: str, default: float, fix: str) -> float:
        value = self.data.get(name, default)
        problem = seconds_problem(value)
        if problem is not None:
            self.fail(self.key(name), f"{problem}; {fix}")
        return float(value)

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.data.get(name, default)
        if not isinstance(value, str) or value not in choices:
            self.fail(self.key(name), f"{short(value)} is not one of: {', '.join(choices)}")
        return value

    def language(self, name: str, default: str) -> str:
        """A BCP 47 language tag of station.settings.languages (an alias such as ``zh``
        taken, case ignored), as its registered spelling."""
        value = self.data.get(name, default)
        tag = tag_of(value) if isinstance(value, str) else None
        if tag is None:
            self.fail(self.key(name), f"{short(value)} is not one of: {', '.join(accepted())} "
                      "(BCP 47 language tags; zh is zh-Hans)")
        return tag

    def bool_(self, name: str, default: bool, fix: str) -> bool:
        value = self.data.get(name, default)
        if not isinstance(value, bool):
            self.fail(self.key(name), f"expected true or false, got {short(value)}; {fix}")
        return value

    def str_(self, name: str, default: str | None, fix: str) -> str | None:
        value = self.data.get(name, default)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(self.key(name), f"expected a non-empty text, got {short(value)}; {fix}")
        return value

    def path_(self, name: str, default: str | None, fix: str) -> str | None:
        """A file or folder name: text without control characters, of a sane length."""
        value = self.str_(name, default, fix)
        if value is not None and (len(value) > MAX_PATH_CHARS
                                  or any(ord(c) < 32 for c in value)):
            self.fail(self.key(name), f"{short(value)} is not a usable path (control "
                      f"characters, or longer than {MAX_PATH_CHARS}); {fix}")
        return value

    def sub(self, name: str, allowed: tuple[str, ...]) -> Section:
        return Section(self.path, self.key(name), self.data.get(name), allowed)


def secret_path(sec: Section, name: str, value: str,
                env: Mapping[str, str] | None = None) -> Path:
    """A secret file: relative to the config's folder, or ``${CREDENTIALS_DIRECTORY}/ID``,
    a credential systemd passed the unit (``LoadCredential=ID:FILE``), found at load time."""
    if not value.startswith(CREDENTIALS_PREFIX):
        return sec.path.parent / value
    cred = value.removeprefix(CREDENTIALS_PREFIX)
    if not cred or "/" in cred or cred in (".", ".."):
        sec.fail(sec.key(name), f"{short(value)}: name one credential, e.g. "
                 f"{CREDENTIALS_PREFIX}mqtt-client-key")
    folder = (os.environ if env is None else env).get("CREDENTIALS_DIRECTORY", "")
    if not folder:
        sec.fail(sec.key(name), f"{short(value)} is a systemd credential, but "
                 "CREDENTIALS_DIRECTORY is not set: run the station from its unit with "
                 f"LoadCredential={cred}:FILE, or name the file itself")
    return Path(folder) / cred
