"""Notices, refusals and the dealer desk's words as message ids, for the pages.

Pure but for the catalogues it renders through, read once (station.web.catalogue).

The station words what happened (a resume, a double read, a refusal and why) in English for
its journal, its log and the status message; those sentences come here whole, and each
pattern names the message id and the parameters it stands for (``notice.*``, ``why.*``,
``dealer.*``, ``actor.*`` in station/web/locale/<tag>/station.po): the words themselves are
the catalogues', in every language. Names, ids, card codes, addresses and what a device said
stay as they are. A sentence no pattern knows is None (the page shows it as the station said
it, which a supervisor reads anyway).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from station.table.msg import Msg, msg
from station.web.catalogue import render
from station.web.devicenames import device_msg

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], Msg]]

# The commands a notice or a refusal names, in the station's words.
WHAT_IDS = {"reveal": "what.reveal", "skip": "what.skip",
            "request new shoe": "what.request_new_shoe", "request dealer": "what.request_dealer",
            "open betting": "what.open_betting", "close betting": "what.close_betting",
            "new shoe": "what.new_shoe", "end shoe": "what.end_shoe", "resume": "what.resume",
            "void": "what.void", "sign in": "what.sign_in", "sign out": "what.sign_out",
            "pause": "what.pause", "confirm shuffle": "what.confirm_shuffle"}
PHASE_IDS = {"no shoe": "phase.no_shoe", "shoe closed": "phase.shoe_closed",
             "burn indicator": "phase.burn_indicator", "burning": "phase.burning",
             "between rounds": "phase.between_rounds", "betting open": "phase.betting_open",
             "player 1": "phase.player_1", "banker 1": "phase.banker_1",
             "player 2": "phase.player_2", "banker 2": "phase.banker_2",
             "player 3": "phase.player_3", "banker 3": "phase.banker_3",
             "reveal": "phase.reveal", "paused": "phase.paused",
             "shuffle check": "phase.shuffle_check"}
MODE_IDS = {"standard": "mode.standard", "squeeze": "mode.squeeze", "vip": "mode.vip"}
_HAND_IDS = {"player": "hand.player", "banker": "hand.banker"}
_DONE_IDS = {"resumed": "notice.resumed", "voided": "notice.voided"}
_ROLE_IDS = {"dealer": "actor.dealer", "supervisor": "actor.supervisor",
             "upstream": "actor.upstream"}
_BY_IDS = {"key": "actor.by_key", "display": "actor.by_display"}
_PAUSE_IDS = {"card dropped": "pause.card_dropped", "card exposed": "pause.card_exposed",
              "misdeal": "pause.misdeal", "dispute": "pause.dispute",
              "equipment problem": "pause.equipment", "other": "pause.other"}


def _named(table: dict[str, str], key: str) -> Msg | str:
    return msg(table[key]) if key in table else key


def _devices(names: str) -> Msg | str:
    """``scanner, camera`` as a list in the page's language."""
    parts = [device_msg(d) for d in names.split(", ")]
    said: Msg | str = parts[0]
    for part in parts[1:]:
        said = msg("list.and", head=said, tail=part)
    return said


def actor_said(actor: str) -> Msg | str:
    """Who did something: ``dealer:D042 ann (web 1.2.3.4)`` is the dealer role, the name and
    the address; an upstream command's ``upstream:<key name>/<actor> [<id>]`` keeps the key's
    name (whose it is: a pit's, a game server's). Names, ids and addresses stay as written."""
    m = re.fullmatch(r"(?P<who>.*?)(?: \(web (?P<at>[^)]*)\))?", actor)
    who, at = (m["who"], m["at"]) if m else (actor, None)
    said: Msg | str = who
    role = re.fullmatch(r"(dealer|supervisor|upstream)(?:([: ])(.*))?", who)
    if role is not None:
        name = msg(_ROLE_IDS[role[1]])
        rest = role[3] or ""
        if rest.startswith("(") and rest.endswith(")"):
            inner = rest[1:-1]
            by = msg(_BY_IDS[inner]) if inner in _BY_IDS else inner
            said = msg("actor.by", role=name, by=by)
        else:
            said = msg("actor.named", role=name, name=rest) if rest else name
    elif who == "station":
        said = msg("actor.station")
    return msg("actor.web", who=said, at=at) if at is not None else said


def _request(tail: str | None) -> Msg | str:
    return msg("dealer.request_done") if tail else ""


DEALER_RULES: list[_Rule] = [
    (re.compile(r"dealer (\S+) signed in \((\w+)\)(; .*)?"),
     lambda m: msg("dealer.signed_in", dealer=m[1], done=_request(m[3]))),
    (re.compile(r"dealer (\S+) signed out \((\w+)\)"),
     lambda m: msg("dealer.signed_out", dealer=m[1])),
    (re.compile(r"dealer change: (\S+) out, (\S+) in \((\w+)\)(; .*)?"),
     lambda m: msg("dealer.change", out=m[1], into=m[2], done=_request(m[4]))),
    (re.compile(r"not while paused: .*"), lambda m: msg("dealer.not_paused")),
    (re.compile(r"not during the burn: .*"), lambda m: msg("dealer.not_burn")),
    (re.compile(r"not while a card is due: .*"), lambda m: msg("dealer.not_card_due")),
    (re.compile(r"no dealer is signed in"), lambda m: msg("dealer.none")),
    (re.compile(r"no dealer id \(.*\); give the dealer's id"), lambda m: msg("dealer.no_id")),
    (re.compile(r"(\S+) is signed in already"), lambda m: msg("dealer.already", dealer=m[1])),
]

WHY_RULES: list[_Rule] = [
    (re.compile(r"this table's betting runs on the station's countdown"),
     lambda m: msg("why.betting_timer")),
    (re.compile(r"this table's betting is opened and closed by the game server"),
     lambda m: msg("why.betting_upstream")),
    (re.compile(r"this table's betting is driven by the dealer"),
     lambda m: msg("why.betting_dealer")),
    (re.compile(r"this table deals face up \(table\.mode is standard\)"),
     lambda m: msg("why.face_up")),
    (re.compile(r"no card is waiting for its reveal"), lambda m: msg("why.no_reveal")),
    (re.compile(r"(.+) is a VIP table's request \(table\.mode is (\w+)\)"),
     lambda m: msg("why.vip_only", what=_named(WHAT_IDS, m[1]), mode=_named(MODE_IDS, m[2]))),
    (re.compile(r"a round can be skipped only before its cards are dealt"),
     lambda m: msg("why.skip_before")),
    (re.compile(r"this round is skipped already"), lambda m: msg("why.skipped_already")),
    (re.compile(r"(\d+) rounds skipped in a row already, the most the VIP rules allow; this "
                r"round is played"), lambda m: msg("why.skips_max", n=int(m[1]))),
    (re.compile(r"no shoe is in play"), lambda m: msg("why.no_shoe")),
    (re.compile(r"(.+) still lost; reconnect it first"),
     lambda m: msg("why.still_lost", devices=_devices(m[1]))),
    (re.compile(r"(\d+) rounds played in this shoe; a new shoe may be asked for once (\d+) have "
                r"been played"), lambda m: msg("why.too_early", n=int(m[1]), after=int(m[2]))),
    (re.compile(r"the burn is not done; ask again once it is"), lambda m: msg("why.burn_first")),
    (re.compile(r"the table is paused; ask again when it deals"),
     lambda m: msg("why.paused_ask_later")),
    (re.compile(r"a request for another dealer is open already"),
     lambda m: msg("why.dealer_asked")),
    (re.compile(r"the table is paused already; a supervisor resumes or voids"),
     lambda m: msg("why.paused_already")),
    (re.compile(r"this table's shuffle is not checked \(table\.shuffle_check is none\)"),
     lambda m: msg("why.no_check")),
    (re.compile(r"no shuffle check is due"), lambda m: msg("why.check_not_due")),
    (re.compile(r"reason other needs a note saying what happened"),
     lambda m: msg("why.needs_note")),
    (re.compile(r"not possible while (.+)"),
     lambda m: msg("why.not_while", phase=_named(PHASE_IDS, m[1]))),
]


def _why(text: str) -> Msg | str:
    return notice_said(text) or text


NOTICE_RULES: list[_Rule] = [
    (re.compile(r"(resumed|voided) by (.+)"),
     lambda m: msg(_DONE_IDS[m[1]], actor=actor_said(m[2]))),
    (re.compile(r"double read of (?:'(\S+)'|a card) from (.+) within (\d+) ms suppressed"),
     lambda m: msg("notice.double_read", device=device_msg(m[2]), ms=int(m[3]),
                   card=msg("notice.double_card", card=m[1]) if m[1]
                   else msg("notice.double_same"))),
    (re.compile(r"re-scan read (\S+): held for the supervisor"),
     lambda m: msg("notice.rescan_held", card=m[1])),
    (re.compile(r"(.+) restored; a supervisor may resume"),
     lambda m: msg("notice.restored", device=device_msg(m[1]))),
    (re.compile(r"badge of dealer (\S+) refused: (.+)"),
     lambda m: msg("notice.badge_refused", dealer=m[1], why=_why(m[2]))),
    (re.compile(r"badge (.+) refused: a dealer id after .+"),
     lambda m: msg("notice.badge_bad", badge=m[1])),
    (re.compile(r"station restarted; nothing was in progress"),
     lambda m: msg("notice.restarted_idle")),
    (re.compile(r"cut card seen again in this shoe: ignored \(sensor bounce\?\)"),
     lambda m: msg("notice.cut_again")),
    (re.compile(r"cut card seen with no shoe in play: ignored"),
     lambda m: msg("notice.cut_no_shoe")),
    (re.compile(r"cut card seen while paused: the shoe closes when cleared"),
     lambda m: msg("notice.cut_paused_closes")),
    (re.compile(r"cut card seen while paused: the next round is the last"),
     lambda m: msg("notice.cut_paused_next")),
    (re.compile(r"cut card seen while paused: this round is the last"),
     lambda m: msg("notice.cut_paused_this")),
    (re.compile(r"paused by (?P<actor>.+): (?P<what>"
                + "|".join(re.escape(en) for en in _PAUSE_IDS) + r")"),
     lambda m: msg("notice.paused_by", actor=actor_said(m["actor"]),
                   what=msg(_PAUSE_IDS[m["what"]]))),
    (re.compile(r"new shoe by (.+): the supervisor checks the shuffle before the burn"),
     lambda m: msg("notice.new_shoe_check", actor=actor_said(m[1]))),
    (re.compile(r"shuffle confirmed by (.+): burn the first card"),
     lambda m: msg("notice.shuffle_confirmed", actor=actor_said(m[1]))),
    (re.compile(r"pack (\S+) registered for this shoe \((\d+) so far\)"),
     lambda m: msg("notice.pack_registered", pack=m[1], n=int(m[2]))),
    (re.compile(r"pack (\S+) scanned outside a shuffle check: ignored"),
     lambda m: msg("notice.pack_ignored", pack=m[1])),
    (re.compile(r"(player|banker) cards revealed by (.+)"),
     lambda m: msg("notice.revealed_by", hand=msg(_HAND_IDS[m[1]]), actor=actor_said(m[2]))),
    (re.compile(r"(player|banker) cards revealed: the squeeze's ([\d.]+) s were up"),
     lambda m: msg("notice.revealed_timer", hand=msg(_HAND_IDS[m[1]]), s=m[2])),
    (re.compile(r"the system opens the cards: ([\d.]+) s since betting closed"),
     lambda m: msg("notice.system_opens", s=m[1])),
    (re.compile(r"NEW SHOE LATE: asked for ([\d.]+) s ago; supervisor alerted"),
     lambda m: msg("notice.new_shoe_late", s=m[1])),
    (re.compile(r"round (\d+) skipped by (.+) \((\d+) in a row\): dealt face up, no bets"),
     lambda m: msg("notice.skipped", n=int(m[1]), actor=actor_said(m[2]), row=int(m[3]))),
    (re.compile(r"new shoe asked for by (.+): round (\d+) is the shoe's last"),
     lambda m: msg("notice.new_shoe_asked", actor=actor_said(m[1]), n=int(m[2]))),
    (re.compile(r"end of shoe asked for by (.+): round (\d+) is the shoe's last"),
     lambda m: msg("notice.end_asked", actor=actor_said(m[1]), n=int(m[2]))),
    (re.compile(r"new shoe asked for by (.+): the shoe is closed"),
     lambda m: msg("notice.new_shoe_closed", actor=actor_said(m[1]))),
    (re.compile(r"another dealer asked for by (.+): the dealer goes on until the new one signs "
                r"in"), lambda m: msg("notice.dealer_asked", actor=actor_said(m[1]))),
    (re.compile(r"timer '(.+)' is not due: ignored"),
     lambda m: msg("notice.timer_not_due", timer=m[1])),
    (re.compile(r"double read of a card from (.+) within (\d+) ms suppressed"),
     lambda m: msg("notice.double_read", device=device_msg(m[1]), ms=int(m[2]),
                   card=msg("notice.double_same"))),
    (re.compile(r"(.+) stopped sending noise: (\d+) bad codes in all"),
     lambda m: msg("notice.noise_stopped", device=m[1], n=int(m[2]))),
    (re.compile(r"re-scan read a card: held for the supervisor"),
     lambda m: msg("notice.rescan_held_hidden")),
    (re.compile(r"(resume|void) refused: (.+) still lost; reconnect it first"),
     lambda m: msg("notice.refused_lost", what=msg(WHAT_IDS[m[1]]), devices=_devices(m[2]))),
    (re.compile(r"(?P<what>[a-z ]+?) refused from (?P<actor>.+?): (?P<why>.+)"),
     lambda m: msg("notice.refused_from", what=_named(WHAT_IDS, m["what"]),
                   actor=actor_said(m["actor"]), why=_why(m["why"]))),
]


def _apply(rules: list[_Rule], text: str) -> Msg | None:
    for pattern, make in rules:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m)
    return None


def dealer_said(text: str) -> Msg | None:
    return _apply(DEALER_RULES, text)


def notice_said(text: str) -> Msg | None:
    """A notice, a refusal or a refusal's reason as its message id, or None."""
    return (_apply(NOTICE_RULES, text) or _apply(WHY_RULES, text)
            or _apply(DEALER_RULES, text))


def notice_words(text: str, tag: str) -> str:
    """``text`` (a notice, a refusal or its reason) in ``tag``; unknown ones as they are."""
    said = notice_said(text)
    return text if said is None else render(said, tag)


def dealer_words(text: str, tag: str) -> str:
    said = dealer_said(text)
    return text if said is None else render(said, tag)
