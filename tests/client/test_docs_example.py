"""docs/upstream.md's "Consuming the stream" example, run as a game server's developer would
copy it, over a real station's stream: every round settled once, a forgery alarmed."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.client.clientkit import simulated_stream
from tests.contract import docs


def test_the_docs_example_settles_every_round_once_and_alarms_a_forgery(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "station").mkdir()
    stream = simulated_stream(tmp_path / "station")
    shutil.copytree(stream.keys_dir, tmp_path / "keys")
    monkeypatch.chdir(tmp_path)
    example = docs.snippet("Consuming the stream")
    rounds = [orjson.loads(p) for p in stream.payloads if orjson.loads(p)["kind"] == "round"]
    forged = orjson.dumps(rounds[3] | {"winner": "tie" if rounds[3]["winner"] != "tie"
                                       else "banker"})
    for p in stream.payloads[:100]:
        example["handle"](stream.topic(p), p)
    example["handle"](stream.topic(forged), forged)
    for p in stream.payloads:  # and everything again: a reconnect's re-delivery
        example["handle"](stream.topic(p), p)
    assert example["settled"] == [(r["table"], r["key"], r["status"], r["winner"])
                                  for r in rounds]
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("ALARM BadSignature(")
