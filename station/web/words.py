"""The display's words in Chinese. Pure: text in, text out.

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

from station.table.msg import msg
from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS
from station.table.station import SUPERVISOR_CHOICE_IDS, SUPERVISOR_CHOICES
from station.web.catalogue import render
from station.web.devicenames import device

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

_HAND = {"PLAYER": "闲家", "BANKER": "庄家", "player": "闲", "banker": "庄"}
# The supervisor's choices on a pause, English to message id (exact, for the pit's copy).
_CHOICE_IDS = {SUPERVISOR_CHOICES[p]: SUPERVISOR_CHOICE_IDS[p] for p in SUPERVISOR_CHOICE_IDS}


# Why a card was not due (``station.table.machine.Dealing._why_not_due``).
NOT_DUE: list[_Rule] = [
    (re.compile(r"betting is still open"), lambda m: "仍在下注"),
    (re.compile(r"no shoe started"), lambda m: "未开新牌靴"),
    (re.compile(r"the shuffle is not confirmed yet"), lambda m: "洗牌尚未确认"),
    (re.compile(r"the shoe is closed"), lambda m: "牌靴已结束"),
    (re.compile(r"no round is open"), lambda m: "尚未开局"),
    (re.compile(r"extra card: a natural, no third cards"), lambda m: "多派一张：例牌，不补牌"),
    (re.compile(r"extra card: player stands on (\d), banker stands on (\d)"),
     lambda m: f"多派一张：闲{m[1]}点停牌，庄{m[2]}点停牌"),
    (re.compile(r"extra card to banker: banker stands"), lambda m: "多派给庄一张：庄停牌"),
    (re.compile(r"extra card: the round is over"), lambda m: "多派一张：本局已结束"),
]

# ``station.live.daemon``: a driver thread that died, and the journal that cannot be written.
_DRIVER_FAILED = "driver failed: "
_NOT_WRITABLE = "not writable: "


def _not_due(m: re.Match[str]) -> str:
    why = apply_rules(NOT_DUE, m["why"])
    return f"不应派的牌：{m['card']}（{why if why is not None else m['why']}）"


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

_ACTIONS: list[_Rule] = [
    (re.compile(r"set (?:it|the card) aside"), lambda m: "将此牌放在一旁"),
    (re.compile(r"set it aside face down"), lambda m: "将此牌牌面朝下放在一旁"),
    (re.compile(r"re-scanned: keep it face down"), lambda m: "已重新扫描：保持牌面朝下"),
    (re.compile(r"set the cards drawn while paused aside"), lambda m: "将暂停期间派出的牌放在一旁"),
    (re.compile(r"stop dealing"), lambda m: "停止派牌"),
    (re.compile(r"the supervisor checks the shoe"), lambda m: "由主管检查牌靴"),
    (re.compile(r"re-scanned as (\S+): keep it face up"),
     lambda m: f"已重新扫描为 {m[1]}：保持牌面朝上"),
    (re.compile(r"resume deals it as the due card, void sets it aside"),
     lambda m: "恢复则作为应派的牌发出，作废则放在一旁"),
    (re.compile(r"do not deal"), lambda m: "请勿派牌"),
    (re.compile(r"show the card face up and scan it again"), lambda m: "亮出此牌并重新扫描"),
    (re.compile(r"check its cable and power"), lambda m: "检查其线缆和电源"),
    (re.compile(r"check the reader's cable and its port settings"),
     lambda m: "检查读码器的线缆和端口设置"),
    (re.compile(r"check the cards on the table against those shown"),
     lambda m: "核对桌上的牌与屏幕显示"),
    (re.compile(r"free space on the station's disk"), lambda m: "清理工作站磁盘空间"),
    (re.compile(r"call supervisor"), lambda m: "请呼叫主管"),
]


# ``station.table.dealers``: sign-ins and the refusals that say when to sign (notices, not reasons).
_WHEN_ZH = "请在两局之间或下注期间进行"
_DEALERS: list[_Rule] = [
    (re.compile(r"dealer (\S+) signed in \((\w+)\)(; .*)?"),
     lambda m: f"荷官 {m[1]} 已签到" + _request_zh(m[3])),
    (re.compile(r"dealer (\S+) signed out \((\w+)\)"), lambda m: f"荷官 {m[1]} 已签退"),
    (re.compile(r"dealer change: (\S+) out, (\S+) in \((\w+)\)(; .*)?"),
     lambda m: f"更换荷官：{m[1]} 下场，{m[2]} 上场" + _request_zh(m[4])),
    (re.compile(r"not while paused: .*"),
     lambda m: f"暂停期间不可签到或签退：主管处理暂停后，{_WHEN_ZH}"),
    (re.compile(r"not during the burn: .*"),
     lambda m: f"烧牌期间不可签到或签退：烧牌结束后，{_WHEN_ZH}"),
    (re.compile(r"not while a card is due: .*"),
     lambda m: f"派牌期间不可签到或签退：本局结果发布后，{_WHEN_ZH}"),
    (re.compile(r"no dealer is signed in"), lambda m: "没有已签到的荷官"),
    (re.compile(r"no dealer id \(.*\); give the dealer's id"),
     lambda m: "没有荷官编号：请提供荷官编号"),
    (re.compile(r"(\S+) is signed in already"), lambda m: f"{m[1]} 已经签到"),
]


def _request_zh(tail: str | None) -> str:
    return "；更换荷官的请求已完成" if tail else ""


def dealer_zh(text: str) -> str:
    """A dealer notice or a refusal's reason (``station.table.dealers``) in Chinese; unknown
    wording is returned as it is."""
    return apply_rules(_DEALERS, text) or text


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


def action_zh(text: str) -> str:
    """One dealer action of a pause (the parts after the reason); unknown ones as they are."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    return "；".join(apply_rules(_ACTIONS, p) or p for p in parts)


# Reasons are joined with "; " (``Station._prompt``), but a driver's own words or a raw code
# may hold "; " too: the reason text is cut at every "; " and put back together in the way
# that leaves the fewest pieces unknown, then has the most pieces (so two known reasons are
# never read as one device's words). Pieces it does not know stay as they are.
_JOIN = "; "
_MAX_PIECES = 64  # beyond this (never from the station), the pieces are taken one by one


def segments(text: str, say: Callable[[str], str | None]) -> list[tuple[str, str | None]]:
    """``text`` cut at every ``; `` and put back together as above: (the piece, what ``say``
    made of it, or None where it knew nothing), in order. Shared by the Chinese reasons and
    the page's plain sentences (station.web.plain)."""
    pieces = text.split(_JOIN)
    if len(pieces) > _MAX_PIECES:
        return [(p, say(p)) for p in pieces]
    n = len(pieces)
    # best[i]: (unknown pieces, -groups, the pieces and what was said) of the first i.
    best: list[tuple[int, int, list[tuple[str, str | None]]]] = [(0, 0, [])]
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


# Notices: what the station says happened, and the refusals the page shows under its buttons
# (``station.table.modes``, ``station.table.station``). The actor and what a device said stay
# verbatim.
_WHAT = {"reveal": "开牌", "skip": "飞牌", "request new shoe": "请求新牌靴",
         "request dealer": "请求更换荷官", "open betting": "开始下注", "close betting": "停止下注",
         "new shoe": "新牌靴", "end shoe": "结束牌靴", "resume": "恢复", "void": "作废",
         "sign in": "签到", "sign out": "签退", "pause": "暂停", "confirm shuffle": "确认洗牌"}
PHASE_ZH = {"no shoe": "无牌靴", "shoe closed": "牌靴已结束", "burn indicator": "烧牌亮牌",
          "burning": "烧牌", "between rounds": "两局之间", "betting open": "下注中",
          "player 1": "派闲家第1张牌", "banker 1": "派庄家第1张牌", "player 2": "派闲家第2张牌",
          "banker 2": "派庄家第2张牌", "player 3": "闲家补牌", "banker 3": "庄家补牌",
          "reveal": "等待开牌", "paused": "暂停", "shuffle check": "洗牌确认"}
MODE_ZH = {"standard": "标准", "squeeze": "咪牌", "vip": "包"}
_WHY: list[_Rule] = [
    (re.compile(r"this table's betting runs on the station's countdown"),
     lambda m: "本桌由工作站倒计时控制下注"),
    (re.compile(r"this table's betting is opened and closed by the game server"),
     lambda m: "本桌由游戏服务器开始和停止下注"),
    (re.compile(r"this table's betting is driven by the dealer"), lambda m: "本桌由荷官控制下注"),
    (re.compile(r"this table deals face up \(table\.mode is standard\)"),
     lambda m: "本桌为标准桌，牌面朝上派牌"),
    (re.compile(r"no card is waiting for its reveal"), lambda m: "没有等待开牌的牌"),
    (re.compile(r"(.+) is a VIP table's request \(table\.mode is (\w+)\)"),
     lambda m: f"{_WHAT.get(m[1], m[1])}是包桌玩家的请求（本桌为{MODE_ZH.get(m[2], m[2])}桌）"),
    (re.compile(r"a round can be skipped only before its cards are dealt"),
     lambda m: "只能在派牌之前飞牌"),
    (re.compile(r"this round is skipped already"), lambda m: "本局已飞牌"),
    (re.compile(r"(\d+) rounds skipped in a row already, the most the VIP rules allow; this "
                r"round is played"), lambda m: f"已连续飞牌{m[1]}局，已达包桌规则上限；本局须开牌"),
    (re.compile(r"no shoe is in play"), lambda m: "没有正在使用的牌靴"),
    (re.compile(r"(.+) still lost; reconnect it first"),
     lambda m: "、".join(_device_zh(d) for d in m[1].split(", ")) + "仍断线；请先重新连接"),
    (re.compile(r"(\d+) rounds played in this shoe; a new shoe may be asked for once (\d+) have "
                r"been played"), lambda m: f"本牌靴已开{m[1]}局；满{m[2]}局后方可请求新牌靴"),
    (re.compile(r"the burn is not done; ask again once it is"),
     lambda m: "烧牌尚未完成；完成后再请求"),
    (re.compile(r"the table is paused; ask again when it deals"),
     lambda m: "本桌已暂停；恢复派牌后再请求"),
    (re.compile(r"a request for another dealer is open already"),
     lambda m: "已有更换荷官的请求"),
    (re.compile(r"the table is paused already; a supervisor resumes or voids"),
     lambda m: "本桌已暂停；由主管恢复或作废"),
    (re.compile(r"this table's shuffle is not checked \(table\.shuffle_check is none\)"),
     lambda m: "本桌不设洗牌确认（table.shuffle_check 为 none）"),
    (re.compile(r"no shuffle check is due"), lambda m: "无须确认洗牌"),
    (re.compile(r"reason other needs a note saying what happened"),
     lambda m: "原因为“其他”时须注明发生了什么"),
    (re.compile(r"not possible while (.+)"),
     lambda m: f"{PHASE_ZH.get(m[1], m[1])}时不可操作"),
]


def actor_zh(actor: str) -> str:
    """Who did something, as the page shows it in Chinese: ``dealer:D042 ann (web 1.2.3.4)``
    reads ``荷官 D042 ann`` and the address after 网页; names, ids and addresses stay as
    they are. An upstream command's ``upstream:<key name>/<actor> [<id>]`` reads
    ``远程 <key name>/<actor> [<id>]``: the key's name says whose it is (a pit's, a game
    server's), so a pit boss's command is not taken for the game server's."""
    m = re.fullmatch(r"(?P<who>.*?)(?: \(web (?P<at>[^)]*)\))?", actor)
    who, at = (m["who"], m["at"]) if m else (actor, None)
    role = re.fullmatch(r"(dealer|supervisor|upstream)(?:([: ])(.*))?", who)
    if role is not None:
        name = {"dealer": "荷官", "supervisor": "主管", "upstream": "远程"}[role[1]]
        rest = role[3] or ""
        if rest.startswith("(") and rest.endswith(")"):
            rest = {"key": "按键", "display": "屏幕"}.get(rest[1:-1], rest[1:-1])
            who = f"{name}（{rest}）"
        else:
            who = f"{name} {rest}".strip()
    elif who == "station":
        who = "工作站"
    return who + (f"，网页 {at}" if at is not None else "")


_NOTICES: list[_Rule] = [
    (re.compile(r"(resumed|voided) by (.+)"),
     lambda m: ("已恢复" if m[1] == "resumed" else "已作废") + f"（{actor_zh(m[2])}）"),
    (re.compile(r"double read of (?:'(\S+)'|a card) from (.+) within (\d+) ms suppressed"),
     lambda m: f"{_device_zh(m[2])}在{m[3]}毫秒内重复读到" + (f" {m[1]}" if m[1] else "同一张牌")
     + "：已忽略"),
    (re.compile(r"re-scan read (\S+): held for the supervisor"),
     lambda m: f"重新扫描读到 {m[1]}：留待主管处理"),
    (re.compile(r"(.+) restored; a supervisor may resume"),
     lambda m: f"{_device_zh(m[1])}已恢复：主管可恢复牌局"),
    (re.compile(r"badge of dealer (\S+) refused: (.+)"),
     lambda m: f"荷官 {m[1]} 的工牌被拒绝：{dealer_zh(m[2])}"),
    (re.compile(r"badge (.+) refused: a dealer id after .+"),
     lambda m: f"工牌 {m[1]} 被拒绝：请扫描有效的荷官工牌"),
    (re.compile(r"station restarted; nothing was in progress"),
     lambda m: "工作站已重启；重启时没有进行中的牌局"),
    (re.compile(r"cut card seen again in this shoe: ignored \(sensor bounce\?\)"),
     lambda m: "本牌靴再次检测到切牌：已忽略（感应器抖动？）"),
    (re.compile(r"cut card seen with no shoe in play: ignored"),
     lambda m: "没有牌靴时检测到切牌：已忽略"),
    (re.compile(r"cut card seen while paused: the shoe closes when cleared"),
     lambda m: "暂停期间检测到切牌：处理暂停后牌靴结束"),
    (re.compile(r"cut card seen while paused: the next round is the last"),
     lambda m: "暂停期间检测到切牌：下一局为最后一局"),
    (re.compile(r"cut card seen while paused: this round is the last"),
     lambda m: "暂停期间检测到切牌：本局为最后一局"),
    (re.compile(r"paused by (?P<actor>.+): (?P<what>"
                + "|".join(re.escape(en) for en in _PAUSE_EN_ZH) + r")"),
     lambda m: f"{actor_zh(m['actor'])} 暂停本桌：{_PAUSE_EN_ZH[m['what']]}"),
    (re.compile(r"new shoe by (.+): the supervisor checks the shuffle before the burn"),
     lambda m: f"{actor_zh(m[1])} 开始新牌靴：烧牌前由主管确认洗牌"),
    (re.compile(r"shuffle confirmed by (.+): burn the first card"),
     lambda m: f"{actor_zh(m[1])} 已确认洗牌：请烧牌"),
    (re.compile(r"pack (\S+) registered for this shoe \((\d+) so far\)"),
     lambda m: f"牌包 {m[1]} 已登记（共{m[2]}包）"),
    (re.compile(r"pack (\S+) scanned outside a shuffle check: ignored"),
     lambda m: f"牌包 {m[1]} 不在洗牌确认时扫描：已忽略"),
    (re.compile(r"(player|banker) cards revealed by (.+)"),
     lambda m: f"{_HAND[m[1]]}家的牌已开（{actor_zh(m[2])}）"),
    (re.compile(r"(player|banker) cards revealed: the squeeze's ([\d.]+) s were up"),
     lambda m: f"咪牌{m[2]}秒已到，{_HAND[m[1]]}家的牌自动开牌"),
    (re.compile(r"the system opens the cards: ([\d.]+) s since betting closed"),
     lambda m: f"停止下注已{m[1]}秒，系统自动开牌"),
    (re.compile(r"NEW SHOE LATE: asked for ([\d.]+) s ago; supervisor alerted"),
     lambda m: f"新牌靴逾时：{m[1]}秒前已请求；已通知主管"),
    (re.compile(r"round (\d+) skipped by (.+) \((\d+) in a row\): dealt face up, no bets"),
     lambda m: f"第{m[1]}局飞牌（{actor_zh(m[2])}，连续第{m[3]}局）：牌面朝上派牌，不接受投注"),
    (re.compile(r"new shoe asked for by (.+): round (\d+) is the shoe's last"),
     lambda m: f"{actor_zh(m[1])} 请求新牌靴：第{m[2]}局为本牌靴最后一局"),
    (re.compile(r"end of shoe asked for by (.+): round (\d+) is the shoe's last"),
     lambda m: f"{actor_zh(m[1])} 请求结束牌靴：第{m[2]}局为本牌靴最后一局"),
    (re.compile(r"new shoe asked for by (.+): the shoe is closed"),
     lambda m: f"{actor_zh(m[1])} 请求新牌靴：牌靴已结束"),
    (re.compile(r"another dealer asked for by (.+): the dealer goes on until the new one signs "
                r"in"),
     lambda m: f"{actor_zh(m[1])} 请求更换荷官：当前荷官继续派牌，直到新荷官签到"),
    (re.compile(r"timer '(.+)' is not due: ignored"), lambda m: f"计时器 '{m[1]}' 未到期：已忽略"),
    (re.compile(r"double read of a card from (.+) within (\d+) ms suppressed"),
     lambda m: f"{m[1]} 在{m[2]}毫秒内重复读到同一张牌：已忽略"),
    (re.compile(r"(.+) stopped sending noise: (\d+) bad codes in all"),
     lambda m: f"{m[1]} 已停止发送干扰信号：共{m[2]}个无效码"),
    (re.compile(r"re-scan read a card: held for the supervisor"),
     lambda m: "重新扫描读到一张牌：留待主管处理"),
    (re.compile(r"(resume|void) refused: (.+) still lost; reconnect it first"),
     lambda m: {"resume": "恢复", "void": "作废"}[m[1]] + "被拒绝："
     + "、".join(_device_zh(d) for d in m[2].split(", ")) + "仍断线；请先重新连接"),
    (re.compile(r"(?P<what>[a-z ]+?) refused from (?P<actor>.+?): (?P<why>.+)"),
     lambda m: f"{_WHAT.get(m['what'], m['what'])}被拒绝（{actor_zh(m['actor'])}）："
     + notice_zh(m["why"])),
]


def _device_zh(name: str) -> str:
    return device(name, zh=True)


def notice_zh(text: str) -> str:
    """A notice, a refusal or a refusal's reason in Chinese (the table modes' and the
    station's commands'); unknown wording is returned as it is."""
    return apply_rules(_NOTICES, text) or apply_rules(_WHY, text) or dealer_zh(text)
