"""The table modes as the dealer's page sees them (docs/display.md, docs/modes.md).

Pure but for the catalogues it renders through, read once (station.web.catalogue).

What the view adds for a table in a mode: how betting is run and, on a timer table, when it
closes (the station's own deadline, in the events' clock: the page counts down locally and is
re-synced by every view and heartbeat); which hand waits for its reveal and when it opens by
itself; the VIP player's requests, each with whether the station would take it now and, if
not, why; and the alerts that stay on screen until what clears them happens.

Nothing here carries a card's value: which hand waits, how many cards are face down and when a
deadline falls are all the page learns before a reveal (``Dealing.visible`` decides the rest).
"""


from __future__ import annotations

from typing import Any

from station.settings.languages import language as language_of
from station.table.machine import Phase
from station.table.msg import msg
from station.table.station import Station
from station.web.catalogue import render
from station.web.notices import notice_words

# The VIP player's requests, as page buttons and ``drivers.events.Command`` actions. At a
# studio without the VIP player's own client they are pressed for the player by a supervisor
# (docs/display.md: they need a supervisor's PIN, like resume and void).
VIP_ACTIONS = ("skip", "request_new_shoe", "request_dealer")
# The dealer's reveal button: no PIN, like the other dealer buttons.
REVEAL = "reveal"
_BETTING_BUTTONS = ("open_betting", "close_betting")

# The alerts that stay on screen, by message id (their words in the catalogues).
ALERT_IDS = {"dealer_requested": "alert.dealer_requested", "new_shoe_late": "alert.new_shoe_late"}
# Their English and Simplified Chinese words, for the tests and tools that read them so.
ALERTS = {name: (render(msg(said), "en"), render(msg(said), "zh-Hans"))
          for name, said in ALERT_IDS.items()}


def face_down(station: Station) -> bool:
    return station.rules.mode in ("squeeze", "vip")


def mode_actions(station: Station, actions: list[str]) -> list[str]:
    """``actions`` (the machine's own) as this table takes them: OPEN/CLOSE BETTING only where
    the dealer drives betting, REVEAL while a face-down hand waits for it, and each VIP
    request the station would take now."""
    out = list(actions)
    if station.rules.betting != "dealer":
        out = [a for a in out if a not in _BETTING_BUTTONS]
    if face_down(station) and station.dealing.phase is Phase.REVEAL:
        out.append(REVEAL)
    if station.rules.mode == "vip":
        out += [a for a in VIP_ACTIONS if vip_refusal(station, a) is None]
    return out


def vip_refusal(station: Station, action: str) -> str | None:
    """Why the station would refuse the VIP request ``action`` now, in its own words, or
    None when it would take it: the station's own answer (``TableModes.vip_refusal``)."""
    return station.modes.vip_refusal(action)


def mode_view(station: Station, language: str) -> dict[str, Any]:
    """The view's keys for the table modes: ``mode``, ``betting``, ``reveal``, ``vip`` and
    ``alerts`` (docs/display.md)."""
    rules = station.rules
    d = station.dealing
    due = station.deadlines
    zh = language_of(language).translated
    betting: dict[str, Any] = {
        "mode": rules.betting,
        "betting_s": rules.betting_s if rules.betting == "timer" else None,
        # Due times in the events' clock (the station's wall clock): None when not running.
        "opens_at": due.get("betting_opens"),
        "closes_at": due.get("betting") if d.state == "betting_open" else None,
        # VIP: the new shoe the player asked for must start by then (NEW SHOE LATE after).
        "new_shoe_by": due.get("new_shoe"),
    }
    reveal: dict[str, Any] | None = None
    if face_down(station) and d.state == "reveal" and d.to_reveal:
        hand = d.to_reveal[0]
        cards = d.player if hand == "player" else d.banker
        reveal = {"hand": hand, "third": len(cards) == 3,
                  "auto_at": due.get("reveal", due.get("open_cards"))}
    vip: dict[str, Any] | None = None
    if rules.mode == "vip":
        requests: dict[str, Any] = {}
        for action in VIP_ACTIONS:
            why = vip_refusal(station, action)
            requests[action] = {"ok": why is None, "why": why or ""}
            if zh:
                requests[action]["zh"] = notice_words(why, language) if why else ""
        vip = {"skips_in_a_row": station.modes.skips_in_a_row, "max_skips": rules.max_skips,
               "skipped": d.skipped, "new_shoe_requested": station.modes.new_shoe_requested,
               "requests": requests}
    alerts = []
    for name, on in (("dealer_requested", station.dealers.change_requested),
                     ("new_shoe_late", station.modes.new_shoe_late)):
        if on:
            said = msg(ALERT_IDS[name])
            alert = {"alert": name, "text": render(said, "en")}
            if zh:
                alert["zh"] = render(said, language)
            alerts.append(alert)
    return {"mode": rules.mode, "betting": betting, "reveal": reveal, "vip": vip,
            "alerts": alerts}
