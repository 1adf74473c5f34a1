"""The fuzz suite of issue 7: every input the station reads, mutated; the CLI never crashes.

Budget: ``FUZZ_CASES`` seeded mutation cases in all (default 560: a few seconds in CI),
spread over the eight input kinds, ``FUZZ_SEED`` picks the run (default 0, so CI is
repeatable), ``FUZZ_SUBPROCESS`` cases per kind also run in a real subprocess under 256 MB
and 2 s of CPU time. A failing input is saved under ``FUZZ_FINDINGS`` (default: pytest's tmp folder)
and named in the failure with its seed. docs/testing.md has the long-run command.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.simulated import random_shoes
from tests.fuzz import harness
from tests.fuzz.harness import REPO, Case
from tests.fuzz.mutate import mutate

CASES = int(os.environ.get("FUZZ_CASES", "560"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
SUBPROCESS = int(os.environ.get("FUZZ_SUBPROCESS", "1"))
KINDS = ("shoe", "faults", "config", "paytable", "recording", "results", "sequence",
         "remaining")
PER_KIND = max(1, CASES // len(KINDS))

FAULTS = [
    b"- {kind: garbled, card: 6}\n- {kind: double, card: 9}\n",
    b"- {kind: lost, card: 7, seconds: 8}\n- {kind: delay, card: 10, seconds: 5}\n",
    b"- kind: not_due\n  after_round: 2\n- kind: cut\n  card: 12\n  shoe: 1\n",
]
CONFIGS = [
    b"table: {id: fuzz-1, decks: 8, paytable: paytables/seed000.yaml}\n"
    b"reader: {dedupe_ms: 150}\nsimulation: {seed: 3, shoes: 2, pace: {card_s: 0.5}}\n",
    b"table:\n  decks: 6\n  cut_card_between_rounds: close_shoe\nsimulation:\n  faults:\n"
    b"    - {kind: garbled, card: 6}\nresults: {path: '-', announcements_path: null}\n",
    b"journal: {path: var/j.sqlite3}\nupstream:\n  type: mqtt\n  host: 127.0.0.1\n"
    b"  port: 1883\n  prefix: baccarat/eu\n  tls: {ca_file: ca.pem}\n"
    b"  command_keys: {pit: pit.pub.pem}\n  command_window_s: 30\n  max_inflight: 50\n"
    b"reader: {type: serial, port: /dev/ttyUSB0, baud: 9600, framing: stx_etx,\n"
    b"  code_format: '(?P<rank>[A2-9TJQK]|10)(?P<suit>[SHDC])', cut_code: CUTCARD}\n",
    b"reader: {type: camera, source: /dev/video0, decoder: pyzbar, roi: [400, 200, 480, 240],\n"
    b"  agree_frames: 3, cut_code: CUT}\nrecording: {dir: var/rec, raw: true}\n",
]

REMAINING_JSON = (b'{"AS": 7, "2H": 8, "3D": 6, "4C": 0, "TD": 8, "10S": 5, "KH": 8, "QC": 3, '
                  b'"JD": 8, "9S": 2, "8H": 8, "7D": 8, "6C": 1, "5S": 8}')


def _corpus(tmp: Path) -> dict[str, list[bytes]]:
    shoe = next(random_shoes(7, 1, 8))
    configs = [(REPO / "config" / "station.yaml").read_bytes(), *CONFIGS,
               # The table modes' configs (tests/recordings/README.md).
               *(p.read_bytes() for p in sorted((REPO / "tests" / "recordings")
                                                .glob("modes_*.config.yaml")))]
    recordings = sorted((REPO / "tests" / "recordings").glob("*.jsonl"))
    return {
        "shoe": [(REPO / "tests" / "shoes" / n).read_bytes()
                 for n in ("short.txt", "cut_in_burn.txt")] + ["\n".join(shoe).encode()],
        "faults": FAULTS,
        "config": configs,
        "paytable": [(REPO / "config" / "paytables" / n).read_bytes()
                     for n in ("seed000.yaml", "seed003.yaml")],
        "recording": [p.read_bytes() for p in recordings
                      if not p.name.endswith(".results.jsonl")],
        "results": [p.read_bytes() for p in recordings if p.name.endswith(".results.jsonl")],
        # analyze --remaining (issue 25): cards out of the shoe, and cards left as JSON.
        "remaining": ["\n".join(shoe[:60]).encode(), REMAINING_JSON],
    }


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(REPO / "config" / "paytables", tmp / "paytables")
    return tmp


def _findings(workdir: Path) -> Path:
    folder = Path(os.environ.get("FUZZ_FINDINGS", str(workdir / "findings")))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _case_for(kind: str, path: Path, out: Path, rng: random.Random) -> Case:
    builders: dict[str, Callable[[], Case]] = {
        "shoe": lambda: harness.shoe_case(path, out),
        "faults": lambda: harness.faults_case(path, out),
        "config": lambda: harness.config_case(path, out),
        # analyze enumerates every bet exactly (a second for seed 003): a quarter of the cases
        "paytable": lambda: harness.paytable_case(path, out, analyze=rng.random() < 0.25),
        "recording": lambda: harness.recording_case(path, out),
        "results": lambda: harness.results_case(path, out),
        "remaining": lambda: harness.remaining_case(path),
    }
    return builders[kind]()


SEQUENCE_ALPHABET = "BPTbpt \t\nx0é\u200b-"


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_inputs_never_crash(kind: str, workdir: Path) -> None:
    rng = random.Random(f"{SEED}:{kind}")
    corpus = _corpus(workdir).get(kind, [])
    failures: list[str] = []
    for n in range(PER_KIND):
        case_seed = rng.randrange(2**32)
        crng = random.Random(case_seed)
        out = workdir / f"{kind}.out"
        if kind == "sequence":
            letters = "".join(crng.choice(SEQUENCE_ALPHABET)
                              for _ in range(crng.choice((0, 1, 5, 80, 5000))))
            case = harness.sequence_case(letters or "B")
            data = letters.encode()
        else:
            data = mutate(crng, crng.choice(corpus), corpus)
            path = workdir / f"{kind}.input"
            path.write_bytes(data)
            case = _case_for(kind, path, out, crng)
        found = harness.check(case, subprocess_=n < SUBPROCESS)
        if found:
            saved = _findings(workdir) / f"{kind}-{SEED}-{case_seed}.bin"
            saved.write_bytes(data)
            failures.append(f"{kind} case seed {case_seed} ({saved}): {case.argv}: {found}")
    assert not failures, "\n\n".join(failures[:5]) + f"\n({len(failures)} failing cases)"
