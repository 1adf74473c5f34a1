"""check-config on mutated configs: exit 0, 1 (a device or place it cannot use, named in a
FAIL line) or 2 (one error line naming the config file), never a traceback or a hang, and
nothing on disk touched. Seeded byte mutations of the service skeleton, plus structured
configs of the new keys (metrics.port, ${CREDENTIALS_DIRECTORY} secrets)."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.errors import StationError
from station.kinds.outlets.mqtt import MqttSettings
from station.live.config import load_config
from tests.conftest import REPO
from tests.fuzz import harness
from tests.fuzz.mutate import mutate

CASES = int(os.environ.get("FUZZ_CASES", "560")) // 4
SEED = int(os.environ.get("FUZZ_SEED", "0"))
SKELETON = (REPO / "systemd" / "station.yaml").read_bytes()
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def reaches_out(path: Path) -> bool:
    """Whether a config that loads would make check-config use the network beyond this
    machine (a broker or a socket:// port elsewhere): tests stay on loopback."""
    try:
        config = load_config(path)
    except StationError:
        return False
    up = config.upstream.kind
    if isinstance(up, MqttSettings) and up.link.host not in LOOPBACK:
        return True
    # The chosen kinds' ports: check-config opens only theirs.
    ports = (getattr(config.reader.kind, "port", None), getattr(config.cut_card.kind, "port", None))
    return any(p is not None and "://" in p and not p.startswith("loop://") for p in ports)


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*")}


def check_case(folder: Path, text: bytes) -> str:
    """What is wrong with check-config on ``text`` (empty when the property holds)."""
    path = folder / "station.yaml"
    path.write_bytes(text)
    if reaches_out(path):
        return ""
    before = tree(folder)
    out = harness.run_inprocess(["check-config", "-c", str(path)], limit_s=8.0)
    if out.crash:
        return f"crash: {out.crash[-1500:]}"
    if tree(folder) != before:
        return "a file was touched"
    if out.code == 2:
        lines = out.stderr.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("station check-config: error: "):
            return f"exit 2 without one error line: {out.stderr[-500:]!r}"
        if str(path) not in lines[0] and "station.yaml" not in lines[0]:
            return f"the error does not name the file: {lines[0]!r}"
    elif out.code == 1:
        if "\nFAIL " not in "\n" + out.stdout:
            return f"exit 1 without a FAIL line: {out.stdout[-500:]!r}"
    elif out.code != 0:
        return f"exit {out.code}"
    if "Traceback" in out.stdout + out.stderr:
        return "a traceback was printed"
    return ""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "config" / "paytables", tmp_path / "paytables")
    return tmp_path


def test_the_skeleton_itself_checks_clean(folder: Path) -> None:
    (folder / "station.yaml").write_bytes(SKELETON.replace(b"port: 9464", b"port: 0"))
    out = harness.run_inprocess(["check-config", "-c", str(folder / "station.yaml")])
    assert out.code == 0, out.stdout + out.stderr


@pytest.mark.parametrize("batch", range(4))
def test_mutated_skeletons(folder: Path, batch: int) -> None:
    rng = random.Random(f"{SEED}-check-config-{batch}")
    base = SKELETON.replace(b"port: 9464", b"port: 0")  # never a port another test holds
    others = [(REPO / "config" / "station.yaml").read_bytes()]
    found = []
    for n in range(max(10, CASES // 4)):
        problem = check_case(folder, mutate(rng, base, others))
        if problem:
            found.append(f"case {batch}/{n}: {problem}")
    assert not found, found[:3]


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 70000), st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["${CREDENTIALS_DIRECTORY}/signing-key", "${CREDENTIALS_DIRECTORY}/",
                     "${CREDENTIALS_DIRECTORY}/../x", "${CREDENTIALS_DIRECTORY}", "/dev/null",
                     "loop://", "serial", "modem_pin", "file", "-"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(),
                                                         max_size=2),
)
KEYS = {"metrics": ["port", "prot"], "upstream": ["signing_key_file", "credentials_file",
                                                  "type", "path"],
        "reader": ["type", "port"], "cut_card": ["type", "port", "pin"],
        "journal": ["path"]}


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(SKELETON)
    doc["metrics"] = {"port": 0}
    for section in draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=3)):
        doc[section] = dict(doc.get(section) or {})
        for key in draw(st.lists(st.sampled_from(KEYS[section]), max_size=2)):
            doc[section][key] = draw(VALUES)
    return doc


@settings(max_examples=max(20, CASES // 4), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(doc=configs())
def test_structured_service_configs(folder: Path, doc: dict[str, Any]) -> None:
    text = yaml.safe_dump(doc, allow_unicode=True).encode()
    assert check_case(folder, text) == ""
