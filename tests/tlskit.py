"""A test CA and a server certificate for 127.0.0.1, localhost and a DNS name, made with
``station ca`` (station.wire.pki), for the pages over TLS."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from station.wire import pki

DNS_NAME = "pit.studio.test"


@dataclass(frozen=True, slots=True)
class TestCa:
    ca: Path  # what a client trusts
    cert: Path  # the server's chain
    key: Path

    def tls_yaml(self) -> str:
        return f"{{cert_file: {self.cert}, key_file: {self.key}}}"


def make_ca(folder: Path, name: str = "server") -> TestCa:
    now = dt.datetime.now(dt.UTC)
    made = pki.init_ca(folder, "test CA", now)
    leaf = pki.issue(folder, name, ["127.0.0.1", "localhost", DNS_NAME], client=False, now=now)
    return TestCa(made.cert, leaf.cert, leaf.key)
