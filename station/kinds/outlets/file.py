"""``upstream.type: file``: the signed messages as JSON Lines in a file, or on stdout
(``station.upstream.filesink``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from station.kinds.keys import Key
from station.kinds.outlets import OutletContext
from station.kinds.probes import Finding, writable
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from station.upstream.filesink import FileSink


@dataclass(frozen=True, slots=True)
class FileSettings:
    """The file outlet's own key."""

    path: str = "var/upstream.jsonl"  # JSON Lines, one signed message per line; "-" stdout


KEYS = (Key("path", "file", FileSettings().path, "the JSON Lines file the messages are "
            "appended to, one a line; - for stdout"),)


def settings(config: StationConfig) -> FileSettings:
    """The chosen file outlet's settings, typed."""
    return config.upstream.kind_as(FileSettings)


def parse(sec: Section, chosen: bool) -> FileSettings:
    d = FileSettings()
    return FileSettings(sec.path_("path", d.path, "a file, or - for stdout") or d.path)


def build(ctx: OutletContext) -> FileSink:
    from station.upstream.filesink import FileSink  # noqa: PLC0415 - only when run

    return FileSink(ctx.box, settings(ctx.config).path)


def probe(config: StationConfig) -> Iterator[Finding]:
    path = settings(config).path
    if path != "-":
        yield writable("upstream.path", Path(path))
