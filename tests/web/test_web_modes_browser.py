"""The dealer's page on tables in a mode, in Debian's Chromium against a real daemon
(docs/display.md): followed literally on a squeeze table (reveals pressed on the page), a timer
table (the countdown shows and betting closes by itself) and a VIP table (rounds skipped from
the page until the station refuses, with its reason on the greyed button); and the squeeze's
secrecy: no face-down card's code in the page's text or in any view it received before the
card's reveal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from drivers.sim_serial import PtyScanner
from tests import webkit
from tests.webkit import PIN, state, wait_state, wait_text

# Every view the page receives (the SSE stream), and every text its document shows, recorded
# in the page itself from its first byte.
RECORDER = """
window.__sse = [];
window.__texts = new Set();
const Original = window.EventSource;
window.EventSource = function (url) {
  const es = new Original(url);
  es.addEventListener("state", (ev) => window.__sse.push(ev.data));
  return es;
};
window.EventSource.CLOSED = Original.CLOSED;
new MutationObserver(() => {
  window.__texts.add(document.documentElement.textContent);
  for (const e of document.querySelectorAll("[title],[aria-label],input")) {
    window.__texts.add(e.title + (e.getAttribute("aria-label") || "") + (e.value || ""));
  }
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def modes_config(tmp: Path, table: dict[str, Any], players: dict[str, Any] | None = None,
                 **pace: float) -> Path:
    config = webkit.sim_config(tmp, card_s=0.05, shoes=None)
    data = yaml.safe_load(config.read_text())
    data["table"].update(table)
    data["simulation"]["pace"].update(pace)
    if players is not None:
        data["simulation"]["players"] = players
    config.write_text(yaml.safe_dump(data))
    return config


def records(tmp: Path) -> list[dict[str, Any]]:
    path = tmp / "results.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_a_squeeze_table_followed_literally_reveals_from_the_page(
        tmp_path: Path, page: Any) -> None:
    # The players leave the reveals to the deadline, which is far: the dealer reveals.
    config = modes_config(tmp_path, {"mode": "squeeze", "reveal_s": 120},
                          {"reveal": "timer"}, open_betting_s=0.6)
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        reveals = 0
        while len(records(tmp_path)) < 3:
            # The station waits for a reveal (it moves on only when one is taken), and the
            # page shows that very prompt: a page still showing the reveal just taken (its
            # update not yet in) once sent this loop on with the station past it.
            s = wait_state(base, lambda s: s["reveal"] is not None, what="a reveal due")
            page.wait_for_function("seq => window.__prompts.some(p => p.seq >= seq)",
                                   arg=s["prompt_seq"], timeout=30_000)
            wait_text(page, "#instruction", "REVEAL", timeout_s=30)
            hand = s["reveal"]["hand"]
            # What the page shows: the waiting hand's cards as backs, no total.
            assert page.locator(f"#{hand} .card.back").count() == s["round"][f"{hand}_down"] > 0
            assert page.inner_text(f"#{hand} .total") == ""
            assert "REVEAL" in page.inner_text("#detail")
            page.click("button[data-action=reveal]")
            reveals += 1
            wait_state(base, lambda s, before=s: s["prompt_seq"] != before["prompt_seq"],
                       what="the reveal taken")
        assert reveals >= 6  # two per round at least
    published = records(tmp_path)
    assert all(r["status"] == "complete" for r in published[:3])


def test_a_timer_table_counts_down_and_betting_closes_by_itself(
        tmp_path: Path, page: Any) -> None:
    config = modes_config(tmp_path, {"betting": "timer", "betting_s": 1.5})
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        wait_text(page, "#countdown-label", "BETTING CLOSES IN", timeout_s=30)
        left = page.evaluate("window.__countdown")
        assert 0 < left <= 1.5
        # One countdown per timer: the instruction beside it does not name the timer's own
        # figure ("closes by itself in 1.5 s" next to a live "1 s").
        shown = page.inner_text("#instruction")
        assert "closes by itself when the countdown ends" in shown, shown
        assert "1.5 s" not in shown
        assert "betting closes by itself in 1.5 s" in state(base)["prompt"]["text"]
        assert page.inner_text("#countdown-s") in ("1 s", "2 s")
        # The dealer's buttons for betting are not there; the page says who runs betting.
        assert page.locator("button[data-action=open_betting]").is_hidden()
        assert page.locator("button[data-action=close_betting]").is_hidden()
        assert "station's countdown (1.5 s)" in page.inner_text("#betting-how")
        round_no = state(base)["round"]["no"]
        # Nobody closes betting: the countdown does, and the round is dealt.
        wait_state(base, lambda s: s["round"]["no"] == round_no and s["phase"] != "betting_open",
                   timeout_s=10, what="betting closed by itself")
        page.wait_for_selector("#countdown", state="hidden", timeout=5000)
        assert page.evaluate("window.__countdown") < 0.5
    log = (tmp_path / "station.log").read_text()
    assert "close_betting" not in log


def test_a_vip_table_skips_from_the_page_until_the_sixth_is_refused(
        tmp_path: Path, page: Any) -> None:
    config = modes_config(tmp_path, {"mode": "vip", "betting": "timer", "betting_s": 2.0},
                          {"reveal": "player"}, reveal_s=0.05)
    with webkit.running(config):
        base = webkit.url_of(config)
        page.goto(base)
        skipped: list[int] = []
        while len(skipped) < 5:
            wait_text(page, "#countdown-label", "BETTING CLOSES IN", timeout_s=30)
            open_vip(page)
            page.wait_for_selector("#vip button[data-action=skip]:not([disabled])")
            round_no = state(base)["round"]["no"]
            page.fill("#vip-pin", PIN)
            page.click("#vip button[data-action=skip]")
            wait_state(base, lambda s, n=round_no: s["round"]["no"] > n, what="the next round")
            skipped.append(round_no)
        wait_text(page, "#countdown-label", "BETTING CLOSES IN", timeout_s=30)
        open_vip(page)
        button = page.locator("#vip button[data-action=skip]")
        assert button.is_disabled()
        why = "5 rounds skipped in a row already, the most the VIP rules allow; this round " \
              "is played"
        wait_text(page, "#vip .why[data-why=skip]", why)
        # The same request from the API is refused with the same words, and the round played.
        status, answer = webkit.command(base, "skip", actor="alice", pin=PIN)
        assert status == 409 and why in answer["error"]
        round_no = state(base)["round"]["no"]
        wait_state(base, lambda s: s["round"]["no"] > round_no, what="the sixth round played")
        # A wrong PIN is refused on the page and changes nothing.
        open_vip(page)
        page.fill("#vip-pin", "0000")
        page.click("#vip button[data-action=request_dealer]")
        wait_text(page, "#vip-message", "wrong PIN")
    published = {r["round"]: r for r in records(tmp_path)}
    assert [n for n in skipped if published[n].get("skipped")] == skipped
    assert not published[round_no].get("skipped")


def open_vip(page: Any) -> None:
    """The VIP requests sit behind one button until a supervisor opens them."""
    if page.get_attribute("#vip-toggle", "aria-expanded") != "true":
        page.click("#vip-toggle")
    page.wait_for_selector("#vip-pin", state="visible")


# The shoe of the secrecy test (one deck: every code once). Burn: AH shown, KD face down.
# Round 1: P 7C QH (7), B 9D 8S (7): a tie, both stand. Round 2: P 4H JC (4) draws 6S (0),
# B 6C TD (6) draws on the third card 6: 5H (1).
BURN = ["AH", "KD"]
ROUND_1 = ["7C", "9D", "QH", "8S"]
ROUND_2 = ["4H", "6C", "JC", "TD"]


def test_no_face_down_card_reaches_the_page_before_its_reveal(
        tmp_path: Path, page: Any) -> None:
    page.add_init_script(RECORDER)
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        data = yaml.safe_load(config.read_text())
        data["table"].update({"mode": "squeeze", "reveal_s": 300})
        config.write_text(yaml.safe_dump(data))
        with webkit.running(config) as proc:
            base = webkit.url_of(config)
            page.goto(base)
            webkit.wait_reading(proc, pty.path)
            page.click("button[data-action=new_shoe]")
            wait_text(page, "#instruction", "BURN")
            pty.send(BURN)
            hidden: set[str] = set()
            answers: list[str] = []

            def follow(cards: list[str], waits_for: str) -> None:
                pty.send(cards)
                hidden.update(cards)
                wait_text(page, "#instruction", waits_for)
                never_shown(page, hidden, answers)

            def reveal(codes: list[str], then: str) -> None:
                never_shown(page, hidden, answers)
                with page.expect_response(lambda r: "/api/commands/reveal" in r.url) as resp:
                    page.click("button[data-action=reveal]")
                answers.append(resp.value.text())
                hidden.difference_update(codes)
                wait_text(page, "#instruction", then)
                never_shown(page, hidden, answers)

            for cards in (ROUND_1, ROUND_2):
                wait_text(page, "#instruction", "OPEN BETTING")
                page.click("button[data-action=open_betting]")
                page.click("button[data-action=close_betting]")
                wait_text(page, "#instruction", "DEAL PLAYER CARD 1 FACE DOWN")
                follow(cards, "REVEAL PLAYER CARDS")
                assert page.locator("#player .card.back").count() == 2
                player, banker = cards[0::2], cards[1::2]
                if cards is ROUND_1:
                    reveal(player, "REVEAL BANKER CARDS")
                    reveal(banker, "ROUND 2: OPEN BETTING")
                    continue
                reveal(player, "REVEAL BANKER CARDS")
                # The third card is prompted only once both hands are face up.
                reveal(banker, "DEAL PLAYER THIRD CARD FACE DOWN")
                follow(["6S"], "REVEAL PLAYER THIRD CARD")
                reveal(["6S"], "DEAL BANKER THIRD CARD FACE DOWN")
                follow(["5H"], "REVEAL BANKER THIRD CARD")
                reveal(["5H"], "ROUND 3: OPEN BETTING")
            assert page.evaluate("window.__sse.length") > 5  # views coalesce under load
            wait_text(page, "#last-result", "Round 2: PLAYER 0 BANKER 1, BANKER WINS")
    published = records(tmp_path)
    assert [(r["player"], r["banker"]) for r in published] == [
        (["7C", "QH"], ["9D", "8S"]), (["4H", "JC", "6S"], ["6C", "TD", "5H"])]


def never_shown(page: Any, hidden: set[str], answers: list[str]) -> None:
    """No code of ``hidden`` in any view the page received, any text it showed, or any
    answer to its commands; and no total for a hand with a card face down."""
    views = page.evaluate("window.__sse")
    texts = page.evaluate("Array.from(window.__texts)")
    for code in hidden:
        for blob in (*views, *texts, *answers, page.content()):
            assert code not in blob, (code, blob[:300])
    last = json.loads(views[-1])["state"]["round"]
    for hand in ("player", "banker"):
        if last[f"{hand}_down"]:
            assert last[f"{hand}_total"] is None
            assert page.inner_text(f"#{hand} .total") == ""
