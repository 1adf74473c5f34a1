"""The display's words in Chinese: text in, text out. Pure but for the catalogues it renders
through, read once (station.web.catalogue).

The station words every instruction in English (``station.table.station.Station._prompt``); this
module only translates that wording, phrase by phrase, so the page never decides anything
about the game. Pause reasons come from a bounded set of templates (the station's faults, the
machine's pauses, restarts, the daemon's journal outage, devices lost): each has its Chinese
sentence here, with the card codes, the device names and what a device itself said kept
verbatim inside it. A sentence it does not know is left in English, which a supervisor reads
anyway: an untranslated reason is better than a wrong one; tests/web/test_web_words.py checks
that every reason the station gives is known.
"""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from station.table.msg import Msg, msg
from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS
from station.table.station import SUPERVISOR_CHOICE_IDS, SUPERVISOR_CHOICES
from station.web.catalogue import render
from station.web.notices import (
    MODE_IDS,
    PHASE_IDS,
    actor_said,
    dealer_words,
    notice_words,
)

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]
_Said = TypeVar("_Said")

# The supervisor's choices on a pause, English to message id (exact, for the pit's copy).
_CHOICE_IDS = {SUPERVISOR_CHOICES[p]: SUPERVISOR_CHOICE_IDS[p] for p in SUPERVISOR_CHOICE_IDS}


# Why a card was not due (``station.table.machine.Dealing._why_not_due``).
# Why a card was not due, as message ids (``notdue.*``; station.web.plain renders them).
NOT_DUE: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Msg]]] = [
    (re.compile(r"betting is still open"), lambda m: msg("notdue.betting_open")),
    (re.compile(r"no shoe started"), lambda m: msg("notdue.no_shoe")),
    (re.compile(r"the shuffle is not confirmed yet"), lambda m: msg("notdue.not_confirmed")),
    (re.compile(r"the shoe is closed"), lambda m: msg("notdue.shoe_closed")),
    (re.compile(r"no round is open"), lambda m: msg("notdue.no_round")),
    (re.compile(r"extra card: a natural, no third cards"), lambda m: msg("notdue.natural")),
    (re.compile(r"extra card: player stands on (\d), banker stands on (\d)"),
     lambda m: msg("notdue.both_stand", p=int(m[1]), b=int(m[2]))),
    (re.compile(r"extra card to banker: banker stands"), lambda m: msg("notdue.banker_stands")),
    (re.compile(r"extra card: the round is over"), lambda m: msg("notdue.round_over")),
]

# ``station.live.daemon``: a driver thread that died, and the journal that cannot be written.
_DRIVER_FAILED = "driver failed: "
_NOT_WRITABLE = "not writable: "


def _not_due(m: re.Match[str]) -> str:
    for pattern, said in NOT_DUE:
        found = pattern.fullmatch(m["why"])
        if found is not None:
            return f"不应派的牌：{m['card']}（{render(said(found), 'zh-Hans')}）"
    return f"不应派的牌：{m['card']}（{m['why']}）"


def _lost(m: re.Match[str]) -> str:
    """``SOURCE lost (WHAT THE DRIVER SAID)``: the device's name and its own words verbatim."""
    source, said = m["source"], m["said"]
    if source == "journal" and said.startswith(_NOT_WRITABLE):
        return f"工作站日志无法写入（{said.removeprefix(_NOT_WRITABLE)}）"
    if said.startswith(_DRIVER_FAILED):
        return f"{source} 驱动程序故障（{said.removeprefix(_DRIVER_FAILED)}）"
    return f"{source} 断线（{said}）"


# One pause reason each (``Station``'s faults, ``Dealing``'s pauses, restarts, the daemon's
# journal outage). Free text (a read's raw code, a driver's words) is matched last-resort
# wide, so a reason that happens to contain another's words still reads whole.
_PAUSE_EN_ZH = dict(PAUSE_WORDS.values())


def _held(m: re.Match[str]) -> str:
    """The dealer's own pause: its words in Chinese, the note as written."""
    words = _PAUSE_EN_ZH.get(m["what"], m["what"])
    return f"荷官暂停：{words}" + (f"（{m['note']}）" if m["note"] is not None else "")


_REASONS: list[_Rule] = [
    (re.compile(re.escape(HELD_BY_DEALER) + r": (?P<what>"
                + "|".join(re.escape(en) for en in _PAUSE_EN_ZH) + r")(?: \((?P<note>.*)\))?"),
     _held),
    (re.compile(r"card not due: (?P<card>\S+) \((?P<why>.+)\)"), _not_due),
    (re.compile(r"(\S+) would be copy (\d+) in a (\d+)-deck shoe: foreign card or misread"),
     lambda m: f"{m[1]} 将是{m[3]}副牌中的第{m[2]}张：外来牌或读错"),
    (re.compile(r"unreadable code (?P<code>.*) from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"),
     lambda m: f"{m['source']} 读到无法识别的码 {m['code']}：不是牌"
     + ("（此时无牌应派）" if m["none"] else "")),
    (re.compile(r"repeated shoe: the first (\d+) cards after the burn of (\S+) match (?:shoe "
                r"(\S+)|an earlier shoe \(named in the journal\)) in order \((\d+) of \d+\)"),
     lambda m: f"重复牌靴：{m[2]} 烧牌后的前{m[1]}张牌与"
     + (f"牌靴 {m[3]}" if m[3] else "之前的一靴牌（见日志）") + f"顺序相符（{m[4]}/{m[1]}）"),
    # On a face-down table the misread's bytes are not shown (docs/modes.md).
    (re.compile(r"unreadable code from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"),
     lambda m: f"{m['source']} 读到无法识别的码：不是牌"
     + ("（此时无牌应派）" if m["none"] else "")),
    (re.compile(r"(?P<source>[\w.-]+) lost \((?P<said>.*)\)"), _lost),
    (re.compile(r"station restarted during the burn"), lambda m: "工作站在烧牌时重启"),
    (re.compile(r"station restarted mid-round"), lambda m: "工作站在牌局中途重启"),
    (re.compile(r"card from another pack: (?P<card>a card|\S+) of pack (?P<pack>.*) \(not "
                r"registered at the shuffle check\)"),
     lambda m: "其他牌包的牌：" + ("一张牌" if m["card"] == "a card" else m["card"])
     + f"（牌包 {m['pack']}，洗牌确认时未登记）"),
    (re.compile(r"cut card came out during the burn: the shoe can give one more round"),
     lambda m: "烧牌时出现切牌：本牌靴只能再开一局"),
    (re.compile(r"drawn while paused: (\d+) cards \(the last (\d+): (.*)\)"),
     lambda m: f"暂停期间派出{m[1]}张牌（最后{m[2]}张：{m[3]}）"),
    (re.compile(r"drawn while paused: (\d+) cards? \((.*)\)"),
     lambda m: f"暂停期间派出{m[1]}张牌（{m[2]}）"),
    (re.compile(r"the journal cannot be written \((.*)\)"),
     lambda m: f"工作站日志无法写入（{m[1]}）"),
    # Bounded pauses (station.table.pauses): the count of reasons not shown, a reader's flood.
    (re.compile(r"(\d+) more not shown"), lambda m: f"另有{m[1]}条未显示"),
    (re.compile(r"(?P<source>[\w.-]+) sends noise: more than (\d+) bad codes within (\S+) s"),
     lambda m: f"{m['source']} 发送干扰信号：{m[3]}秒内超过{m[2]}个无效码"),
    # A squeeze or VIP table (station.table.machine): named without the card's value.
    (re.compile(r"card not due: a card was drawn before the cards dealt face down were "
                r"revealed"), lambda m: "不应派的牌：牌面朝下的牌开牌之前又抽出一张牌"),
]

# What the dealer does on a pause (``Dealing.pause_actions``), English to message id.
_TODO_IDS = {
    "set it aside": "todo.set_it_aside", "set the card aside": "todo.set_the_card_aside",
    "set it aside face down": "todo.set_aside_face_down",
    "re-scanned: keep it face down": "todo.rescanned_face_down",
    "set the cards drawn while paused aside": "todo.set_drawn_aside",
    "stop dealing": "todo.stop_dealing", "the supervisor checks the shoe": "todo.check_shoe",
    "resume deals it as the due card, void sets it aside": "todo.resume_deals_it",
    "do not deal": "detail.do_not_deal",
    "show the card face up and scan it again": "todo.rescan",
    "check its cable and power": "todo.check_cable",
    "check the reader's cable and its port settings": "todo.check_reader",
    "check the cards on the table against those shown": "todo.check_cards",
    "free space on the station's disk": "todo.free_disk", "call supervisor": "todo.call",
}
_RESCANNED_AS = re.compile(r"re-scanned as (\S+): keep it face up")


def todo_said(part: str) -> Msg | None:
    """One dealer action of a pause as its message id, or None if it is not one."""
    if part in _TODO_IDS:
        return msg(_TODO_IDS[part])
    m = _RESCANNED_AS.fullmatch(part)
    return msg("todo.rescanned_face_up", card=m[1]) if m else None


def dealer_zh(text: str) -> str:
    """A dealer notice or a refusal's reason (``station.table.dealers``) in Simplified
    Chinese (``station.web.notices``); unknown wording is returned as it is."""
    return dealer_words(text, "zh-Hans")


def apply_rules(rules: list[_Rule], text: str) -> str | None:
    for pattern, make in rules:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m)
    return None


def detail_zh(text: str) -> str:
    """A supervisor's choice on a pause (``station.table.station.SUPERVISOR_CHOICES``, as the
    pit reads it off the wire) in Chinese, by exact lookup of its message id."""
    said = _CHOICE_IDS.get(text)
    return render(msg(said), "zh-Hans") if said else text


def action_words(text: str, tag: str) -> str:
    """A pause's dealer actions (the parts after the reason) in ``tag``, joined as that
    language joins sentences; unknown ones as they are."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    said = [todo_said(p) for p in parts]
    return render(msg("join"), tag).join(render(s, tag) if s else p
                                         for s, p in zip(said, parts, strict=True))


def action_zh(text: str) -> str:
    """``action_words`` in Simplified Chinese."""
    return action_words(text, "zh-Hans")


# Reasons are joined with "; " (``Station._prompt``), but a driver's own words or a raw code
# may hold "; " too: the reason text is cut at every "; " and put back together in the way
# that leaves the fewest pieces unknown, then has the most pieces (so two known reasons are
# never read as one device's words). Pieces it does not know stay as they are.
_JOIN = "; "
_MAX_PIECES = 64  # beyond this (never from the station), the pieces are taken one by one


def segments(text: str, say: Callable[[str], _Said | None]) -> list[tuple[str, _Said | None]]:
    """``text`` cut at every ``; `` and put back together as above: (the piece, what ``say``
    made of it, or None where it knew nothing), in order. Shared by the Chinese reasons and
    the page's plain sentences (station.web.plain)."""
    pieces = text.split(_JOIN)
    if len(pieces) > _MAX_PIECES:
        return [(p, say(p)) for p in pieces]
    n = len(pieces)
    # best[i]: (unknown pieces, -groups, the pieces and what was said) of the first i.
    best: list[tuple[int, int, list[tuple[str, _Said | None]]]] = [(0, 0, [])]
    for i in range(1, n + 1):
        prev = best[i - 1]
        choice = (prev[0] + 1, prev[1] - 1, [*prev[2], (pieces[i - 1], None)])
        for j in range(i):
            piece = _JOIN.join(pieces[j:i])
            said = say(piece)
            if said is None:
                continue
            head = best[j]
            if (head[0], head[1] - 1) < choice[:2]:
                choice = (head[0], head[1] - 1, [*head[2], (piece, said)])
        best.append(choice)
    return best[n][2]


@lru_cache(maxsize=512)
def reason_zh(text: str) -> str:
    """A pause's reasons (what a void publishes, ``view.split_pause``) in Chinese."""
    return "；".join(said if said is not None else piece
                    for piece, said in segments(text, lambda p: apply_rules(_REASONS, p)))


# Notices and refusals (``station.web.notices``), and the words the pit still takes from here.
PHASE_ZH = {en: render(msg(said), "zh-Hans") for en, said in PHASE_IDS.items()}
MODE_ZH = {code: render(msg(said), "zh-Hans") for code, said in MODE_IDS.items()}


def actor_zh(actor: str) -> str:
    """Who did something, in Simplified Chinese (``station.web.notices.actor_said``)."""
    said = actor_said(actor)
    return said if isinstance(said, str) else render(said, "zh-Hans")


def notice_zh(text: str) -> str:
    """A notice, a refusal or a refusal's reason in Simplified Chinese; unknown wording is
    returned as it is."""
    return notice_words(text, "zh-Hans")
