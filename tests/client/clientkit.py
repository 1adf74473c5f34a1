"""A real station's signed stream for the client tests: ``station simulate --messages`` on a
config with faults (pauses, resumes), a dealer's badge and a signing key."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import orjson
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.signing import public_pem
from tests.stationkit import write_key

TABLE = "t5"
FAULTS = [{"kind": "garbled", "card": 15}, {"kind": "not_due", "after_round": 3},
          {"kind": "lost", "card": 25, "seconds": 0.05}]


@dataclass(frozen=True)
class Stream:
    payloads: list[bytes]
    key: Ed25519PrivateKey
    keys_dir: Path

    def topic(self, payload: bytes) -> str:
        kind = orjson.loads(payload)["kind"]
        return f"baccarat/{TABLE}/{'status' if kind == 'status' else 'events'}"


def station_config(tmp: Path, key: Path) -> Path:
    cfg = {
        "table": {"id": TABLE},
        "simulation": {"seed": 5, "shoes": 1, "supervisor": "resume",
                       "dealer_badge": "DEALER-D042"},
        "display": {"type": "none"},
        "upstream": {"type": "file", "path": str(tmp / "up.jsonl"),
                     "signing_key_file": str(key)},
    }
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def simulated_stream(tmp: Path) -> Stream:
    key_file, key = write_key(tmp)
    config = station_config(tmp, key_file)
    faults = tmp / "faults.yaml"
    faults.write_text(yaml.safe_dump(FAULTS))
    out = tmp / "messages.jsonl"
    done = subprocess.run([sys.executable, "-m", "station.cli", "simulate", "-c", str(config),
                           "--seed", "5", "--shoes", "1", "--faults", str(faults),
                           "--supervisor", "resume", "--messages", str(out)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    keys = tmp / "keys"
    keys.mkdir()
    (keys / f"{TABLE}.pub.pem").write_bytes(public_pem(key.public_key()))
    return Stream(out.read_bytes().splitlines(), key, keys)
