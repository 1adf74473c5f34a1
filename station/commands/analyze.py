"""``station analyze``: exact probability, house edge and return of every bet of a paytable.

The only part of the analysis that touches files or the terminal; the figures come from the
pure ``station.game.analysis`` package.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from station.game.limits import DECKS_MAX, DECKS_MIN, short

if TYPE_CHECKING:  # imported by run(): `station --help` and `analyze --help` start fast
    from station.game.analysis import PaytableAnalysis
    from station.settings.paytable import Paytable

# Issue 3: a live table's bet returning less than 70% or more than 100% is almost surely a
# typo in a payout; say so before the table opens.
RTP_LOW: Final = 0.70
RTP_HIGH: Final = 1.00
EXIT_IMPLAUSIBLE: Final = 1


def _decks(text: str) -> int:
    """``--decks``: bounded as ``table.decks`` is (station.game.limits)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{short(text)} is not a number of decks") from None
    if not DECKS_MIN <= n <= DECKS_MAX:
        raise argparse.ArgumentTypeError(
            f"{n}: a shoe has {DECKS_MIN} to {DECKS_MAX} decks")
    return n


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="exact house edge and return of every bet of a paytable",
        description=(
            "Enumerate the shoe combinatorially (not Monte Carlo) and print every bet's win "
            "probability, house edge and return to player, best return first. House edge is "
            "minus the expected net result per unit staked, every round counted (a push counts "
            "0). Bets returning under 70% or over 100% are reported on stderr."
        ),
    )
    parser.add_argument("paytable", type=Path, metavar="PAYTABLE", help="paytable YAML file")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="apply this variant of the file (repeatable), e.g. no_commission",
    )
    parser.add_argument("--decks", type=_decks, default=8, help="decks in the shoe (default 8)")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"bets": {KEY: {"house_edge", "rtp", "win_probability"}}, "decks": N}',
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when a bet's return is implausible"
    )
    parser.add_argument(
        "--remaining",
        type=Path,
        metavar="FILE",
        help="value the bets for the cards left: FILE is a shoe file of the cards that have "
        "left the shoe (the rest of a full --decks shoe remains) or a JSON object of the "
        'cards remaining, {"AS": 31, "TD": 32, ...} (a code absent counts 0)',
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from station.game.analysis import analyze  # noqa: PLC0415 - see the imports
    from station.settings.paytable import load_paytable  # noqa: PLC0415

    paytable = load_paytable(args.paytable, args.variant)
    left = None
    if args.remaining is None:
        result = analyze(paytable, args.decks)
    else:
        from station.game.analysis.composition import CompositionAnalyzer  # noqa: PLC0415
        from station.settings.shoefile import read_remaining  # noqa: PLC0415

        counts, how = read_remaining(args.remaining, args.decks)
        json_file = how == "cards remaining"
        result = CompositionAnalyzer(paytable).analyze(counts, 0 if json_file else args.decks)
        left = (sum(counts), f"{args.remaining}: {how}")
    if args.json:
        doc = as_json(result)
        if left is not None:
            doc["cards_left"] = left[0]
            if result.decks == 0:
                doc["decks"] = None
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print(as_table(paytable, result, left))
    warnings = implausible(paytable, result)
    for line in warnings:
        print(f"station analyze: warning: {line}", file=sys.stderr)
    return EXIT_IMPLAUSIBLE if warnings and args.strict else 0


def as_json(result: PaytableAnalysis) -> dict[str, Any]:
    """The ``--json`` document; edges and returns as fractions (0.010579, not 1.06)."""
    return {
        "bets": {
            b.key: {
                "house_edge": float(b.house_edge),
                "rtp": float(b.rtp),
                "win_probability": float(b.win),
            }
            for b in result.bets
        },
        "decks": result.decks,
    }


def as_table(paytable: Paytable, result: PaytableAnalysis,
             left: tuple[int, str] | None = None) -> str:
    """The human table, best return first; ``left``: (cards left, where they come from)
    for ``--remaining``."""
    cutoffs = {b.key: b.cutoff_round for b in paytable.bets}
    shoe = f"{result.decks} decks" if left is None else f"{left[0]} cards left ({left[1]})"
    lines = [
        f"{result.paytable} ({paytable.path}), {shoe}, exact",
        f"{'return':>9} {'edge':>9} {'win':>9} {'push':>9} {'cut-off':>7}  bet",
    ]
    for b in sorted(result.bets, key=lambda b: (-b.rtp, b.key)):
        cut = cutoffs[b.key]
        lines.append(
            f"{float(b.rtp):9.4%} {float(b.house_edge):9.4%} {float(b.win):9.6f} "
            f"{float(b.push):9.6f} {'-' if cut is None else cut:>7}  {b.key} {b.label}"
        )
    return "\n".join(lines)


def implausible(paytable: Paytable, result: PaytableAnalysis) -> list[str]:
    """One line per bet whose return is below ``RTP_LOW`` or above ``RTP_HIGH``."""
    out = []
    for b in result.bets:
        rtp = float(b.rtp)
        if rtp < RTP_LOW or rtp > RTP_HIGH:
            out.append(
                f"{paytable.path}: bet {b.key!r} returns {rtp:.2%}, outside the "
                f"{RTP_LOW:.0%}-{RTP_HIGH:.0%} plausible for a live table; check its 'pays'"
            )
    return out
