"""What the client library (station.client) costs a consumer per message: ``Floor.feed``
over a real station's signed stream (``station simulate -c --messages``), with the schemas
checked and without. CPU time of this process (``time.process_time``) over every message of
the stream, median (min-max) over ``--runs``, the two cases interleaved run by run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from station.client import Floor, schema_validator  # noqa: E402
from station.wire.signing import private_pem  # noqa: E402


def stream(tmp: Path, shoes: int) -> tuple[list[tuple[str, bytes]], object]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    key = Ed25519PrivateKey.generate()
    (tmp / "signing.pem").write_bytes(private_pem(key))
    (tmp / "signing.pem").chmod(0o600)
    config = tmp / "station.yaml"
    config.write_text("table: {id: t5}\nupstream: {signing_key_file: signing.pem}\n")
    out = tmp / "messages.jsonl"
    subprocess.run([sys.executable, "-m", "station.cli", "simulate", "-c", str(config),
                    "--seed", "1", "--shoes", str(shoes), "--messages", str(out)],
                   check=True, capture_output=True)
    payloads = []
    for line in out.read_bytes().splitlines():
        topic = "status" if b'"kind":"status"' in line else "events"
        payloads.append((f"baccarat/t5/{topic}", line))
    return payloads, key.public_key()


def once(payloads: list[tuple[str, bytes]], key: object, schemas: bool) -> float:
    floor = Floor({"t5": key}, validate=schema_validator() if schemas else None)  # type: ignore[dict-item]
    start = time.process_time()
    for topic, payload in payloads:
        floor.feed(topic, payload)
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shoes", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        payloads, key = stream(Path(tmp), args.shoes)
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.runs):
        for schemas in (False, True):
            times[schemas].append(once(payloads, key, schemas))
    print(f"{len(payloads)} messages")
    for schemas, ts in times.items():
        per = [t / len(payloads) * 1e6 for t in ts]
        print(f"schemas {'on ' if schemas else 'off'}: {statistics.median(per):.1f} us/message "
              f"({min(per):.1f}-{max(per):.1f}), "
              f"{len(payloads) / statistics.median(ts):,.0f} messages/s")


if __name__ == "__main__":
    main()
