"""The dealer page shows no string that did not come from its language's catalogues
(station/web/locale/<tag>/*.po), in Debian's Chromium against a real ``station run`` whose
scanner is a pty: every text on screen, in each state staged (no shoe, the shuffle check,
betting open, a third card due, a card not due, the dealer's own pause, a notice), once
every catalogue phrase of the page's language is taken out, leaves only ranks and suits,
ids (the table's, a dealer's, a pack's), names and numbers. In English the station's own
sentences are allowed too: the English page shows the station's words, which the English
catalogue renders identically (tests/web/test_catalogues.py)."""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.sim_serial import PtyScanner
from station.settings.languages import tag_of
from station.web.catalogue import loaded
from tests import webkit

VISIBLE_TEXTS = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode;
    const t = n.textContent.trim();
    const e = n.parentElement;
    if (!t || !e || e.closest('[hidden], script, style')) continue;
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push(t);
  }
  for (const i of document.querySelectorAll('input[placeholder]')) {
    if (!i.closest('[hidden]')) out.push(i.placeholder);
  }
  return out;
}"""
# What may be left: ranks and suits, digits, ids and names as the test wrote them,
# punctuation and space (a card's code, a time, a percentage, the keys' letters).
IDS = ("t5", "D042", "PK-A1", "PK-B2", "A1", "B2", "alice", "bob")
CARD = re.compile(r"(?<![A-Za-z])(?:10|[2-9TJQKA])[SHDC♠♥♦♣]?(?![A-Za-z])")
PLACEHOLDER = re.compile(r"\{\w+\}")


# A text's words: each Han character on its own, each run of Latin letters.
WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z]+")


def vocabulary(tag: str) -> set[str]:
    """Every word of every message of ``tag``'s catalogues, both sides (placeholders out)."""
    words: set[str] = set()
    for side in ("station", "pages"):
        for m in loaded(tag, side).catalog:
            if not m.id:
                continue
            forms = m.string if isinstance(m.string, tuple | list) else [m.string]
            for form in forms:
                words.update(WORD.findall(PLACEHOLDER.sub(" ", str(form))))
    return words


def not_from_catalogue(texts: list[str], tag: str, allowed: set[str]) -> list[str]:
    """The texts with a word no catalogue of ``tag`` has (ids, ranks and the ``allowed``
    sentences taken out first): an English word on a Chinese page, a Simplified character
    on the Traditional page, a label the script wrote itself."""
    known = vocabulary(tag)
    bad = []
    for text in texts:
        rest = text
        for said in sorted(allowed | set(IDS), key=len, reverse=True):
            rest = rest.replace(said, " ")
        rest = CARD.sub(" ", rest)
        unknown = [w for w in WORD.findall(rest) if w not in known]
        if unknown:
            bad.append(f"{text!r}: {unknown}")
    return bad


def check(page: Any, tag: str, where: str, allowed: set[str]) -> None:
    page.wait_for_timeout(400)  # the view applied, the fitted text settled
    bad = not_from_catalogue(page.evaluate(VISIBLE_TEXTS), tag, allowed)
    assert not bad, f"{tag}, {where}: {bad}"


def station_words(base: str) -> set[str]:
    """The station's own English sentences now shown (allowed on the English page only)."""
    s = webkit.state(base)
    p = s["prompt"]
    said = {p["text"], p["detail"], p.get("todo", ""), p.get("todo_now", ""),
            *s["notices"], *s.get("notices_page", [])}
    said |= {piece for text in list(said) for piece in text.split("; ")}
    return {t for t in said if t}


@pytest.mark.parametrize("lang", ["zh-Hant", "zh", "en"])
def test_the_page_shows_only_catalogue_words(tmp_path: Path, page: Any, lang: str) -> None:
    tag = tag_of(lang) or "en"
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path, language=lang)
        cfg = yaml.safe_load(config.read_text())
        cfg["table"]["shuffle_check"] = "supervisor"
        cfg["reader"].update(pack_prefix="PK-", cut_code="CUT")
        config.write_text(yaml.safe_dump(cfg))
        base = webkit.url_of(config)
        with webkit.running(config) as proc:
            webkit.wait_reading(proc, pty.path)
            page.goto(base)
            webkit.wait_state(base, lambda s: all(d["ok"] for d in s["devices"]))

            def here(where: str) -> None:
                check(page, tag, where, station_words(base) if tag == "en" else set())

            here("no shoe")
            webkit.command(base, "sign-in", dealer="D042")
            webkit.command(base, "new-shoe")
            pty.send(["PK-A1", "PK-B2"])
            webkit.wait_state(base, lambda s: len((s["shuffle_check"] or {}).get("packs", []))
                              == 2)
            here("the shuffle check")
            webkit.command(base, "confirm-shuffle", pin=webkit.PIN, actor="alice")
            pty.send(["3H", "KD", "QD", "JD"])
            webkit.wait_state(base, lambda s: s["phase"] == "between_rounds")
            here("between rounds")
            webkit.command(base, "open-betting")
            webkit.wait_state(base, lambda s: s["phase"] == "betting_open")
            here("betting open")
            webkit.command(base, "close-betting")
            pty.send(["4S", "5S", "AD", "TS"])
            webkit.wait_state(base, lambda s: s["phase"] == "player_3")
            here("a third card due")
            pty.send(["7C", "8H", "4H"])  # the round ends on 8H; 4H is not due
            webkit.wait_state(base, lambda s: s["paused"])
            here("a card not due")
            webkit.command(base, "resume", pin=webkit.PIN, actor="alice")
            webkit.wait_state(base, lambda s: s["phase"] == "between_rounds")
            here("resumed (a notice)")
            webkit.command(base, "pause", reason="card_dropped", actor="bob")
            webkit.wait_state(base, lambda s: s["paused"])
            here("the dealer's own pause")


def test_a_string_from_no_catalogue_is_found() -> None:
    """The check can fail: an English word on the Traditional Chinese page, or a label
    written in Simplified characters, is reported."""
    assert not_from_catalogue(["第3局：開始下注"], "zh-Hant", set()) == []
    assert not_from_catalogue(["第3局：OPEN BETTING"], "zh-Hant", set())
    assert not_from_catalogue(["第3局：开始下注"], "zh-Hant", set())  # 开 is Simplified
    assert not_from_catalogue(["ROUND 3: OPEN BETTING", "4S 5S AD"], "en", set()) == []
    assert not_from_catalogue(["ROUND 3: OPEN THE DOORS"], "en", set())
