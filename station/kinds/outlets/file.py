"""``upstream.type: file``: the signed messages as JSON Lines in a file, or on stdout
(``station.upstream.filesink``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from station.kinds.keys import Key
from station.kinds.outlets import OutletContext
from station.kinds.probes import Finding, writable
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section
from station.settings.upstream import UpstreamSettings

if TYPE_CHECKING:
    from station.upstream.filesink import FileSink

KEYS = (Key("path", "file", "var/upstream.jsonl", "the JSON Lines file the messages are "
            "appended to, one a line; - for stdout"),)


def parse(sec: Section, settings: UpstreamSettings, chosen: bool) -> UpstreamSettings:
    return replace(settings, path=sec.path_("path", settings.path, "a file, or - for stdout")
                   or settings.path)


def build(ctx: OutletContext) -> FileSink:
    from station.upstream.filesink import FileSink  # noqa: PLC0415 - only when run

    return FileSink(ctx.box, ctx.config.upstream.path)


def probe(config: StationConfig) -> Iterator[Finding]:
    if config.upstream.path != "-":
        yield writable("upstream.path", Path(config.upstream.path))
