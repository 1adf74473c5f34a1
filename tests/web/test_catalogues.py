"""The words people read come from message ids in one catalogue per language and side
(station/web/locale/<tag>/{station,pages}.po; station.web.catalogue).

- Every shipped language has every id of both sides, each translated (no empty text), with
  the same placeholders as the English (a translation that drops ``{n}`` drops the figure),
  and as many plural forms as its own ``Plural-Forms`` header says.
- No catalogue holds an id that no code uses: the Python side's ids are the string literals
  of ``station/`` (every ``msg("...")`` is written whole), the pages' are the labels the
  dealer page's script asks for.
- Every instruction the station gives, over seeded simulated shoes in every table mode and
  the pauses no simulation reaches, carries its message ids, and the English catalogue
  renders them as the station's own words, byte for byte (the journal's and the status
  message's words do not change); every shipped language renders them with no id or
  placeholder left.
"""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from drivers.simulated import Fault, Pace, SimulatedDealer, random_shoes
from station.settings.languages import ALIASES, LANGUAGES, tag_of
from station.table.msg import Msg
from station.table.outputs import Prompt
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.web import catalogue
from station.web.catalogue import SIDES, ids, loaded, page_words, render
from station.web.devicenames import DEVICE_IDS
from station.web.roadpanel import LABEL_KEYS
from station.web.view import LIVE_IDS, without_figures
from tests.conftest import REPO
from tests.web.test_web_words import scenarios

PLACEHOLDER = re.compile(r"\{(\w+)\}")
APP_JS = REPO / "station/web/static/app.js"


def _texts(tag: str, side: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in loaded(tag, side).catalog:
        if not m.id:
            continue
        key = m.id if isinstance(m.id, str) else m.id[0]
        out[key] = list(m.string) if isinstance(m.string, tuple | list) else [str(m.string)]
    return out


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("tag", list(LANGUAGES))
def test_every_language_has_every_id_translated_with_its_placeholders(tag: str,
                                                                       side: str) -> None:
    english = _texts("en", side)
    said = _texts(tag, side)
    assert set(said) == set(english), (sorted(set(english) - set(said)),
                                       sorted(set(said) - set(english)))
    nplurals = loaded(tag, side).catalog.num_plurals
    for key, forms in said.items():
        assert all(forms), f"{tag} {side}.po: {key} has no translation"
        if len(english[key]) > 1:  # a message with plural forms: as many as the header says
            assert len(forms) == nplurals, (tag, key)
        want = set(PLACEHOLDER.findall(english[key][-1]))
        for form in forms:
            got = set(PLACEHOLDER.findall(form))
            # {NAME} is {name} in capitals (the English page writes a device's id so).
            assert {g.lower() for g in got} == {w.lower() for w in want}, (tag, key, form)


def test_a_missing_translation_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a zh-Hant catalogue without one message is caught."""
    text = catalogue._po_text("zh-Hant", "station")
    cut = re.sub(r'msgid "prompt\.new_shoe"\nmsgstr "[^"]*"\n', "", text)
    assert cut != text
    monkeypatch.setattr(catalogue, "_po_text",
                        lambda tag, side: cut if (tag, side) == ("zh-Hant", "station")
                        else _orig(tag, side))
    loaded.cache_clear()
    try:
        assert "prompt.new_shoe" not in ids("zh-Hant")
        assert "prompt.new_shoe" in ids("en")
    finally:
        monkeypatch.undo()
        loaded.cache_clear()


_orig = catalogue._po_text


def _station_literals() -> set[str]:
    found: set[str] = set()
    for path in (REPO / "station").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    # The two families named by a declared list: the devices' and the road panel's labels.
    found.update(f"device.{d}" for d in DEVICE_IDS)
    found.update(f"road.{k}" for k in LABEL_KEYS)
    return found


# Values a nested label is picked by that come in the view, not the script: a result's
# winner (heads.*), a card's suit letter (suitLetter.*), why the shoe ended (shoeEnd.*).
VIEW_VALUES = frozenset({"player", "banker", "tie", "S", "H", "D", "C", "cut_card"})


def _page_labels_used() -> set[str]:
    script = APP_JS.read_text(encoding="utf-8")
    page = (REPO / "station/web/static/index.html").read_text(encoding="utf-8")
    top = (set(re.findall(r'\bt\("(\w+)"\)', script))
           | set(re.findall(r"\b(?:L|out)\.(\w+)", script))
           # the buttons and fixed labels the script names by their data-action / data-label
           | set(re.findall(r'data-(?:action|label)="(\w+)"', page)))
    words = set(re.findall(r"\w+", script))
    used = set()
    for key in page_words("en")["words"]:
        head, _, leaf = key.partition(".")
        # A nested label (codes.misdeal) is asked for by its family and a value the script
        # holds (its PAUSE_CODES, a view's field): both must be in the script.
        if head in top and (not leaf or leaf in words or leaf in VIEW_VALUES):
            used.add(key)
    return used


def test_no_catalogue_holds_an_id_no_code_uses() -> None:
    unused = ids("en", "station") - _station_literals()
    assert not unused, sorted(unused)
    unused_pages = ids("en", "pages") - _page_labels_used()
    assert not unused_pages, sorted(unused_pages)


def test_an_unused_id_is_found() -> None:
    """The check above can fail: an id that only the catalogue names is reported."""
    assert "prompt.never_said" not in _station_literals()
    assert "prompt.new_shoe" in _station_literals()


def test_language_tags_are_bcp47_and_zh_stays_an_alias() -> None:
    assert list(LANGUAGES)[:3] == ["en", "zh-Hans", "zh-Hant"]
    assert ALIASES == {"zh": "zh-Hans"}
    assert tag_of("zh") == "zh-Hans" and tag_of("ZH-hant") == "zh-Hant" and tag_of("fr") is None
    assert render(Msg("prompt.burn_first"), "zh") == render(Msg("prompt.burn_first"),
                                                             "zh-Hans")


def test_plural_forms_and_numbers_come_from_the_catalogue() -> None:
    pages = page_words("en")
    assert pages["plural"] == "(n != 1)" and pages["words"]["wrongPin"] == [
        "wrong PIN ({n} try left)", "wrong PIN ({n} tries left)"]
    assert page_words("zh-Hant")["nplurals"] == 1
    assert render(Msg("prompt.burn_more", (("n", 3),)), "zh-Hant") == "再燒3張牌（牌面向下）"
    # Numbers by the locale, never grouped: 1234 cards read as the station says them.
    assert render(Msg("prompt.burn_more", (("n", 1234),)), "en") == "BURN 1234 MORE FACE DOWN"
    assert render(Msg("how.timer", (("s", 7.5),)), "zh-Hant") == "7.5秒後自動停止下注"


# --- every instruction the station gives ------------------------------------------------
RULES = [TableRules(decks=8), TableRules(decks=8, betting="timer"),
         TableRules(decks=8, mode="squeeze"),
         TableRules(decks=8, mode="vip"), TableRules(decks=8, shuffle_check="supervisor")]


def _check(prompt: Prompt, seen: set[str]) -> None:
    if prompt.line() in seen:
        return
    seen.add(prompt.line())
    if not prompt.paused:
        assert prompt.said is not None, prompt
        assert render(prompt.said, "en") == prompt.text
        seen.add(prompt.said.id)
    if prompt.detail:
        assert prompt.said_detail is not None, prompt
        assert render(prompt.said_detail, "en") == prompt.detail
    else:
        assert prompt.said_detail is None or prompt.paused
    for said in (prompt.said, prompt.said_detail):
        if said is None:
            continue
        for tag in LANGUAGES:
            for text in (render(said, tag), _live(said, tag)):
                assert not PLACEHOLDER.search(text) and "prompt." not in text, (tag, text)


def _live(said: Msg, tag: str) -> str:
    bare = without_figures(said)
    return bare if isinstance(bare, str) else render(bare, tag)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.mode}-{r.betting}-{r.shuffle_check}")
def test_every_instruction_renders_in_english_as_the_station_words_it(rules: TableRules) -> None:
    seen: set[str] = set()
    rng = random.Random(29)
    faults = [Fault("not_due", after_round=rng.randint(0, 40), shoe=1),
              Fault("cut", card=2, shoe=2)]
    station = Station(rules)
    dealer = SimulatedDealer(random_shoes(29, 2, 8), faults, pace=Pace(),
                             supervisor="resume", start_ts=1_800_000_000.0)
    simulate(station, dealer, lambda outputs: _check(station.prompt, seen))
    assert "prompt.deal" in seen or "prompt.reveal_cards" in seen


def test_the_instructions_of_the_pauses_no_simulation_reaches() -> None:
    seen: set[str] = set()
    for table in scenarios():
        _check(table.station.prompt, seen)


def test_live_ids_name_catalogue_ids() -> None:
    for said, live in LIVE_IDS.items():
        assert said in ids("en") and (live is None or live in ids("en"))


def test_the_catalogues_are_package_data() -> None:
    """pyproject ships them (tests/service/test_wheel.py installs the wheel and reads them)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"web/locale/*/*.po"' in text
    for tag in LANGUAGES:
        for side in SIDES:
            assert (REPO / "station/web/locale" / tag / f"{side}.po").is_file()
    assert Path(catalogue.__file__).parent == REPO / "station/web"
