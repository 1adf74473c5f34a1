"""``reader:``: the card reader kinds (``simulated``, ``serial``, ``camera``), one module each.

The keys every reader shares are here (their values: ``ReaderConfig``; each kind declares
its own settings type in its module): ``type``, ``dedupe_ms`` (a table rule: the config
puts it in ``TableRules``) and the code format, which the kinds that read codes check when
chosen (trait ``codes``), so a bad pattern is a config error at start, not a surprise at
the first card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from drivers.codes import CodeFormat
from station.game.limits import DEDUPE_MS_MAX
from station.kinds.keys import Key
from station.settings.configmodel import ReaderConfig
from station.settings.configsection import Section

# The unit's drop-in for the devices a reader kind opens beyond the shipped unit's
# (``Kind.device_allow``): `station install-service` writes it from the config, and the
# kind's check-config probe looks for it on a PC with the unit installed.
DEVICES_DROPIN = Path("etc/systemd/system/dealer-station.service.d/50-reader-devices.conf")

RawBytes = Callable[[bytes, float], None]
RawPayload = Callable[[str, float, float], None]

COMMON = (
    Key("type", "text", "simulated", "the card reader kind"),
    Key("dedupe_ms", "whole number", "150", "a second identical read from the same reader "
        f"inside this window is a double read, dropped (0-{DEDUPE_MS_MAX})", "ms"),
    Key("code_format", "regular expression", "null", "the scanner's code form, with groups "
        "(?P<rank>...) and (?P<suit>...); null: the station's own forms (AS, TD, 10H, QH)"),
    Key("cut_code", "text", "null", "the code the scanner sends for the cut card"),
    Key("pack_prefix", "text", "null", "the start of a pack or seal barcode scanned at the "
        "shuffle check (table.shuffle_check), e.g. PACK-; such codes go to the station as "
        "read ([rules.md](rules.md))"),
)


@dataclass(frozen=True, slots=True)
class DeviceHooks:
    """What the caller of a reader's builder adds: raw traffic taps (``monitor --raw``,
    ``recording.raw``), a recording of the frames, for ``replay --video`` another source
    and the time of its first frame, and for ``station run`` the journal's session and
    where its shoe stands (a simulated shoe is a physical shoe: it deals on from there)."""

    on_bytes: RawBytes | None = None
    on_payload: RawPayload | None = None
    record_to: Path | None = None
    source: str | int | None = None
    start_ts: float | None = None
    session: str = ""
    shoe_position: tuple[int, int, bool, int] = (0, 0, False, 0)


def parse_common(sec: Section, settings: ReaderConfig, chosen: str) -> ReaderConfig:
    return replace(
        settings,
        code_format=sec.str_("code_format", None, "a regular expression with groups "
                             "(?P<rank>...) and (?P<suit>...)"),
        cut_code=sec.str_("cut_code", None, "the code the scanner sends for the cut card"),
        # Checked with the table rules (config._procedures): it decides what a scan means.
        pack_prefix=sec.data.get("pack_prefix", "") or "")


def finish(sec: Section, settings: ReaderConfig, traits: frozenset[str]) -> None:
    """The chosen kind's ``traits``: one that reads codes has its code format checked."""
    if "codes" in traits:
        try:
            reader_codes(settings)
        except ValueError as exc:
            sec.fail(sec.key("code_format" if settings.code_format else "cut_code"), str(exc))


def reader_codes(settings: ReaderConfig) -> CodeFormat:
    """The scanner's code format; raises ValueError naming what is wrong. A dealer's badge
    (``dealers.badge_prefix``) and a pack's code (``reader.pack_prefix``) go to the station
    as read."""
    cut = [settings.cut_code] if settings.cut_code else []
    passed = [p for p in (settings.badge_prefix, settings.pack_prefix) if p]
    if settings.code_format is None:
        return CodeFormat(cut_codes=cut, passed_prefixes=passed)
    return CodeFormat(settings.code_format, cut_codes=cut, passed_prefixes=passed)
