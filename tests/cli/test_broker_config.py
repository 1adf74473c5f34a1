"""``station broker-config`` (issue 32): the shipped config/studio.yaml makes a profile; each
mistake in a studio config is refused with exit 2, one line naming the key and the fix, and
nothing written; seeded mutations and hypothesis-made values never do anything else."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.cli import main
from tests.brokerkit import CA
from tests.conftest import REPO
from tests.sampling import count, examples

EXAMPLE = REPO / "config" / "studio.yaml"


def studio_folder(tmp: Path) -> Path:
    """The shipped example in ``tmp`` with the certificates it names."""
    tmp.mkdir(parents=True, exist_ok=True)
    ca = CA(tmp / "certs")
    ca.issue("broker", server=True)
    shutil.copy(EXAMPLE, tmp / "studio.yaml")
    return tmp / "studio.yaml"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_shipped_example_makes_a_profile(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = studio_folder(tmp_path / "s")
    code, out, err = run(["broker-config", "-c", str(path), "--out", str(tmp_path / "o")],
                         capsys)
    assert code == 0, err
    conf = (tmp_path / "o" / "mosquitto.conf").read_text()
    acl = (tmp_path / "o" / "acl").read_text()
    for line in ("allow_anonymous false", "listener 8883 0.0.0.0", "require_certificate true",
                 "use_identity_as_username true", f"acl_file {tmp_path / 'o' / 'acl'}",
                 f"cafile {tmp_path / 's' / 'certs' / 'ca.pem'}"):
        assert line in conf.splitlines(), line
    blocks = [b.splitlines() for b in acl.split("\n\n") if "\nuser " in f"\n{b}"]
    users = {next(x for x in b if x.startswith("user ")): [x for x in b if
                                                          x.startswith("topic ")]
             for b in blocks}
    assert users["user station-t1"] == ["topic write baccarat/t1/events",
                                        "topic write baccarat/t1/status",
                                        "topic write baccarat/t1/journal",
                                        "topic read baccarat/t1/commands"]
    assert not any("journal" in t for t in users["user game-gs1"])
    assert set(users) == {"user station-t1", "user station-t2", "user pit-pit",
                          "user archive-dc1", "user game-gs1"}
    assert "pattern" not in acl and not acl.startswith("topic")  # nothing for anyone else
    assert "station-t1" in out and "mosquitto -c" in out


def _mistakes(tmp: Path) -> dict[str, tuple[dict[str, Any], str]]:
    return {
        "no tables": ({"tables": []}, "tables"),
        "a bad table id": ({"tables": ["t 1"]}, "tables[0]"),
        "a table twice": ({"tables": ["t1", "t1"]}, "named twice"),
        "an unknown key": ({"tablez": ["t1"]}, "did you mean 'tables'"),
        "a bad identity": ({"broker": {"identity": "token"}}, "broker.identity"),
        "a password studio without its file": ({"broker": {"identity": "password"}},
                                               "broker.password_file"),
        "a missing CA": ({"broker": {"ca_file": "certs/none.pem"}}, "broker.ca_file"),
        "a bad prefix": ({"broker": {"prefix": "a/#"}}, "broker.prefix"),
        "a bridge of nothing": ({"bridges": [{"name": "dc", "address": "h",
                                              "ca_file": "certs/ca.pem",
                                              "cert_file": "certs/ca.pem",
                                              "key_file": "certs/ca.pem"}]}, "bridges[0].out"),
        "a bad leaf": ({"bridged_from": [{"name": "dc", "out": ["#"]}]},
                       "bridged_from[0].out"),
    }


@pytest.mark.parametrize("name", list(_mistakes(Path())))
def test_a_mistake_is_refused_with_exit_2_naming_the_key_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = studio_folder(tmp_path / "s")
    change, words = _mistakes(tmp_path)[name]
    data = yaml.safe_load(path.read_text())
    for key, value in change.items():
        if isinstance(value, dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(["broker-config", "-c", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in err, err
    assert not (tmp_path / "o").exists()


def _check_outcome(tmp: Path, text: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp / "studio.yaml"
    path.write_bytes(text)
    out = tmp / "o"
    shutil.rmtree(out, ignore_errors=True)
    code, _, err = run(["broker-config", "-c", str(path), "--out", str(out)], capsys)
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
        assert not out.exists()


def test_seeded_mutations_of_the_example_exit_0_or_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = studio_folder(tmp_path)
    original = path.read_bytes()
    rng = random.Random(32)
    for _ in range(count(150)):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            match rng.randrange(3):
                case 0:
                    data[at] = rng.randrange(256)
                case 1:
                    del data[at:at + rng.randint(1, 12)]
                case _:
                    data[at:at] = bytes(rng.choice([b": ", b"\n  ", b"- ", b"[", b"{", b"\x00",
                                                    b"99999999", b"null", b"~"]))
        _check_outcome(tmp_path, bytes(data), capsys)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 70000),
                    st.text(max_size=8), st.sampled_from(["certs/ca.pem", "x" * 300, "a/b",
                                                          "password", "certificate", "#"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=5)
KEYS = st.sampled_from(["broker.listen", "broker.port", "broker.prefix", "broker.identity",
                        "broker.ca_file", "broker.password_file", "tables", "pits",
                        "archives", "game_servers", "bridges", "bridged_from", "broker"])


@settings(max_examples=examples(60), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(KEYS, VALUES), min_size=1, max_size=3))
def test_odd_values_at_every_key_exit_0_or_2(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        changes: list[tuple[str, Any]]) -> None:
    tmp = tmp_path_factory.mktemp("studio")
    path = studio_folder(tmp)
    data = yaml.safe_load(path.read_text())
    for key, value in changes:
        if "." in key:
            section, name = key.split(".")
            if isinstance(data.get(section), dict):
                data[section][name] = value
        else:
            data[key] = value
    _check_outcome(tmp, yaml.safe_dump(data).encode(), capsys)


def test_a_studio_of_more_parties_than_one_broker_takes_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = studio_folder(tmp_path / "s")
    data = yaml.safe_load(path.read_text())
    data["tables"] = [f"t{n}" for n in range(2000)]
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(["broker-config", "-c", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "at most 2000" in err and not (tmp_path / "o").exists(), err
