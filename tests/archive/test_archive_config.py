"""ARCHIVE.yaml: every refusal is exit 2 with one line naming the file and the key, never a
traceback; unknown keys are refused by name. Seeded byte mutations of valid configs and
hypothesis-built sections (CI runs a sample; ABUSE_FULL=1 the full count)."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.errors import ConfigError, StationError
from station.services.archive.config import load_archive_config
from station.services.archive.service import ArchiveService
from station.wire.signing import private_pem
from tests.abuse.scale import pick
from tests.conftest import REPO
from tests.fuzz.harness import Case, check
from tests.fuzz.mutate import mutate

SHIPPED = (REPO / "config" / "archive.yaml").read_bytes().replace(
    b"signing_key_file: null", b"signing_key_file: archive-key.pem")
VARIANTS = [
    SHIPPED,
    yaml.safe_dump({"broker": {"host": "127.0.0.1", "port": 18830, "tls": {"ca_file": "ca.pem"},
                               "credentials_file": "creds"},
                    "tables": {"keys_dir": "keys"},
                    "archive": {"dir": "journals", "name": "dc-2",
                                "signing_key_file": "archive-key.pem"}}).encode(),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    key = tmp_path / "archive-key.pem"
    key.write_bytes(private_pem(Ed25519PrivateKey.generate()))
    key.chmod(0o600)
    (tmp_path / "keys").mkdir()
    (tmp_path / "ca.pem").write_text("not a certificate\n")
    (tmp_path / "creds").write_text("user\npassword\n")
    return tmp_path


def outcome(path: Path) -> list[str]:
    """What is wrong with how the archive takes ``path``: a config that loads is built into
    the service (which must not fail but with ConfigError); one that does not is run
    through the CLI, which must exit 2 with one line naming the file."""
    try:
        config = load_archive_config(path)
    except StationError:
        return check(Case(["archive", "-c", str(path)], path, []))
    with contextlib.suppress(ConfigError):  # a key or keys folder the service cannot use
        ArchiveService(config).receiver.close()
    return []


def test_the_valid_configs_load(folder: Path) -> None:
    for n, text in enumerate(VARIANTS):
        path = folder / f"valid-{n}.yaml"
        path.write_bytes(text)
        load_archive_config(path)


@pytest.mark.parametrize(("edit", "words"), [
    ({"archive": {"dirr": "x"}}, "archive.dirr: unknown key (did you mean 'dir'?)"),
    ({"brokr": {}}, "brokr: unknown key (did you mean 'broker'?)"),
    ({"broker": {"port": 0}}, "broker.port"),
    ({"broker": {"prefix": "a/#"}}, "broker.prefix"),
    ({"tables": {"keys_dir": "nowhere"}}, "tables.keys_dir"),
    ({"archive": {"name": "a b"}}, "archive.name"),
    ({"archive": {"dir": None}}, "archive.dir"),
])
def test_a_bad_key_is_refused_by_name_with_exit_2(folder: Path, edit: dict[str, Any],
                                                  words: str) -> None:
    data = yaml.safe_load(SHIPPED)
    for section, values in edit.items():
        data.setdefault(section, {})
        data[section] = {**(data[section] or {}), **values}
    path = folder / "archive.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as info:
        load_archive_config(path)
    assert str(path) in str(info.value) and words in str(info.value)
    assert check(Case(["archive", "-c", str(path)], path, [])) == []


def test_seeded_mutations_never_crash(folder: Path) -> None:
    rng = random.Random(2024)
    failures = []
    for n in range(pick(150, 3000)):
        data = mutate(rng, rng.choice(VARIANTS), VARIANTS)
        path = folder / "archive.yaml"
        path.write_bytes(data)
        found = outcome(path)
        if found:
            failures.append((n, data[:300], found))
    assert not failures, failures[:3]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.floats(),
                    st.text(max_size=20), st.just("keys"), st.just("archive-key.pem"))
SECTION = st.dictionaries(
    st.sampled_from(["host", "port", "prefix", "client_id", "credentials_file", "tls",
                     "keepalive_s", "session_expiry_s", "keys_dir", "dir", "name",
                     "signing_key_file", "other"]),
    st.one_of(SCALARS, st.lists(SCALARS, max_size=3),
              st.dictionaries(st.sampled_from(["ca_file", "cert_file", "key_file", "x"]),
                              SCALARS, max_size=3)), max_size=6)


@settings(max_examples=pick(60, 1000), deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["broker", "tables", "archive", "pit"]),
                       st.one_of(SECTION, SCALARS), max_size=4))
def test_structured_configs_never_crash(folder: Path, data: dict[str, Any]) -> None:
    path = folder / "structured.yaml"
    path.write_text(yaml.safe_dump(data))
    assert outcome(path) == []
