"""``upstream:``: where the station's signed messages go, one module per outlet kind
(``file``, ``mqtt``). Every outlet is a ``station.upstream.outlet.Outlet``.

The keys every outlet shares are here (``type``, ``signing_key_file``; their values:
``UpstreamConfig``); each outlet kind declares its own settings type in its module and
checks its own keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from station.kinds.keys import Key
from station.settings.configmodel import StationConfig, UpstreamConfig
from station.settings.configsection import Section, secret_path

if TYPE_CHECKING:  # loading a config never imports the publishers nor cryptography
    from station.journal.outbox import Outbox
    from station.wire.commands import Accepted, Refused
    from station.wire.signing import Signer

COMMON = (
    Key("type", "text", "file", "where the signed messages go"),
    Key("signing_key_file", "file", "null", "the Ed25519 key that signs every message, next "
        "to the config or ${CREDENTIALS_DIRECTORY}/ID; null: the unit's credential "
        "signing-key (a file outlet without one writes unsigned messages)"),
)


@dataclass(frozen=True, slots=True)
class OutletContext:
    """What an outlet's builder gets: the journal's outbox to drain, the signer (None only
    for a kind without trait ``signed``), where verified commands go, and the ids of the
    commands accepted before a restart (each stays used)."""

    config: StationConfig
    box: Outbox
    signer: Signer | None
    on_command: Callable[[Accepted | Refused], None]
    command_ids: Sequence[tuple[str, float]] = ()
    # The journal's committed head (id, seq, hash), for the publisher's presence statuses.
    head: Callable[[], tuple[bytes, int, bytes]] | None = None


def secret_file(sec: Section, name: str) -> Path | None:
    """A file holding a secret, next to the config (or a systemd credential)."""
    value = sec.path_(name, None, "a file next to the config, e.g. keys/signing.pem")
    return None if value is None else secret_path(sec, name, value)


def parse_common(sec: Section, settings: UpstreamConfig, chosen: str) -> UpstreamConfig:
    return replace(settings, signing_key_file=secret_file(sec, "signing_key_file"))
