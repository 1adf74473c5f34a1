"""``simulate --messages OUT``, fuzzed: OUT names (hypothesis) and the signing key it reads.

The property is issue 7's (tests/fuzz/harness.py): exit 0 or 2, one error line naming what is
wrong, never a traceback or a hang, and an output that existed before a refusal untouched.
A run that succeeds writes a stream that holds together from outside (tests/streamkit.py).
"""

from __future__ import annotations

import atexit
import os
import random
import shutil
import tempfile
from pathlib import Path

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.wire.signing import load_private_key, private_pem
from tests.fuzz import harness
from tests.fuzz.harness import SHORT_SHOE, Case
from tests.fuzz.mutate import mutate
from tests.streamkit import consistent

CASES = int(os.environ.get("FUZZ_CASES", "560"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
EXAMPLES = max(25, CASES // 40)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

_WORK = Path(tempfile.mkdtemp(prefix="station-fuzz-messages-"))
atexit.register(shutil.rmtree, _WORK, True)
SHOE = _WORK / "shoe.txt"
shutil.copy(SHORT_SHOE, SHOE)
KEY = _WORK / "signing.pem"
CONFIG = _WORK / "station.yaml"
CONFIG.write_text(yaml.safe_dump({"table": {"id": "fuzz-1"},
                                  "upstream": {"signing_key_file": KEY.name}}))
(_WORK / "folder").mkdir()
OUT = _WORK / "messages.jsonl"
OTHER = _WORK / "rounds.jsonl"

# What OUT may be: fine, or wrong in each way an output can be wrong.
NAMES = [str(OUT), "-", "", str(_WORK / "folder"), str(_WORK / "no" / "such.jsonl"),
         str(OTHER), str(_WORK / "." / "rounds.jsonl"), str(SHOE), str(CONFIG), str(KEY),
         str(OUT / "below"), "p" * 300, str(_WORK / ("n" * 300)), "/dev/null",
         str(_WORK / "messages.jsonl ")]


def _write_key(data: bytes) -> None:
    KEY.write_bytes(data)
    KEY.chmod(0o600)


@SETTINGS
@given(name=st.sampled_from(NAMES), other=st.sampled_from([None, "--out", "--record",
                                                           "--announcements"]),
       signed=st.booleans(), other_is_stdout=st.booleans())
def test_out_names(name: str, other: str | None, signed: bool, other_is_stdout: bool) -> None:
    _write_key(private_pem(Ed25519PrivateKey.generate()))
    shutil.copy(SHORT_SHOE, SHOE)
    argv = ["simulate", "--shoe-file", str(SHOE), "--messages", name]
    if signed:
        argv += ["-c", str(CONFIG)]
    if other is not None:
        argv += [other, "-" if other_is_stdout else str(OTHER)]
    outputs = [p for p in (OUT, OTHER, SHOE, CONFIG, KEY) if str(p) in argv]
    found, outcome = harness.check_outcome(Case(argv, None, outputs))
    assert not found, f"{argv}: {found}"
    if outcome.code == 0 and name == str(OUT):
        consistent(OUT.read_bytes(), load_private_key(KEY).public_key() if signed else None)


def test_mutated_signing_keys() -> None:
    """The key file is an input of a --messages run: mutated, it is refused by name or (when
    a mutation left it a key) signs."""
    rng = random.Random(f"{SEED}:messages-key")
    corpus = [private_pem(Ed25519PrivateKey.generate()) for _ in range(3)]
    failures = []
    for n in range(max(20, CASES // 8)):
        case_seed = rng.randrange(2**32)
        crng = random.Random(case_seed)
        _write_key(mutate(crng, crng.choice(corpus), corpus))
        case = Case(["simulate", "-c", str(CONFIG), "--shoe-file", str(SHOE), "--messages",
                     str(OUT)], KEY, [OUT])
        found = harness.check(case, subprocess_=n == 0)
        if found:
            failures.append(f"key case seed {case_seed}: {found}")
    assert not failures, "\n\n".join(failures[:5]) + f"\n({len(failures)} failing cases)"
