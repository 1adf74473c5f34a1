"""The station as the dealer's page sees it: one immutable JSON-able view.

Pure but for the catalogues it renders through, read once (station.web.catalogue).

Built on the station's loop thread after each event (``station.web.display``) from facts the
station already holds: its prompt (worded by ``Station._prompt``), the dealing model's cards
and shoe counts, the rounds published in this shoe (for the roads), the devices it knows are
lost. Nothing here decides anything about the game; which buttons apply is read off the
machine's own transition table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from station.game.cards import hand_total
from station.game.roads import Roads, Scoreboard
from station.game.roads.svg import render_svg
from station.settings.languages import language as language_of
from station.table import dealers
from station.table.actions import COMMAND_TRIGGERS, CONFIRM_ACTION, PAUSE_ACTION, SUPERVISOR_ACTIONS
from station.table.machine import TRANSITIONS, Phase
from station.table.msg import Msg
from station.table.outputs import Notice, Output, Prompt, Published, RefusedOutside
from station.table.procedures import penetration
from station.table.station import Station
from station.web.catalogue import render
from station.web.modeview import mode_actions, mode_view
from station.web.notices import dealer_words
from station.web.notices import notice_words as notice_text
from station.web.plain import reasons_plain, refused_plain
from station.web.words import action_words, reason_zh

VIEW_VERSION = 1
ARCHIVED_SHOWN = 3  # journals whose archived mark the view carries
LAST_RESULTS = 12  # results listed beside the roads
LAST_NOTICES = 5


def _sources(trigger: str) -> frozenset[str]:
    found: set[str] = set()
    for t in TRANSITIONS:
        if t["trigger"] == trigger:
            src = t["source"]
            found.update(src if isinstance(src, list) else [src])
    return frozenset(found)


_ALLOWED_FROM = {action: _sources(trigger) for action, trigger in COMMAND_TRIGGERS.items()}


def actions_for(phase: Phase) -> list[str]:
    """The page's commands the machine takes in ``phase``; a supervisor's only on a pause
    (a void in the middle of a round is for upstream's pit commands, not the dealer's page)."""
    found = [a for a, sources in _ALLOWED_FROM.items() if phase.value in sources]
    if phase is not Phase.PAUSED:
        found = [a for a in found if a not in SUPERVISOR_ACTIONS]
    return found


def procedure_actions(phase: Phase, paused: bool) -> list[str]:
    """The procedures' commands the station takes now (``station.table.procedures``): the dealer's
    own pause in every phase but a pause, and the supervisor's confirmation of the shuffle
    while it is checked."""
    found = [CONFIRM_ACTION] if phase is Phase.SHUFFLE_CHECK else []
    return [*found, PAUSE_ACTION] if not paused else found


class ShoeHistory:
    """The rounds published in the shoe in play, and its roads: an immutable snapshot taken
    once per round on the loop thread; the SVG is drawn only when a page asks for it
    (``svg``, on the server's thread), since drawing costs a few milliseconds. Fed every
    event's outputs on the loop thread."""

    def __init__(self) -> None:
        self.shoe = ""
        self.records: list[dict[str, Any]] = []
        self.version = 0
        self._board = Scoreboard()
        self.roads: Roads = self._board.snapshot()

    def add(self, outputs: Iterable[Output]) -> bool:
        """Take the rounds among ``outputs``; whether the roads changed."""
        changed = False
        for o in outputs:
            if not isinstance(o, Published):
                continue
            record = o.record
            if record.get("shoe") != self.shoe:
                self.shoe = str(record.get("shoe"))
                self.records = []
                self._board = Scoreboard()
            self.records.append(record)
            if record.get("status") == "complete":
                self._board.add(record)
            changed = True
        if changed:
            self.version += 1
            self.roads = self._board.snapshot()
        return changed

    def new_shoe(self, shoe_id: str) -> bool:
        """A shoe began with no round yet: its roads are empty."""
        if shoe_id == self.shoe or not shoe_id:
            return False
        self.shoe = shoe_id
        self.records = []
        self._board = Scoreboard()
        self.roads = self._board.snapshot()
        self.version += 1
        return True

    @property
    def svg(self) -> str:
        return roads_svg(self.roads)


def roads_svg(roads: Roads) -> str:
    """The scoreboard of ``roads`` as the page shows it (``station.game.roads.svg``)."""
    return render_svg(roads, title="")


def _result(record: Mapping[str, Any]) -> dict[str, Any]:
    if record.get("status") == "void":
        return {"round": record.get("round"), "status": "void", "winner": None,
                "reason": record.get("void_reason", "")}
    return {"round": record.get("round"), "status": "complete", "winner": record.get("winner"),
            "player_total": record.get("player_total"),
            "banker_total": record.get("banker_total"), "natural": record.get("natural")}


def split_pause(text: str) -> tuple[str, str]:
    """A pause prompt as the station words it, ``PAUSED: reasons - actions; call
    supervisor``, cut into its reason (what a void publishes) and what the dealer does."""
    body = text.removeprefix("PAUSED: ")
    reason, sep, todo = body.rpartition(" - ")
    if not sep:
        return body, ""
    return reason, todo


# A timer's configured length beside the page's live countdown of the same timer
# contradicts it ("15 s" next to "2 s"): while a countdown shows, the instruction names the
# countdown instead (docs/display.md: one countdown per timer). The message ids that carry a
# timer's figure, and what each says beside its countdown (None: nothing).
LIVE_IDS: dict[str, str | None] = {"how.timer": "how.timer.live",
                                   "how.squeeze": "how.squeeze.live",
                                   "how.vip_reveal": "how.vip_reveal.live",
                                   "late.within": None}


def without_figures(said: Msg) -> Msg | str:
    """``said`` with each timer's configured length taken out (``LIVE_IDS``)."""
    if said.id in LIVE_IDS:
        live = LIVE_IDS[said.id]
        return "" if live is None else Msg(live, said.params)
    return Msg(said.id, tuple((k, without_figures(v) if isinstance(v, Msg) else v)
                              for k, v in said.params))


PAUSED = Msg("paused")
JOIN = Msg("join")


def _say(said: Msg | str | None, fallback: str, tag: str) -> str:
    if said is None:
        return fallback
    return said if isinstance(said, str) else render(said, tag)


def prompt_view(prompt: Prompt, phase: Phase, language: str,
                still_lost: Iterable[str] | None = None) -> dict[str, Any]:
    kind = "pause" if prompt.paused else (
        "third_card" if phase in (Phase.PLAYER_3, Phase.BANKER_3) else
        "betting" if phase is Phase.BETTING_OPEN else
        "deal" if phase in (Phase.PLAYER_1, Phase.BANKER_1, Phase.PLAYER_2, Phase.BANKER_2)
        else "table")
    lang = language_of(language)
    view: dict[str, Any] = {"text": prompt.text, "detail": prompt.detail, "kind": kind,
                            "paused": prompt.paused}
    # What the page shows: the instruction and its detail from their message ids, in the
    # page's language (station.web.catalogue), and the same without the timers' figures.
    # A pause's instruction is its reasons, which the page shows apart (``plain``): above
    # them a Chinese page says PAUSED in its words, the English page the station's sentence.
    said = PAUSED if prompt.paused and lang.translated else prompt.said
    view["said"] = {"text": _say(said, prompt.text, lang.tag),
                    "detail": _say(prompt.said_detail, prompt.detail, lang.tag)}
    view["said_live"] = {
        "text": _say(said and without_figures(said), prompt.text, lang.tag),
        "detail": _say(prompt.said_detail and without_figures(prompt.said_detail),
                       prompt.detail, lang.tag)}
    if prompt.paused:
        reason, todo = split_pause(prompt.text)
        view["reason"] = reason
        view["todo"] = todo
        # What the page shows: one plain sentence per reason in the page's language, no raw
        # byte or device jargon (station.web.plain); the exact reason stays for the log.
        lost = None if still_lost is None else frozenset(still_lost)
        view["plain"] = reasons_plain(reason, still_lost=lost, tag=lang.tag)
        # Once every device the pause names is back, checking its cable is no longer asked.
        view["todo_now"] = todo_now(reason, todo, lost)
    if lang.translated:
        zh: dict[str, str] = dict(view["said"])
        if prompt.paused:
            zh["text"] = render(PAUSED, lang.tag)
            # The exact reason, what a device said kept: in Simplified Chinese by the older
            # rules of station.web.words (not catalogued yet); in another language the plain
            # sentences, as the page shows them.
            zh["reason"] = (reason_zh(view["reason"]) if lang.tag == "zh-Hans"
                            else render(JOIN, lang.tag).join(view["plain"]))
            zh["todo"] = action_words(view["todo"], lang.tag)
            zh["todo_now"] = action_words(view["todo_now"], lang.tag)
        view["zh"] = zh
    return view


_LOST = re.compile(r"(?:^|; )(\S+) lost \(")
_CHECK_DEVICE = "check its cable and power"


def todo_now(reason: str, todo: str, still_lost: frozenset[str] | None) -> str:
    """The pause's actions without ``check its cable and power`` once no device the reason
    names as lost is lost any more (the station words the actions when it pauses)."""
    named = {m for m in _LOST.findall(reason) if m != "journal"}
    if still_lost is None or not named or named & still_lost:
        return todo
    return "; ".join(a for a in todo.split("; ") if a != _CHECK_DEVICE)


@dataclass(frozen=True, slots=True)
class Surroundings:
    """What the view shows that the station does not hold: the table, the language, the
    upstream link (``None`` when it cannot be known, e.g. a file) and the outlet's backlog."""

    table: str
    language: str = "en"
    sound: bool = True
    upstream_type: str = "file"
    upstream_connected: bool | None = None
    devices: tuple[str, ...] = ()


def build_view(station: Station, prompt: Prompt, history: ShoeHistory,
               notices: Iterable[Notice | str], around: Surroundings) -> dict[str, Any]:
    """The whole view of the table now. ``prompt`` is the last one let out (the station's own,
    or the daemon's journal-outage pause)."""
    d = station.dealing
    phase = station.phase
    shoe = d.shoe
    in_play = d.state not in ("no_shoe",) and shoe is not None
    lost = station.lost_devices
    names = sorted({*around.devices, *lost})
    shown_p, shown_b = d.visible("player"), d.visible("banker")
    latest = [n if isinstance(n, Notice) else Notice(n) for n in notices][-LAST_NOTICES:]
    shown_notices = [n.text for n in latest]
    paused = phase is Phase.PAUSED or prompt.paused
    checking = phase is Phase.SHUFFLE_CHECK or (phase is Phase.PAUSED
                                                and d.paused_from is Phase.SHUFFLE_CHECK)
    cut_at = shoe.cut_out_at if shoe is not None else None
    refused_now = {a: why for a in SUPERVISOR_ACTIONS if phase is Phase.PAUSED
                   and (why := station.refused_while_lost(a)) is not None}
    # The header keeps why the shoe ended through a pause after it closed (issue 30).
    closed = phase is Phase.SHOE_CLOSED or (phase is Phase.PAUSED
                                            and d.paused_from is Phase.SHOE_CLOSED)
    view = {
        "v": VIEW_VERSION,
        "table": around.table,
        "language": language_of(around.language).tag,
        "sound": around.sound,
        "phase": phase.value,
        "paused": paused,
        "paused_from": d.paused_from.value if phase is Phase.PAUSED and d.paused_from else None,
        "prompt": prompt_view(prompt, d.paused_from or phase if phase is Phase.PAUSED else phase,
                              around.language, lost),
        "actions": [a for a in mode_actions(station, actions_for(phase))
                    if a not in refused_now] + procedure_actions(phase, paused),
        # The supervisor's actions the station would refuse now, and why (a device still
        # lost): the page shows them disabled with the reason, never a RESUME that is refused.
        "refused_now": refused_now,
        "round": {
            "no": d.round_no,
            # Face down (squeeze, VIP): only what is revealed, and how many wait; a total
            # only once the whole hand is face up (docs/modes.md).
            "player": [c.code for c in shown_p],
            "banker": [c.code for c in shown_b],
            "player_down": len(d.player) - len(shown_p),
            "banker_down": len(d.banker) - len(shown_b),
            "player_total": hand_total(d.player) if shown_p and shown_p == d.player else None,
            "banker_total": hand_total(d.banker) if shown_b and shown_b == d.banker else None,
            "last_round": d.last_round,
        },
        "shoe": None if not in_play or shoe is None else {
            "id": shoe.shoe_id,
            "decks": shoe.decks,
            "drawn": shoe.drawn,
            "left": shoe.remaining,
            "cut_card_out": d.cut_seen,
            "last_round": d.last_round,
            # Why this round is the last (the same words as shoe_end): a VIP player's new shoe
            # ends it with no cut card out, and the page must not say the cut card did.
            "last_round_why": shoe_end(station) if d.last_round else None,
            # Where the cut card was (cards out of the shoe when it came out) and the shoe's
            # penetration, once it is out (docs/rules.md).
            "cut_card_at": cut_at,
            "penetration": None if cut_at is None else penetration(cut_at, shoe.decks),
        },
        # The shuffle check (table.shuffle_check: supervisor) while it is due: the packs
        # registered so far.
        "shuffle_check": {"packs": list(d.check_packs)} if checking else None,
        "shoe_end": shoe_end(station) if closed else None,
        "results": [_result(r) for r in history.records[-LAST_RESULTS:]],
        "roads_version": history.version,
        "devices": [{"name": n, "ok": n not in lost, "reason": lost.get(n, "")} for n in names],
        "upstream": {"type": around.upstream_type, "connected": around.upstream_connected},
        # The archive's last acknowledgements (station.table.acks), newest last: what ctl status
        # shows.
        "archived": [{"journal": j, "seq": m.seq, "by": m.by, "at": m.ts}
                     for j, m in list(station.archive_marks.items())[-ARCHIVED_SHOWN:]],
        "notices": shown_notices,
        "dealer": dealer_view(station, around.language),
        # The table modes (station.web.modeview): betting, reveals, the VIP requests, alerts.
        **mode_view(station, around.language),
    }
    live_timers(view)
    # The message line's words, in the page's language: a refusal made before the station
    # (a wrong PIN) from its parts, the rest as the station said it (in Chinese: translated).
    translated = language_of(around.language).translated
    view["notices_page"] = [notice_words(n, around.language) for n in latest]
    if translated:
        # The refusals and what the modes did, for the page's message line.
        tag = language_of(around.language).tag
        view["notices_zh"] = [notice_text(n, tag) for n in shown_notices]
        view["refused_now_zh"] = {a: notice_text(why, tag) for a, why in refused_now.items()}
    return view


def notice_words(notice: Notice, tag: str) -> str:
    """One notice as the page's message line says it: a refusal made before the station in
    plain words from its parts (station.web.plain), never its raw command code; any other
    in the station's words (translated on a Chinese page)."""
    if isinstance(notice, RefusedOutside):
        return refused_plain(notice.action, notice.reason, notice.figure,
                             tag=language_of(tag).tag)
    lang = language_of(tag)
    return notice_text(notice.text, lang.tag) if lang.translated else notice.text


def live_timers(view: dict[str, Any]) -> None:
    """While the page counts a timer down (betting's, a reveal's, a VIP new shoe's), the
    instruction it shows, ``prompt.live`` (``text`` and ``detail`` in the page's language),
    leaves out the timer's configured length, which would contradict the countdown."""
    betting, reveal = view["betting"], view["reveal"]
    if view["paused"] or not (betting["closes_at"] or betting["opens_at"]
                              or betting["new_shoe_by"] or (reveal and reveal["auto_at"])):
        return
    p = view["prompt"]
    p["live"] = p["said_live"]


def shoe_end(station: Station) -> str | None:
    """Why the shoe ends (closed, or after the round in play): ``player`` (a VIP player asked
    for a new shoe), ``dealer`` or ``upstream`` (END SHOE, the pit's close_shoe),
    ``cut_card``; None if the station does not know (no one asked and no cut card was
    seen). The station's instruction gives the same reason first (``Station._prompt``)."""
    d = station.dealing
    if station.modes.new_shoe_requested:
        return "player"
    if d.end_requested_by in ("dealer", "upstream"):
        return d.end_requested_by
    return "cut_card" if d.cut_seen else None


def dealer_view(station: Station, language: str) -> dict[str, Any]:
    """Who is signed in, whether signing in or out is taken now (and if not, when), and
    whether another dealer has been asked for (station.table.dealers)."""
    desk = station.dealers
    why = dealers.refusal(station.dealing.state)
    view: dict[str, Any] = {"id": desk.dealer, "can_sign": why is None, "when": why or "",
                            "change_requested": desk.change_requested,
                            "badges": bool(station.rules.badge_prefix)}
    lang = language_of(language)
    if lang.translated:
        view["zh"] = {"when": dealer_words(why, lang.tag) if why else ""}
    return view


def notices_of(outputs: Iterable[Output]) -> list[str]:
    return [o.text for o in outputs if isinstance(o, Notice)]
