"""Fixtures for the upstream tests: a real broker, a signer, leak checks for our threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.signing import Signer


@pytest.fixture(autouse=True)
def no_leaked_upstream_threads() -> Iterator[None]:
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [t.name for t in threading.enumerate()
              if t.ident not in before and t.is_alive()
              and t.name.startswith(("upstream-", "paho-"))]
    assert not leaked, f"upstream threads left running (call stop()): {leaked}"


@pytest.fixture
def signer() -> Signer:
    return Signer(Ed25519PrivateKey.generate())
