"""The display's words in Chinese. Pure: text in, text out.

The station words every instruction in English (``station.station.Station._prompt``); this
module only translates that wording, phrase by phrase, so the page never decides anything
about the game. A sentence it does not know (a free-form pause reason such as a device's own
error) is left in English, which a supervisor reads anyway: an untranslated reason is better
than a wrong one.
"""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import re
from collections.abc import Callable

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

_HAND = {"PLAYER": "闲家", "BANKER": "庄家", "player": "闲", "banker": "庄"}
_WINNER = {"PLAYER WINS": "闲赢", "BANKER WINS": "庄赢", "TIE": "和局"}
_CUT_OUT_EN = "CUT CARD OUT: this round is the last"
_CUT_OUT_ZH = "切牌已出：本局为最后一局"


def _round_tag(text: str) -> str:
    """``ROUND 3`` or ``ROUND 3 - CUT CARD OUT: ...`` as the station words it."""
    m = re.fullmatch(r"ROUND (\d+)( - " + re.escape(_CUT_OUT_EN) + r")?", text)
    if m is None:
        return text
    return f"第{m[1]}局" + (f" - {_CUT_OUT_ZH}" if m[2] else "")


def _result(m: re.Match[str]) -> str:
    return (f"第{m['round']}局：闲{m['p']}点 庄{m['b']}点，"
            f"{_WINNER.get(m['head'], m['head'])}")


_TEXT: list[_Rule] = [
    (re.compile(r"DEAL (PLAYER|BANKER) CARD (\d)"),
     lambda m: f"派{_HAND[m[1]]}第{m[2]}张牌"),
    (re.compile(r"DEAL (PLAYER|BANKER) THIRD CARD"), lambda m: f"{_HAND[m[1]]}补第三张牌"),
    (re.compile(r"ROUND (\d+): BETTING OPEN - do not deal; press CLOSE BETTING when bets are "
                r"in"), lambda m: f"第{m[1]}局：下注中 - 请勿派牌；下注完毕按“停止下注”"),
    (re.compile(r"ROUND (\d+): OPEN BETTING( - " + re.escape(_CUT_OUT_EN) + r")?"),
     lambda m: f"第{m[1]}局：开始下注" + (f" - {_CUT_OUT_ZH}" if m[2] else "")),
    (re.compile(r"BURN: draw and show the first card"), lambda m: "烧牌：抽出并亮出第一张牌"),
    (re.compile(r"BURN (\d+) MORE FACE DOWN"), lambda m: f"再烧{m[1]}张牌（牌面朝下）"),
    (re.compile(r"NEW SHOE: shuffle, insert the cut card, press NEW SHOE"),
     lambda m: "新牌靴：洗牌，插入切牌，按“新牌靴”"),
    (re.compile(r"SHOE CLOSED (?:after round (\d+)|before any round): discard the rest, start "
                r"a NEW SHOE"),
     lambda m: (f"第{m[1]}局后牌靴结束" if m[1] else "牌靴未开局即结束")
     + "：弃掉余牌，开始新牌靴"),
]

_DETAIL: list[_Rule] = [
    (re.compile(r"round (?P<round>\d+): PLAYER (?P<p>\d) BANKER (?P<b>\d), "
                r"(?P<head>TIE|PLAYER WINS|BANKER WINS)"), _result),
    (re.compile(r"round (\d+) VOID"), lambda m: f"第{m[1]}局作废"),
    (re.compile(r"(.+): player (\d) draws"),
     lambda m: f"{_round_tag(m[1])}：闲家{m[2]}点，补牌"),
    (re.compile(r"(.+): banker (\d) draws on player third card (\d)(?: \(draws on ([\d,]+)\))?"),
     lambda m: f"{_round_tag(m[1])}：庄家{m[2]}点，闲家第三张牌为{m[3]}，庄家补牌"
     + (f"（{m[4]}时补）" if m[4] else "")),
    (re.compile(r"(.+): player stood, banker (\d) draws"),
     lambda m: f"{_round_tag(m[1])}：闲家不补，庄家{m[2]}点补牌"),
    (re.compile(r"(\S\S\S?) shown"), lambda m: f"亮牌 {m[1]}"),
    (re.compile(re.escape(_CUT_OUT_EN)), lambda m: _CUT_OUT_ZH),
    (re.compile(r"supervisor: resume continues the round, void refunds it"),
     lambda m: "主管：恢复则继续本局，作废则退还本局投注"),
    (re.compile(r"supervisor: resume continues the burn, void abandons the shoe"),
     lambda m: "主管：恢复则继续烧牌，作废则放弃本牌靴"),
    (re.compile(r"supervisor: resume or void sets the card aside and goes on"),
     lambda m: "主管：恢复或作废都将此牌放在一旁并继续"),
    (re.compile(r"supervisor: resume or void sets the card aside"),
     lambda m: "主管：恢复或作废都将此牌放在一旁"),
    (re.compile(r"ROUND \d+(?: - .*)?"), lambda m: _round_tag(m[0])),
]

_ACTIONS: list[_Rule] = [
    (re.compile(r"set (?:it|the card) aside"), lambda m: "将此牌放在一旁"),
    (re.compile(r"show the card face up and scan it again"), lambda m: "亮出此牌并重新扫描"),
    (re.compile(r"check its cable and power"), lambda m: "检查其线缆和电源"),
    (re.compile(r"check the cards on the table against those shown"),
     lambda m: "核对桌上的牌与屏幕显示"),
    (re.compile(r"free space on the station's disk"), lambda m: "清理工作站磁盘空间"),
    (re.compile(r"call supervisor"), lambda m: "请呼叫主管"),
]


def _apply(rules: list[_Rule], text: str) -> str | None:
    for pattern, make in rules:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m)
    return None


def prompt_zh(text: str) -> str:
    """The instruction in Chinese; unknown wording is returned as it is."""
    return _apply(_TEXT, text) or text


def detail_zh(text: str) -> str:
    return _apply(_DETAIL, text) or text


def action_zh(text: str) -> str:
    """One dealer action of a pause (the parts after the reason); unknown ones as they are."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    return "；".join(_apply(_ACTIONS, p) or p for p in parts)
