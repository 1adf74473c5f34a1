"""A pause's reasons in plain words for the dealer's page, in the page's language.

Pure but for the catalogues it renders through, read once (station.web.catalogue).

The station words a pause reason for its journal and its log: exact, with the bytes a scanner
sent (``'\\x15?Q'``), a device's own error text and the driver's jargon. That is right for a
journal and wrong for a dealer at 2 m: the page shows one plain sentence per reason instead,
each a message id of the catalogues (``plain.*``, station/web/locale/<tag>/station.po). Card
codes stay (the page draws them as rank and suit); raw bytes, reprs and what a device said
never reach the page; they stay in the log and the journal. A reason it does not know is
shown as a plain "another fault" sentence, never as its raw text; tests/web/test_web_words.py
checks every reason the station gives is known.

The reasons still reach this module as the station's English (the table layer keeps one
sentence per reason in its bounded lists, station.table.pauses); each pattern here names the
message id and parameters that sentence stands for, and no words of any language.

``still_lost``: the devices the station has lost now; a reason naming a device no longer in it
says the device is back ("scanner is back: a supervisor may resume") rather than that it is
still lost: the pause's reason is worded when it paused, the page must not go stale on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from station.table.msg import Msg, msg
from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS
from station.web.catalogue import render
from station.web.devicenames import DEVICES, device, device_msg
from station.web.words import NOT_DUE, segments

JOURNAL = "journal"

__all__ = ["DEVICES", "UNKNOWN", "device", "known", "reasons_plain", "refused_plain"]

_Plain = Callable[[re.Match[str], Collection[str] | None], Msg]


def _not_due(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    for pattern, said in NOT_DUE:
        why = pattern.fullmatch(m["why"])
        if why is not None:
            return msg("plain.not_due", card=m["card"], why=said(why))
    return msg("plain.not_due", card=m["card"], why=msg("notdue.other"))


def _unreadable(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    return msg("plain.unreadable", device=device_msg(m["source"]),
               none=msg("plain.none_due") if m["none"] else "")


def _lost(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    source, said = m["source"], m["said"]
    if source == JOURNAL:
        return msg("plain.journal")
    name = device_msg(source)
    if still_lost is not None and source not in still_lost:
        return msg("plain.device_back", device=name)
    if said.startswith("driver failed: "):
        return msg("plain.device_failed", device=name)
    return msg("plain.device_lost", device=name)


def _drawn(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    # The cards drawn while paused are listed only the last few (station.table.pauses).
    last = msg("plain.last", n=int(m["last"])) if m["last"] else ""
    return msg("plain.drawn_paused", count=int(m["n"]), last=last, cards=m["cards"])


_PAUSE_IDS = {en: f"pause.{code}" for code, (en, _) in PAUSE_WORDS.items()}


def pause_msg(code_or_words: str) -> Msg:
    """The dealer's pause reason (its code, or its English words) as a message id."""
    if code_or_words in PAUSE_WORDS:
        return msg(f"pause.{code_or_words}")
    return msg(_PAUSE_IDS.get(code_or_words, "pause.other"))


def _held(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    # The note is free text in whatever language its writer used: it goes with the pause
    # message, the journal and the pit's console, not onto the page, which keeps to its own
    # language (docs/display.md).
    return msg("plain.held", what=pause_msg(m["what"]))


def _another_pack(m: re.Match[str], still_lost: Collection[str] | None) -> Msg:
    # Face down, the station names no card ("a card"): its value stays in the station.
    # The pack's id is what the scanner read: it stays in the journal and the log.
    if m["card"] == "a card":
        return msg("plain.another_pack_hidden")
    return msg("plain.another_pack", card=m["card"])


def _fixed(id_: str) -> _Plain:
    return lambda m, still_lost: msg(id_)


_RULES: list[tuple[re.Pattern[str], _Plain]] = [
    (re.compile(r"card not due: a card was drawn before the cards dealt face down were "
                r"revealed"), _fixed("plain.drawn_before_reveal")),
    (re.compile(r"card not due: (?P<card>\S+) \((?P<why>.+)\)"), _not_due),
    (re.compile(r"(?P<card>\S+) would be copy (?P<n>\d+) in a (?P<d>\d+)-deck shoe: foreign "
                r"card or misread"),
     lambda m, r: msg("plain.beyond_shoe", card=m["card"], n=int(m["n"]), d=int(m["d"]))),
    (re.compile(r"unreadable code (?P<code>.*) from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"), _unreadable),
    (re.compile(r"unreadable code from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"), _unreadable),
    # The shoes' ids are the journal's: the page says what it means for the table.
    (re.compile(r"repeated shoe: the first (?P<n>\d+) cards after the burn of \S+ "
                r"match (?:shoe \S+|an earlier shoe \(named in the journal\)) in order "
                r"\(\d+ of \d+\)"), lambda m, r: msg("plain.repeated_shoe", n=int(m["n"]))),
    (re.compile(r"(?P<source>[\w.-]+) lost \((?P<said>.*)\)"), _lost),
    (re.compile(r"station restarted during the burn"), _fixed("plain.restart_burn")),
    (re.compile(r"station restarted mid-round"), _fixed("plain.restart_round")),
    (re.compile(r"cut card came out during the burn: the shoe can give one more round"),
     _fixed("plain.cut_in_burn")),
    (re.compile(r"drawn while paused: (?P<n>\d+) cards? \((?:the last (?P<last>\d+): )?"
                r"(?P<cards>.*)\)"), _drawn),
    # The table procedures (station.table.procedures): the dealer's own pause, a foreign pack.
    (re.compile(HELD_BY_DEALER + r": (?P<what>" + "|".join(re.escape(en) for en, _ in
                                                         PAUSE_WORDS.values())
                + r")(?: \((?P<note>.*)\))?"), _held),
    (re.compile(r"card from another pack: (?P<card>a card|\S+) of pack (?P<pack>\S+) \(not "
                r"registered at the shuffle check\)"), _another_pack),
    # A pause's reasons are bounded (station.table.pauses): the count of those no longer shown.
    (re.compile(r"(?P<n>\d+) more not shown"),
     lambda m, r: msg("plain.more_not_shown", count=int(m["n"]))),
    (re.compile(r"(?P<source>[\w.-]+) sends noise: more than \d+ bad codes within [\d.]+ s"),
     lambda m, r: msg("plain.noise", device=device_msg(m["source"]))),
    (re.compile(r"the journal cannot be written \((?P<said>.*)\)"), _fixed("plain.journal")),
]

UNKNOWN_ID = "plain.unknown"
UNKNOWN = (render(msg(UNKNOWN_ID), "en"), render(msg(UNKNOWN_ID), "zh-Hans"))


def _one(text: str, still_lost: Collection[str] | None) -> Msg | None:
    for pattern, make in _RULES:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m, still_lost)
    return None


def known(text: str) -> bool:
    """Whether one reason (not joined) has its plain sentence."""
    return _one(text, None) is not None


def reasons_said(text: str, still_lost: Collection[str] | None = None) -> list[Msg]:
    """A pause's reasons (``view.split_pause``) as message ids, one per reason.

    The station joins reasons with ``; `` and a device's own words may hold ``; `` too: the
    text is cut at every ``; `` and put back together so the fewest pieces stay unknown (as
    ``words.reason_zh`` does). Consecutive unknown pieces make one "another fault" sentence.
    """
    found = [said for _, said in segments(text, lambda p: _one(p, still_lost))]
    out: list[Msg] = []
    unknown = msg(UNKNOWN_ID)
    for one in found:
        said: Msg = unknown if one is None else one
        if not out or out[-1] != said or said != unknown:
            out.append(said)
    return out


def reasons_plain(text: str, *, zh: bool = False, still_lost: Collection[str] | None = None,
                  tag: str | None = None) -> list[str]:
    """``reasons_said`` rendered in ``tag`` (or English, or Simplified Chinese by ``zh``)."""
    lang = tag or ("zh-Hans" if zh else "en")
    return [render(said, lang) for said in reasons_said(text, still_lost)]


# A supervisor's command refused before the station (a PIN on the page: docs/display.md), as
# the message line says it: the button's own name, the reason in plain words, no command
# code. Worded from the refusal's parts (station.table.outputs.RefusedOutside).
_ACTION_IDS = {"resume": "refused.resume", "void": "refused.void",
               "confirm_shuffle": "refused.confirm_shuffle", "skip": "refused.skip",
               "request_new_shoe": "refused.request_new_shoe",
               "request_dealer": "refused.request_dealer"}


def refused_said(action: str, reason: str, figure: int | None) -> Msg:
    what = msg(_ACTION_IDS.get(action, "refused.other_action"))
    if reason == "wrong_pin":
        why = msg("refused.wrong_pin") if figure is None else msg("refused.wrong_pin_left",
                                                                  count=figure)
    elif reason == "locked_out":
        why = msg("refused.locked") if figure is None else msg("refused.locked_for", s=figure)
    elif reason == "no_pins":
        why = msg("refused.no_pins")
    else:
        why = msg("refused.pin_not_taken")
    return msg("refused.said", what=what, why=why)


def refused_plain(action: str, reason: str, figure: int | None, *, zh: bool = False,
                  tag: str | None = None) -> str:
    """``CONFIRM SHUFFLE refused: wrong PIN, 4 tries left`` (in the page's language); a
    lockout with its seconds, no PIN set. An action or reason it does not know is said
    without its code: "a supervisor's command"."""
    return render(refused_said(action, reason, figure), tag or ("zh-Hans" if zh else "en"))
