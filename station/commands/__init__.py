"""Layer 12, the commands: subcommands of the ``station`` console script, one module each.

Each module exposes ``register(subparsers)``, which adds its parser and sets ``func`` to a
callable taking the parsed ``argparse.Namespace`` and returning the exit code.
"""

from __future__ import annotations

COMMANDS: tuple[str, ...] = ("run", "simulate", "replay", "roads", "analyze", "journal", "keygen",
                             "monitor", "install_service", "check_config", "pin", "ctl", "fleet",
                             "watch", "verify_install", "archive", "pit", "broker_config",
                             "ca", "accounts")

# Each command's one-line help, for ``station --help``: the station lists its commands
# without importing their modules (and what they import), so it starts fast. The modules'
# own ``register`` passes the same text; tests/cli/test_startup.py holds the two equal. A
# command missing here is imported to be listed (correct, but slower to start).
SUMMARIES: dict[str, str] = {
    "run": "run the station daemon",
    "simulate": "play shoes as fast as possible",
    "replay": "replay a recorded session",
    "roads": "draw the scoreboard roads of a shoe",
    "analyze": "exact house edge and return of every bet of a paytable",
    "journal": "verify a journal, or export it as a recording",
    "keygen": "write a new Ed25519 key pair for signing upstream messages",
    "monitor": "print what the configured reader sends",
    "install-service": "install a service's systemd unit and config skeleton",
    "check-config": "validate a config and open each device it names",
    "pin": "set or remove a supervisor's PIN for the web display",
    "ctl": "control a running station through its web display's API",
    "fleet": "run N simulated stations publishing to one broker, for the pit",
    "watch": "print a table's verified upstream stream in plain words",
    "verify-install": "check the installed files against the wheel's RECORD hashes",
    "archive": "keep a verified copy of every table's journal, from the stations' mirror",
    "pit": "the pit: one console for every table on the broker",
    "broker-config": "write the studio's Mosquitto configuration: TLS, identities, one ACL "
                     "per party",
    "ca": "make a small studio CA and its server and client certificates",
    "accounts": "add, remove, re-PIN or list a service's named accounts and roles",
}
