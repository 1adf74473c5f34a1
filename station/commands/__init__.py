"""Subcommands of the ``station`` console script, one module each.

Each module exposes ``register(subparsers)``, which adds its parser and sets ``func`` to a
callable taking the parsed ``argparse.Namespace`` and returning the exit code.
"""

from __future__ import annotations

COMMANDS: tuple[str, ...] = ("run", "simulate", "replay", "roads", "analyze", "journal", "keygen",
                             "monitor", "install_service", "check_config", "pin", "ctl")
