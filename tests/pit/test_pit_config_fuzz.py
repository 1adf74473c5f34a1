"""``station pit --check -c PIT.yaml`` with seeded mutations of a valid config and with
hypothesis-made near-valid ones: exit 0 or 2, never a traceback; a 2 is one line
``station pit: error: ...``; unknown keys are refused naming the key."""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.web import pins
from station.wire.keyfiles import write_pair
from tests.fuzz import harness
from tests.fuzz.harness import Case
from tests.fuzz.mutate import mutate
from tests.sampling import examples

CASES = 300
VALID: dict[str, dict[str, Any]] = {
    "broker": {"host": "127.0.0.1", "port": 1883, "prefix": "baccarat", "client_id": None,
               "credentials_file": None, "tls": False, "keepalive_s": 30,
               "session_expiry_s": 3600, "reconnect_max_s": 30},
    "tables": {"keys_dir": "keys"},
    "pit": {"name": "pit", "host": "127.0.0.1", "port": 8090, "signing_key_file": "pit.pem",
            "pins_file": "pit.pins", "journal": "var/pit.sqlite3", "language": "en",
            "answer_timeout_s": 10, "tls": None, "allow_plain_http": False,
            "server_names": []},
}
KEYS = {s: [*sorted(v), "colour"] for s, v in VALID.items()}


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="pit-fuzz-"))
    (folder / "keys").mkdir()
    write_pair(folder / "pit.pem", folder / "pit.pub.pem")
    write_pair(folder / "t-01.pem", folder / "keys" / "t-01.pub")
    pins.save(folder / "pit.pins", [pins.hash_pin("ann", "4711")])
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run(path: Path) -> harness.Outcome:
    outcome = harness.run_inprocess(["pit", "--check", "-c", str(path)])
    found = harness.problems(Case(["pit", "--check", "-c", str(path)]), outcome, {})
    assert not found, f"{path.read_bytes()[:400]!r}: {found}"
    return outcome


def test_the_valid_config_and_the_shipped_one_check(work: Path, repo: Path) -> None:
    path = work / "pit.yaml"
    path.write_text(yaml.safe_dump(VALID))
    assert run(path).code == 0
    shipped = yaml.safe_load((repo / "config" / "pit.yaml").read_text())
    assert {s: sorted(v) for s, v in shipped.items()} == {s: sorted(v)
                                                          for s, v in VALID.items()}


@pytest.mark.parametrize(("doc", "words"), [
    ({**VALID, "pit": {**VALID["pit"], "nmae": "x"}}, "pit.nmae: unknown key (did you mean "
     "'name'?)"),
    ({**VALID, "broker": {**VALID["broker"], "command_keys": {}}}, "broker.command_keys: "
     "unknown key"),
    ({**VALID, "extra": 1}, "extra: unknown key"),
    ({**VALID, "pit": {**VALID["pit"], "language": "fr"}}, "pit.language: 'fr' is not one of"),
    # A tag the station knows but the pit's pages have no words in yet: refused by name.
    ({**VALID, "pit": {**VALID["pit"], "language": "zh-Hant"}}, "pit.language: zh-Hant: the "
     "pit's pages are in en, zh only so far; use en or zh-Hans"),
    ({**VALID, "pit": {**VALID["pit"], "name": "a b"}}, "pit.name:"),
    ({**VALID, "pit": {**VALID["pit"], "answer_timeout_s": 0.5}}, "pit.answer_timeout_s: 0.5 s "
     "is too short"),
    ({**VALID, "pit": {**VALID["pit"], "answer_timeout_s": "soon"}}, "pit.answer_timeout_s: "
     "expected a number of seconds"),
    ({**VALID, "broker": {**VALID["broker"], "prefix": "a/+"}}, "broker.prefix:"),
    ({**VALID, "broker": {**VALID["broker"], "port": 70000}}, "broker.port:"),
    ({**VALID, "tables": {}}, "tables.keys_dir: required"),
    ({**VALID, "tables": {"keys_dir": "nowhere"}}, "nowhere: not a folder"),
    ({**VALID, "pit": {**VALID["pit"], "signing_key_file": "nope.pem"}}, "nope.pem: no such "
     "file"),
])
def test_bad_configs_are_refused_with_their_key(work: Path, doc: dict[str, Any],
                                                words: str) -> None:
    path = work / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    outcome = run(path)
    assert outcome.code == 2 and words in outcome.stderr, outcome.stderr


@pytest.mark.parametrize(("written", "said"), [("zh", "zh"), ("zh-Hans", "zh"), ("en", "en")])
def test_the_pit_language_is_a_bcp47_tag(work: Path, written: str, said: str) -> None:
    from station.services.pit.config import load_pit_config  # noqa: PLC0415
    path = work / "tagged.yaml"
    path.write_text(yaml.safe_dump({**VALID, "pit": {**VALID["pit"], "language": written}}))
    assert load_pit_config(path).pit.language == said


def test_seeded_mutations(work: Path) -> None:
    rng = random.Random(23)
    base = yaml.safe_dump(VALID).encode()
    others = [(harness.REPO / "config" / "pit.yaml").read_bytes(), base]
    path = work / "mutant.yaml"
    codes = set()
    for _ in range(CASES):
        path.write_bytes(mutate(rng, base, others))
        codes.add(run(path).code)
    assert codes <= {0, 2}


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 70000),
                    st.sampled_from([2**64, "", "a\0b", "x" * 300, "../x", "keys", "pit.pem",
                                     "zh", "${CREDENTIALS_DIRECTORY}/k"]),
                    st.floats(allow_nan=True), st.text(max_size=6))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=5)


@st.composite
def docs(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {s: dict(v) for s, v in VALID.items()}
    for section in draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=3)):
        for key in draw(st.lists(st.sampled_from(KEYS[section]), max_size=2)):
            doc[section][key] = draw(values)
    return doc


@settings(max_examples=examples(100), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(docs())
def test_structured_configs(work: Path, doc: dict[str, Any]) -> None:
    path = work / "doc.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    run(path)
