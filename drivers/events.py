"""The small frozen input events every driver yields and the station consumes.

Timestamps ``ts`` are seconds since the Unix epoch, taken when the device spoke (or virtual
time in a simulation), so replaying a recording needs no clock.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardRead:
    """A code read from the shoe. ``code`` is raw: it may not be a card at all. ``pack``: the
    pack id the card's barcode carries, where the reader's code format has one (a ``pack``
    group); None for every other read. ``symbology``: the barcode's symbology as the scanner
    named it, where its protocol says (a HID-POS scanner's identifier, e.g. ``]C0`` for
    Code 128); None for every other read."""

    code: str
    source: str
    ts: float
    pack: str | None = None
    symbology: str | None = None


@dataclass(frozen=True, slots=True)
class CutCardSeen:
    """The cut card (black card) came out of the shoe."""

    source: str
    ts: float


@dataclass(frozen=True, slots=True)
class DeviceLost:
    """A device stopped answering; ``reason`` says what the driver saw."""

    source: str
    reason: str
    ts: float


@dataclass(frozen=True, slots=True)
class DeviceRestored:
    """A device that was lost answers again."""

    source: str
    ts: float


@dataclass(frozen=True, slots=True)
class Command:
    """A person's action at the table: a dealer button or a supervisor key.

    ``action`` is one of ``new_shoe``, ``open_betting``, ``close_betting``, ``end_shoe``,
    ``reveal``, ``pause`` (dealer), ``resume``, ``void``, ``confirm_shuffle`` (supervisor) or
    a VIP player's ``skip``,
    ``request_new_shoe``, ``request_dealer`` (docs/modes.md). ``actor`` names who did it, for
    the journal; an upstream command's actor ends with its id in brackets (``... [id]``).
    ``note``: what the sender wrote about it, when anything (an upstream command's
    ``reason``); a void carries it onto the void record as ``void_note``. ``code``: the reason
    code of a dealer's ``pause`` (docs/rules.md); on a ``command_refused`` from the page, the
    refusal's parts (``station.table.station.refused_parts``); None for every other command.
    """

    action: str
    actor: str
    ts: float
    note: str | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True)
class TimerExpired:
    """A deadline the station set has passed: ``timer`` names it (``betting``, ``reveal``,
    ``open_cards``, ``new_shoe``). Posted by the daemon's clock, or by a simulation at the
    deadline's virtual time, and journaled like any input, so a replay needs no clock."""

    timer: str
    ts: float


@dataclass(frozen=True, slots=True)
class ClockAlert:
    """The station's clock check found the system clock unsynchronised
    (``clock_unsynchronised``) or the wall clock jumped against the monotonic clock
    (``clock_jump``); ``detail`` says what it saw. Posted by the daemon and journaled like
    any input, so a replay raises the same alert with no clock."""

    alert: str
    detail: str
    ts: float


@dataclass(frozen=True, slots=True)
class ConfigChanged:
    """The station started with a config or paytable other than the journal's last
    (docs/journal.md, "Configuration changes"): each file's SHA-256 (hex) before and after
    (``old_*`` None where the journal did not record it, ``new_paytable`` None without a
    paytable), the dotted config keys whose values differ (never a value), every key's value
    digest now (``values``, sorted: the next start compares against it), and the journal this
    one follows when a change of rules started a new one. Posted by the daemon at start and
    journaled like any input, so a replay publishes the same ``config_changed``."""

    old_config: str | None
    old_paytable: str | None
    new_config: str | None
    new_paytable: str | None
    keys: tuple[str, ...]
    values: tuple[tuple[str, str], ...]
    previous_journal: str | None
    ts: float


@dataclass(frozen=True, slots=True)
class InstallModified:
    """The station's install check (``station verify-install``, at start and every 24 h)
    found installed files that differ from the wheel's ``RECORD``: ``files`` names them
    (``changed: PATH``, ``missing: PATH``, ``added: PATH``, at most a few dozen), ``detail``
    says how many. Posted by the daemon and journaled like any input, so a replay raises the
    same alert with no install to check."""

    files: tuple[str, ...]
    detail: str
    ts: float


InputEvent = (CardRead | CutCardSeen | DeviceLost | DeviceRestored | Command | TimerExpired
              | ClockAlert | ConfigChanged | InstallModified)
