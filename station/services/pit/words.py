"""The pit's words in English and Chinese: phases, table modes, alert kinds, needs, pause
codes, alert details and what resume and void will do: text in, text out. Pure but for the
dealer page's catalogues it shares, read once (station.web.catalogue).

The station words everything in English; the pit never rewords a station's sentence in
English, and in Chinese it reuses the dealer page's translations (``station.web.words``,
``station.web.plain``): a pause reason reads on the pit's pages as on the dealer's, one plain
sentence per reason, no raw bytes. What only the pit says (its own alert kinds, what a tile
needs) has its words here. An alert detail it does not know is left out on the Chinese page
(its kind's words say what happened; the page shows no English sentence).
"""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from station.services.pit.alerts import KINDS
from station.services.pit.stats import DEALER, reason_of, who_raised
from station.table.procedures import HELD_BY_DEALER, PAUSE_WORDS
from station.web.plain import reasons_plain
from station.web.words import MODE_ZH, PHASE_ZH, actor_zh, detail_zh, notice_zh

LANGUAGES: Final = ("en", "zh")

# The status's phases (docs/upstream.md, ``status``), as a tile shows them.
PHASE_EN: Final = {
    "no_shoe": "no shoe", "shuffle_check": "shuffle check", "burn_indicator": "burn",
    "burning": "burning", "between_rounds": "between rounds", "betting_open": "betting open",
    "player_1": "dealing player 1", "banker_1": "dealing banker 1",
    "player_2": "dealing player 2", "banker_2": "dealing banker 2",
    "player_3": "player third card", "banker_3": "banker third card",
    "reveal": "waiting for the reveal", "shoe_closed": "shoe closed", "paused": "paused",
}
MODE_EN: Final = {"standard": "standard", "squeeze": "squeeze", "vip": "VIP"}

# What a tile needs someone for (``station.services.pit.views.NEEDS``).
NEED: Final = {
    "offline": ("offline", "离线"),
    "paused": ("paused", "暂停"),
    "alert": ("alert", "警报"),
    "stream": ("stream trouble", "数据异常"),
    "clock": ("clock not synchronised", "时钟未同步"),
    "shuffle_check": ("shuffle check to confirm", "洗牌待确认"),
}
# What a tile says that no longer needs anyone (``station.services.pit.views.NOTES``).
NOTE: Final = {
    "clock": ("clock not synchronised (acknowledged)", "时钟未同步（已确认）"),
}

# The alert kinds' words: each kind's own (station.services.pit.alerts.KINDS, declared with
# its urgency in station.wire.alerts and the pit's PIT_ALERTS), as (English, Chinese).
ALERT_KIND: Final = {name: (kind.words["en"], kind.words["zh"]) for name, kind in KINDS.items()}
OTHER_ALERT: Final = ("Alert", "警报")

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

# Alert details as the station and the client library word them, in Chinese.
_DETAIL_ZH: list[_Rule] = [
    (re.compile(r"another dealer was asked for; the dealer goes on until the new one signs "
                r"in"), lambda m: "已请求更换荷官；当前荷官继续派牌，直到新荷官签到"),
    (re.compile(r"the new shoe asked for is not started after ([\d.]+) s"),
     lambda m: f"所请求的新牌靴{m[1]}秒后仍未开始"),
    (re.compile(r"cut card after (\d+) cards: penetration ([\d.]+), outside table\.penetration "
                r"([\d.]+-[\d.]+)"),
     lambda m: f"切牌在第{m[1]}张牌后出现：渗透率 {m[2]}，超出设定范围 {m[3]}"),
    (re.compile(r"bet (\S+) returns ([\d.]+%) for the cards left, over the limit of "
                r"([\d.]+%): (closed for the rest of the shoe|the guard only observes)"),
     lambda m: f"投注 {m[1]} 对剩余牌的回报为 {m[2]}，超过上限 {m[3]}："
     + ("本牌靴余下牌局不再接受" if m[4].startswith("closed") else "仅作记录")),
    (re.compile(r"the system clock is not synchronised .*"),
     lambda m: "系统时钟未同步：请检查时间服务"),
    (re.compile(r"the wall clock jumped ([+-][\d.]+) s against the monotonic clock since the "
                r"last check"), lambda m: f"系统时钟自上次检查以来跳变 {m[1]} 秒"),
    (re.compile(r"(\d+) installed file\(s\) differ from the wheel's RECORD \((\d+) checked\): "
                r"(.*)"),
     lambda m: f"{m[1]}个已安装文件与安装包的 RECORD 不符（共检查{m[2]}个）：{m[3]}"),
    (re.compile(r"seq (\d+) never arrived \(nor perhaps others after (\d+)\)"),
     lambda m: f"第{m[1]}号消息未收到（第{m[2]}号之后可能还有其他缺失）"),
]


# The pit's own alerts (station.services.pit.model), by kind: what it says of a table's stream.
_PIT_ZH: dict[str, list[_Rule]] = {
    "offline": [(re.compile(r"the table's station is offline .*"),
                 lambda m: "牌桌工作站离线（断线或正常停止）")],
    "bad_signature": [(re.compile(r"message (\S+): .*"),
                       lambda m: f"消息 {m[1]} 的签名无法验证：未采用"),
                      (re.compile(r"a message with no key: .*"),
                       lambda m: "一条没有键的消息签名无法验证：未采用")],
    "unknown_table": [(re.compile(r"no public key for table '(.+)': not trusted"),
                       lambda m: f"牌桌 {m[1]} 没有公钥：不予信任")],
    "schema": [(re.compile(r"on '(.+)': .*"), lambda m: f"主题 {m[1]} 上的消息无法读取：未采用"),
               (re.compile(r"(\S+): .*"), lambda m: f"消息 {m[1]} 格式不符：未采用")],
}
_PIT_ZH["shuffle_check_waiting"] = [
    (re.compile(r"the shuffle check waits for a supervisor's confirmation \(CONFIRM SHUFFLE\)"),
     lambda m: "洗牌检查等待主管确认（确认洗牌）"),
]
_PIT_ZH["rewritten_history"] = [
    (re.compile(r"(\S+): journal (\w+) record (\d+) had head (\w+), now (\w+)"),
     lambda m: f"状态 {m[1]}：日志 {m[2]} 第{m[3]}条记录的哈希曾为 {m[4]}，现为 {m[5]}"),
    (re.compile(r"(\S+): journal (\w+) went back from record (\d+) to (\d+)"),
     lambda m: f"状态 {m[1]}：日志 {m[2]} 从第{m[3]}条记录退回到第{m[4]}条"),
]
_PIT_ZH["config_changed"] = [
    (re.compile(r"started with another config: (.*) changed(; a new journal)?"),
     lambda m: f"以不同配置启动：{_changed_zh(m[1])}已更改"
     + ("；已开始新日志" if m[2] else "")),
]
_PIT_ZH["sign_in_failures"] = [
    (re.compile(r"(\S+): (\d+) wrong PINs in a row from (.+); locked (\d+) s"),
     lambda m: f"{m[1]}：来自 {m[3]} 的连续 {m[2]} 次 PIN 错误；已锁定 {m[4]} 秒"),
]


def _changed_zh(what: str) -> str:
    said = what.replace("the config file (no key's value)", "配置文件（无键值变化）")
    said = said.replace("the paytable", "赔率表").replace(" and ", "和")
    return re.sub(r"^keys ", "配置项 ", said)


# A problem that repeats while its alert is open is counted in it (station.services.pit.alerts).
_TIMES = re.compile(r"(.*) \((\d+) times\)")


def _apply(rules: list[_Rule], text: str) -> str | None:
    for pattern, make in rules:
        m = pattern.fullmatch(text)
        if m is not None:
            return make(m)
    return None


def phase(code: str | None, language: str) -> str:
    if code is None:
        return ""
    if language == "zh":
        return PHASE_ZH.get(code.replace("_", " "), code)
    return PHASE_EN.get(code, code.replace("_", " "))


def mode(code: str, language: str) -> str:
    if language == "zh":
        return MODE_ZH[code] + "桌" if code in MODE_ZH else code
    return MODE_EN.get(code, code)


def need(code: str, language: str) -> str:
    en, zh = NEED.get(code, (code, code))
    return zh if language == "zh" else en


def note(code: str, language: str) -> str:
    en, zh = NOTE.get(code, (code, code))
    return zh if language == "zh" else en


def alert_kind(kind: str, language: str) -> str:
    en, zh = ALERT_KIND.get(kind, OTHER_ALERT)
    if kind not in ALERT_KIND and language == "en":
        return kind.replace("_", " ").capitalize()
    return zh if language == "zh" else en


def pause_code(code: str | None, language: str) -> str:
    if code is None or code not in PAUSE_WORDS:
        return ""
    en, zh = PAUSE_WORDS[code]
    return zh if language == "zh" else en


# Who held the table, as a dealer's pause reads when ``raised_by`` says it was not the
# dealer (stats.who_raised): the station's reason says "held by the dealer" whoever it was.
HELD_BY: Final = {
    "pit_boss": ("Held by the pit boss", "巡场经理暂停"),
    "supervisor": ("Held by the supervisor", "主管暂停"),
}


def reason(text: str | None, language: str, raised_by: str | None = None) -> str:
    """A pause reason (or a void's) as the dealer's page shows it: one plain sentence per
    reason (``station.web.plain``: no raw bytes, no driver's jargon; card codes stay). With
    ``raised_by`` (the pause's), a dealer's pause another raised names who held the table:
    the pit boss's pause never reads "held by the dealer"."""
    if not text:
        return ""
    zh = language == "zh"
    said = reasons_plain(text, zh=zh)
    who = who_raised(raised_by) if raised_by else DEALER
    if who in HELD_BY and said and text.startswith(HELD_BY_DEALER + ": "):
        code = reason_of(text)[1]
        en, zh_words = PAUSE_WORDS.get(code, PAUSE_WORDS["other"])
        head = HELD_BY[who][1 if zh else 0]
        said[0] = f"{head}：{zh_words}" if zh else f"{head}: {en}"
    return ("；" if zh else "; ").join(said)


# The station's own actors of an ``alert`` (docs/upstream.md, ``alert``: its ``by``): parts of
# the station, not people, named in words in both languages (the page never shows a bare "clock").
STATION_ACTOR: Final = {
    "timer": ("the station's timer", "工作站计时器"),
    "bet_guard": ("the bet guard", "投注回报监控"),
    "station": ("the station", "工作站"),
    "clock": ("the station's clock check", "工作站时钟检查"),
    "install_check": ("the station's install check", "工作站安装检查"),
}


def actor(who: str | None, language: str) -> str:
    """Who did something (``raised_by``, a resume's ``by``, an alert's ``by``)."""
    if not who:
        return ""
    if who in STATION_ACTOR:
        return STATION_ACTOR[who][1 if language == "zh" else 0]
    if who.startswith(ARCHIVE_ACTOR):
        # The archive's alerts (station.services.pit.archivealerts): "archive <its name>".
        name = who.removeprefix(ARCHIVE_ACTOR)
        return f"归档服务 {name}" if language == "zh" else f"the archive {name}"
    return actor_zh(who) if language == "zh" else who


ARCHIVE_ACTOR: Final = "archive "


def alert_detail(kind: str, detail: str, language: str, by: str | None = None) -> str:
    """An alert's detail; on the Chinese page the translation, or nothing when there is none
    (then the kind's words stand alone). ``by``: the alert's, who raised a pause."""
    if kind == "pause":
        return reason(detail, language, by)
    if language != "zh" or not detail:
        return detail
    counted = _TIMES.fullmatch(detail)
    text = counted[1] if counted else detail
    said = _apply(_PIT_ZH.get(kind, []), text) or _apply(_DETAIL_ZH, text)
    if said is None:
        return f"共{counted[2]}次" if counted else ""
    return said + (f"（共{counted[2]}次）" if counted else "")


_SUPERVISOR = "supervisor: "
_SUPERVISOR_ZH = "主管："
_BOTH = re.compile(r"(resume .+), (void .+)")
_BOTH_ZH = re.compile(r"(恢复则.+)，(作废则.+)")


def choices(text: str, language: str) -> tuple[str, str]:
    """What resume and what void will do, from the station's one sentence for the supervisor
    (``supervisor: resume continues the round, void refunds it``, ``supervisor: resume or void
    sets the card aside``): the two halves when it names each, else the whole for both."""
    if language == "zh":
        said = detail_zh(text).removeprefix(_SUPERVISOR_ZH)
        m = _BOTH_ZH.fullmatch(said)
    else:
        said = text.removeprefix(_SUPERVISOR)
        m = _BOTH.fullmatch(said)
    return (m[1], m[2]) if m else (said, said)


# The station's refusal reasons of a command (docs/upstream.md, "Commands from upstream").
REFUSAL: Final = {
    "malformed": ("malformed", "格式错误"), "unsigned": ("unsigned", "未签名"),
    "bad_signature": ("bad signature", "签名无效"), "wrong_table": ("wrong table", "牌桌不符"),
    "unknown_action": ("unknown action", "未知指令"), "stale": ("too old", "已过期"),
    "future": ("from the future", "时间超前"), "replayed": ("replayed", "重复指令"),
    "not_now": ("not now", "现在不可执行"), "overloaded": ("overloaded", "过载"),
    "flood": ("flood", "指令过多"),
}
# What the pit says a command did, from the table's message that answered it
# (``station.services.pit.model``).
_DONE_ZH: list[_Rule] = [
    (re.compile(r"round (\d+) void \((.*)\)"),
     lambda m: f"第{m[1]}局已作废（{reason(m[2], 'zh')}）"),
    (re.compile(r"shuffle confirmed; shoe (\S+) started"),
     lambda m: f"已确认洗牌；牌靴 {m[1]} 已开始"),
    (re.compile(r"paused: (.*)"), lambda m: f"已暂停：{reason(m[1], 'zh')}"),
    (re.compile(r"resumed"), lambda m: "已恢复"),
    (re.compile(r"voided: no round in play; the pause ended and the table goes on"),
     lambda m: "已作废：无进行中的牌局；暂停已解除，牌桌继续"),
    (re.compile(r"the pause cleared \(no message of the table names the command\)"),
     lambda m: "暂停已解除（牌桌的消息未提及该指令）"),
    (re.compile(r"shoe ended after (\d+) rounds"), lambda m: f"第{m[1]}局后牌靴结束"),
]
_REFUSED = re.compile(r"(?P<why>[a-z_]+): (?P<detail>.*)")
_LATIN = re.compile(r"[A-Za-z]{3,}")


def command_detail(detail: str | None, language: str) -> str:
    """A command's answer (``station.services.pit.model``: ``not_now: <the station's words>`` for a
    refusal, what it did for an applied one) in ``language``; in Chinese what is known of it,
    never an English sentence."""
    if not detail or language != "zh":
        return detail or ""
    done = _apply(_DONE_ZH, detail)
    if done is not None:
        return done
    m = _REFUSED.fullmatch(detail)
    if m is None or m["why"] not in REFUSAL:
        return ""
    said = notice_zh(m["detail"])
    said = "" if said == m["detail"] and _LATIN.search(said) else said
    return REFUSAL[m["why"]][1] + (f"：{said}" if said else "")


# --------------------------------------------------------------------------------------------------
# Who raised a pause or a void (stats.RAISED).
STATS_RAISED: Final = {
    "dealer": ("dealer", "荷官"), "pit_boss": ("pit boss", "巡场经理"),
    "supervisor": ("supervisor", "主管"), "station": ("station", "工作站"),
}
# What a pause or void was: the station's reason kinds (station.table.pauses.REASON_KINDS), the
# dealer's codes (station.table.procedures.PAUSE_WORDS) and a void with no pause.
STATS_REASON: Final = {
    "not_due": ("card not due", "非应发之牌"),
    "unreadable": ("unreadable card", "无法读取的牌"),
    "beyond_shoe": ("more copies than the shoe holds", "超出牌靴副数的牌"),
    "device_lost": ("reader lost", "读牌器断开"),
    "noise": ("reader noise", "读牌器干扰"),
    "another_pack": ("card from another pack", "其他牌副的牌"),
    "repeated_shoe": ("repeated shoe", "重复牌靴"),
    "restart": ("station restarted", "工作站重启"),
    "cut_card": ("cut card during the burn", "烧牌时出现切牌"),
    "voided_by_supervisor": ("voided by the supervisor", "主管作废"),
    **PAUSE_WORDS,  # the dealer's codes; "other" is also a station reason of no known kind
}
# The columns: as the CSV names them (stats.csv_header) and as the page shows them.
STATS_COLUMN: Final = {
    "table": ("Table", "牌桌"), "dealer": ("Dealer", "荷官"), "tables": ("Tables", "牌桌"),
    "rounds": ("Rounds", "局数"), "complete": ("Complete", "完成"), "void": ("Void", "作废"),
    "dealing_s": ("Dealing time", "派牌时间"), "rounds_per_hour": ("Rounds per hour", "每小时局数"),
    "pauses": ("Pauses", "暂停次数"), "paused_s": ("Time paused", "暂停时间"),
    "voids": ("Voids", "作废次数"), "raised": ("Raised by", "发起方"), "reason": ("Reason", "原因"),
}


def stats_words(language: str) -> dict[str, dict[str, str]]:
    """The statistics page's words in ``language``: who raised, the reasons, the columns."""
    i = 1 if language == "zh" else 0
    return {"raised": {k: v[i] for k, v in STATS_RAISED.items()},
            "reasons": {k: v[i] for k, v in STATS_REASON.items()},
            "columns": {k: v[i] for k, v in STATS_COLUMN.items()}}


# The floor's banner when the pit itself has lost the broker (views.Link): then no table's
# tile can be trusted to say what the table does now.
LINK_LOST: Final = ("The pit has lost the broker: tables are not updated; what the tiles say "
                    "may be old", "巡场系统与消息服务器断开：牌桌未更新，显示内容可能已过时")


def link(connected: bool, language: str) -> str:
    """The banner's words ("" while connected)."""
    return "" if connected else LINK_LOST[1 if language == "zh" else 0]
