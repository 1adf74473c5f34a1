"""A pause's reasons in plain words for the dealer's page, in English and Chinese. Pure.

The station words a pause reason for its journal and its log: exact, with the bytes a scanner
sent (``'\\x15?Q'``), a device's own error text and the driver's jargon. That is right for a
journal and wrong for a dealer at 2 m: the page shows one plain sentence per reason instead,
from this catalogue (docs/display.md). Card codes stay (the page draws them as rank and suit);
raw bytes, reprs and what a device said never reach the page; they stay in the log and the
journal. A reason the catalogue does not know is shown as a plain "another fault" sentence,
never as its raw text; tests/web/test_web_words.py checks every reason the station gives is known.

``still_lost``: the devices the station has lost now; a reason naming a device no longer in it
says the device is back ("scanner is back: a supervisor may resume") rather than that it is
still lost: the pause's reason is worded when it paused, the page must not go stale on it.
"""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import re
from collections.abc import Callable, Collection

from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS
from station.web.devicenames import DEVICES, device
from station.web.words import NOT_DUE, apply_rules, segments

JOURNAL = "journal"

__all__ = ["DEVICES", "UNKNOWN", "device", "known", "reasons_plain", "refused_plain"]

_Plain = Callable[[re.Match[str], bool, Collection[str] | None], str]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _not_due(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    why = m["why"]
    if zh:
        said = apply_rules(NOT_DUE, why)
        return f"{m['card']} 不应派出（{said or '不是应派的牌'}）"
    return f"{m['card']} was not due ({why})"


def _unreadable(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    none = bool(m["none"])
    if zh:
        return f"{device(m['source'], True)}读到的不是牌" + ("（此时无牌应派）" if none else "")
    return (f"{_cap(device(m['source'], False))} read something that is not a card"
            + (" (no card was due)" if none else ""))


def _lost(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    source, said = m["source"], m["said"]
    if source == JOURNAL:
        return ("工作站无法写入记录（磁盘满或故障）" if zh
                else "The station cannot write its records (disk full or failing)")
    name = device(source, zh)
    if still_lost is not None and source not in still_lost:
        return (f"{name}已恢复：主管可恢复牌局" if zh
                else f"{_cap(name)} is back: a supervisor may resume")
    if said.startswith("driver failed: "):
        return f"{name}的程序停止工作" if zh else f"{_cap(name)} stopped working"
    return f"{name}断开连接" if zh else f"{_cap(name)} is disconnected"


def _noise(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    name = device(m["source"], zh)
    if zh:
        return f"{name}发出乱码：请检查连线和端口设置"
    return f"{_cap(name)} sends noise: check its cable and port settings"


def _last(m: re.Match[str], zh: bool) -> str:
    """The cards drawn while paused are listed only the last few (station.table.pauses)."""
    if not m["last"]:
        return ""
    return f"最后{m['last']}张：" if zh else f"the last {m['last']}: "


_WORDS_ZH = dict(PAUSE_WORDS.values())


def _held(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    # The note is free text in whatever language its writer used: it goes with the pause
    # message, the journal and the pit's console, not onto the page, which keeps to its own
    # language (docs/display.md).
    if zh:
        return f"荷官暂停：{_WORDS_ZH[m['what']]}"
    return f"Held by the dealer: {m['what']}"


def _another_pack(m: re.Match[str], zh: bool, still_lost: Collection[str] | None) -> str:
    # Face down, the station names no card ("a card"): its value stays in the station.
    hidden = m["card"] == "a card"
    # The pack's id is what the scanner read: it stays in the journal and the log.
    if zh:
        return ("一张牌" if hidden else f"{m['card']} ") + "来自其他牌包（洗牌确认时未登记）"
    return (("A card" if hidden else m["card"]) + " is from another pack (not registered at "
            "the shuffle check)")


def _fixed(en: str, zh: str) -> _Plain:
    return lambda m, in_zh, still_lost: zh if in_zh else en


_RULES: list[tuple[re.Pattern[str], _Plain]] = [
    (re.compile(r"card not due: a card was drawn before the cards dealt face down were "
                r"revealed"),
     _fixed("A card was drawn before the face-down cards were revealed",
            "牌面朝下的牌开牌之前又抽出一张牌")),
    (re.compile(r"card not due: (?P<card>\S+) \((?P<why>.+)\)"), _not_due),
    (re.compile(r"(?P<card>\S+) would be copy (?P<n>\d+) in a (?P<d>\d+)-deck shoe: foreign "
                r"card or misread"),
     lambda m, zh, r: (f"{m['card']} 已出现过：{m['d']}副牌中不可能有第{m['n']}张（外来牌或读错）"
                       if zh else f"{m['card']} seen too often: copy {m['n']} in a "
                       f"{m['d']}-deck shoe (a foreign card or a misread)")),
    (re.compile(r"unreadable code (?P<code>.*) from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"), _unreadable),
    (re.compile(r"unreadable code from (?P<source>[\w.-]+): not a card"
                r"(?P<none> \(no card is due\))?"), _unreadable),
    # The shoes' ids are the journal's: the page says what it means for the table.
    (re.compile(r"repeated shoe: the first (?P<n>\d+) cards after the burn of \S+ "
                r"match (?:shoe \S+|an earlier shoe \(named in the journal\)) in order "
                r"\(\d+ of \d+\)"),
     lambda m, zh, r: (f"重复牌靴：烧牌后的前{m['n']}张牌与之前的一靴牌相同" if zh
                       else f"Repeated shoe: the first {m['n']} cards after the burn are those "
                       "of an earlier shoe")),
    (re.compile(r"(?P<source>[\w.-]+) lost \((?P<said>.*)\)"), _lost),
    (re.compile(r"station restarted during the burn"),
     _fixed("The station restarted during the burn", "工作站在烧牌时重启")),
    (re.compile(r"station restarted mid-round"),
     _fixed("The station restarted in the middle of a round", "工作站在牌局中途重启")),
    (re.compile(r"cut card came out during the burn: the shoe can give one more round"),
     _fixed("The cut card came out during the burn: one more round, then a new shoe",
            "烧牌时出现切牌：本牌靴只能再开一局")),
    (re.compile(r"drawn while paused: (?P<n>\d+) cards? \((?:the last (?P<last>\d+): )?"
                r"(?P<cards>.*)\)"),
     lambda m, zh, r: (f"暂停期间抽出{m['n']}张牌（{_last(m, True)}{m['cards']}）" if zh
                       else f"{m['n']} card{'s' * (m['n'] != '1')} drawn while paused "
                       f"({_last(m, False)}{m['cards']})")),
    # The table procedures (station.table.procedures): the dealer's own pause, a foreign pack.
    (re.compile(HELD_BY_DEALER + r": (?P<what>" + "|".join(re.escape(en) for en, _ in
                                                         PAUSE_WORDS.values())
                + r")(?: \((?P<note>.*)\))?"), _held),
    (re.compile(r"card from another pack: (?P<card>a card|\S+) of pack (?P<pack>\S+) \(not "
                r"registered at the shuffle check\)"), _another_pack),
    # A pause's reasons are bounded (station.table.pauses): the count of those no longer shown.
    (re.compile(r"(?P<n>\d+) more not shown"),
     lambda m, zh, r: (f"另有{m['n']}个故障（见工作站日志）" if zh
                       else f"{m['n']} more fault{'s' * (m['n'] != '1')}, listed in the "
                       "station log")),
    (re.compile(r"(?P<source>[\w.-]+) sends noise: more than \d+ bad codes within [\d.]+ s"),
     _noise),
    (re.compile(r"the journal cannot be written \((?P<said>.*)\)"),
     _fixed("The station cannot write its records (disk full or failing)",
            "工作站无法写入记录（磁盘满或故障）")),
]

UNKNOWN = ("Another fault: the supervisor reads it in the station's log",
           "其他故障：请主管查看工作站日志")


def _one(text: str, zh: bool, still_lost: Collection[str] | None) -> str | None:
    for pattern, make in _RULES:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m, zh, still_lost)
    return None


def known(text: str) -> bool:
    """Whether one reason (not joined) has its plain sentence."""
    return _one(text, False, None) is not None


def reasons_plain(text: str, *, zh: bool = False,
                  still_lost: Collection[str] | None = None) -> list[str]:
    """A pause's reasons (``view.split_pause``) as plain sentences, one per reason.

    The station joins reasons with ``; `` and a device's own words may hold ``; `` too: the
    text is cut at every ``; `` and put back together so the fewest pieces stay unknown (as
    ``words.reason_zh`` does). Consecutive unknown pieces make one "another fault" sentence.
    """
    found = [said for _, said in segments(text, lambda p: _one(p, zh, still_lost))]
    out: list[str] = []
    unknown = UNKNOWN[1] if zh else UNKNOWN[0]
    for one in found:
        said = unknown if one is None else one
        if not out or out[-1] != said or said != unknown:
            out.append(said)
    return out


# A supervisor's command refused before the station (a PIN on the page: docs/display.md), as
# the message line says it: the button's own name, the reason in plain words, no command
# code. Worded from the refusal's parts (station.table.outputs.RefusedOutside).
_ACTIONS_EN = {"resume": "RESUME", "void": "VOID", "confirm_shuffle": "CONFIRM SHUFFLE",
               "skip": "SKIP ROUND", "request_new_shoe": "NEW SHOE REQUEST",
               "request_dealer": "ANOTHER DEALER"}
_ACTIONS_ZH = {"resume": "恢复", "void": "作废", "confirm_shuffle": "确认洗牌",
               "skip": "飞牌", "request_new_shoe": "请求新牌靴", "request_dealer": "更换荷官"}


def refused_plain(action: str, reason: str, figure: int | None, *, zh: bool = False) -> str:
    """``CONFIRM SHUFFLE refused: wrong PIN, 4 tries left`` (in Chinese too); a lockout with
    its seconds, no PIN set. An action or reason it does not know is said without its code:
    "a supervisor's command"."""
    if zh:
        what = _ACTIONS_ZH.get(action, "主管操作")
        why = {"wrong_pin": "密码错误" + ("" if figure is None else f"，还可尝试 {figure} 次"),
               "locked_out": "密码已锁定" + ("" if figure is None else f" {figure} 秒"),
               "no_pins": "本工作站尚未设置主管密码"}.get(reason, "主管密码未通过")
        return f"{what}被拒绝：{why}"
    what = _ACTIONS_EN.get(action, "A supervisor's command")
    why = {"wrong_pin": "wrong PIN" + ("" if figure is None else
                                        f", {figure} {'try' if figure == 1 else 'tries'} left"),
           "locked_out": "PINs locked" + ("" if figure is None else f" for {figure} s"),
           "no_pins": "no supervisor PIN is set on this station"}.get(reason,
                                                                      "the PIN was not taken")
    return f"{what} refused: {why}"
