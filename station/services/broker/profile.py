"""The Mosquitto 2 configuration of a studio's broker (``station broker-config``, issue 32):
``mosquitto.conf`` (one TLS listener, no anonymous clients, each party known by its client
certificate or its password, the bridges) and ``acl`` (what each party may publish and read).
Text only: the command writes it.

The ACL, per table T and prefix P (docs/operations.md, "The studio's broker"):

- the station of T publishes ``P/T/events``, ``P/T/status`` (its last will too) and
  ``P/T/journal``, and reads ``P/T/commands``: nothing of another table;
- a pit reads every table's events, status and archive alerts and writes their commands;
- an archive reads every journal and writes the archive alerts and the commands (its
  ``archived`` acknowledgements; what a signed command may do is the station's to judge);
- a game server reads events and status and writes commands, never a journal;
- a bridge from another broker writes what it forwards and reads what it takes;
- nobody else: Mosquitto's ACL file grants nothing that is not listed, and the listener
  refuses anonymous clients.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from station.services.broker.studio import Studio

CONF: Final = "mosquitto.conf"
ACL: Final = "acl"


def acl_text(studio: Studio) -> str:
    p = studio.broker.prefix
    out = [f"# Written by `station broker-config` from {studio.path.name}: edit that file and",
           "# run it again, then reload the broker (SIGHUP reads this file again).",
           "# Nothing is granted that is not listed here; anonymous clients cannot connect.",
           ""]

    def party(identity: str, what: str, grants: list[tuple[str, str]]) -> None:
        out.append(f"# {what}")
        out.append(f"user {identity}")
        out.extend(f"topic {access} {topic}" for access, topic in grants)
        out.append("")

    for t in studio.tables:
        party(f"station-{t}", f"table {t}: its own topics only",
              [("write", f"{p}/{t}/events"), ("write", f"{p}/{t}/status"),
               ("write", f"{p}/{t}/journal"), ("read", f"{p}/{t}/commands")])
    for name in studio.pits:
        party(f"pit-{name}", f"pit {name}: every table's events, status and archive alerts; "
              "their commands",
              [("read", f"{p}/+/events"), ("read", f"{p}/+/status"),
               ("read", f"{p}/+/archive"), ("write", f"{p}/+/commands")])
    for name in studio.archives:
        party(f"archive-{name}", f"archive {name}: every journal; its alerts and "
              "acknowledgements",
              [("read", f"{p}/+/journal"), ("write", f"{p}/+/archive"),
               ("write", f"{p}/+/commands")])
    for name in studio.game_servers:
        party(f"game-{name}", f"game server {name}: events and status, commands; never a "
              "journal",
              [("read", f"{p}/+/events"), ("read", f"{p}/+/status"),
               ("write", f"{p}/+/commands")])
    for peer in studio.peers:
        party(peer.identity, f"the bridge {peer.name} from another broker",
              [("write", f"{p}/+/{leaf}") for leaf in peer.out]
              + [("read", f"{p}/+/{leaf}") for leaf in peer.into])
    return "\n".join(out)


def conf_text(studio: Studio, acl: Path) -> str:
    b = studio.broker
    lines = [
        f"# Written by `station broker-config` from {studio.path.name}: edit that file and run",
        "# it again. Mosquitto 2 (docs/operations.md, \"The studio's broker\").",
        "per_listener_settings false",
        "allow_anonymous false",
        f"acl_file {acl}",
        "",
        "# One listener, TLS only: nothing of the game crosses the network in clear.",
        f"listener {b.port} {b.listen}",
        "tls_version tlsv1.2",
        f"cafile {b.ca_file}",
        f"certfile {b.cert_file}",
        f"keyfile {b.key_file}",
    ]
    if b.identity == "certificate":
        lines += [
            "# Each party is who its certificate (issued by the studio CA) says: its common",
            "# name, station-<table>, pit-<name>, archive-<name>, game-<name>.",
            "require_certificate true",
            "use_identity_as_username true",
        ]
    else:
        lines += [
            "# Each party is a user of the password file (mosquitto_passwd), the names as",
            "# station-<table>, pit-<name>, archive-<name>, game-<name>.",
            "require_certificate false",
            f"password_file {b.password_file}",
        ]
    lines.append("")
    if b.persistence_dir is not None:
        lines += ["# Sessions and queued messages survive a restart (the archive's day of",
                  "# queueing, the stations' commands).",
                  "persistence true", f"persistence_location {b.persistence_dir}/", ""]
    for bridge in studio.bridges:
        lines += [
            f"# The bridge {bridge.name}: this broker's tables to the broker at "
            f"{bridge.host}:{bridge.port}",
            f"connection {bridge.identity}",
            f"address {bridge.host}:{bridge.port}",
            f"remote_clientid {bridge.identity}",
            "cleansession false",
            f"bridge_cafile {bridge.ca_file}",
            f"bridge_certfile {bridge.cert_file}",
            f"bridge_keyfile {bridge.key_file}",
            "bridge_insecure false",
        ]
        lines += [f"topic {b.prefix}/+/{leaf} out 1" for leaf in bridge.out]
        lines += [f"topic {b.prefix}/+/{leaf} in 1" for leaf in bridge.into]
        lines.append("")
    return "\n".join(lines)
