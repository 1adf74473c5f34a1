"""One exception tree for the station, so callers can catch by role."""

from __future__ import annotations


class StationError(Exception):
    """Base of every error the station raises on purpose."""


class ConfigError(StationError):
    """A configuration file is wrong; the message names the file, the key and the fix."""


class InputFileError(StationError):
    """A shoe file or recording is wrong; the message names the file, the line and the fault."""


class CardCodeError(StationError):
    """A code read from the shoe is not a card."""


class RuleViolation(StationError):
    """A card or action breaks the baccarat rules (used by pure code; the machine pauses)."""
