"""What ``station simulate --messages`` costs: rounds/s by CPU without it, with it unsigned,
and with it signed (a ``-c`` config naming a key), on the same seeded shoes.

Each figure is CPU time (user + sys) of a child process, start-up subtracted by timing each
command on 1 shoe and on ``--shoes`` shoes (rounds/s = extra rounds / extra CPU), as
``bench_speed.py`` does; the three cases are interleaved run by run so that a slow spell of
a shared machine hits each alike. Median (min-max) over ``--runs``. ``--before DIR`` adds
the plain simulate of another checkout (the commit before ``--messages``), interleaved too,
so the cost of the option to a simulate that does not ask for it is measured, not guessed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench_speed import child, lines, spread

ROOT = Path(__file__).resolve().parent.parent


def _config(tmp: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (  # noqa: PLC0415
        Ed25519PrivateKey,
    )

    from station.wire.signing import private_pem  # noqa: PLC0415

    key = tmp / "signing.pem"
    key.write_bytes(private_pem(Ed25519PrivateKey.generate()))
    key.chmod(0o600)
    paytable = ROOT / "config" / "paytables" / "seed000.yaml"
    config = tmp / "station.yaml"
    config.write_text(f"table: {{paytable: {paytable}}}\n"
                      "upstream: {signing_key_file: signing.pem}\n")
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shoes", type=int, default=100)
    parser.add_argument("--before", type=Path,
                        help="also time this checkout's plain simulate (e.g. the main branch)")
    args = parser.parse_args()
    py = [sys.executable, "-m", "station.cli", "simulate", "--seed", "1"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}; {args.runs} run(s) of {args.shoes} shoes; CPU time")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        config = _config(tmp)
        messages = tmp / "messages.jsonl"
        plain: Callable[[int, Path], list[str]] = lambda n, out: [  # noqa: E731
            *py, "--shoes", str(n), "--out", str(out)]
        trees = {"simulate --out": ROOT}
        cases: dict[str, Callable[[int, Path], list[str]]] = {
            "simulate --out": plain,
            "simulate --out --messages (unsigned)": lambda n, out: [
                *py, "--shoes", str(n), "--out", str(out), "--messages", str(messages)],
            "simulate -c --out --messages (signed)": lambda n, out: [
                *py, "-c", str(config), "--shoes", str(n), "--out", str(out), "--messages",
                str(messages)],
        }
        if args.before is not None:
            before = f"simulate --out, {args.before.name} (before)"
            cases = {before: plain, **cases}
            trees[before] = args.before.resolve()
        rates: dict[str, list[float]] = {k: [] for k in cases}
        per_message: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(args.runs):
            for label, argv in cases.items():
                tree = trees.get(label, ROOT)
                cpu1, _ = child(argv(1, tmp / "o1"), tree)
                sent1 = lines(messages) if messages.exists() else 0
                cpun, _ = child(argv(args.shoes, tmp / "on"), tree)
                sentn = lines(messages) if messages.exists() else 0
                cpu = max(cpun - cpu1, 1e-9)
                rates[label].append((lines(tmp / "on") - lines(tmp / "o1")) / cpu)
                if sentn > sent1:
                    per_message[label].append(cpu / (sentn - sent1) * 1e6)
                messages.unlink(missing_ok=True)
        rounds = lines(tmp / "on")
    print(f"rounds/s by CPU, start-up subtracted ({args.shoes} shoes, seed 1, {rounds} rounds):")
    for label, values in rates.items():
        extra = (f"; {spread(per_message[label], '{:.1f}')} us of CPU per message, all "
                 "included" if per_message[label] else "")
        print(f"  {label}: {spread(values)}{extra}")
    if args.before is not None:
        first = next(iter(rates))
        ratio = [a / b for a, b in zip(rates["simulate --out"], rates[first], strict=True)]
        print(f"  plain simulate, this checkout / before, run by run: {spread(ratio, '{:.3f}')}")


if __name__ == "__main__":
    main()
