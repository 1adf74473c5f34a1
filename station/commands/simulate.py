"""``station simulate``: play shoes through the full machine as fast as possible."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from drivers.events import InputEvent
from drivers.simulated import SUPERVISOR_POLICIES, Fault, SimulatedDealer, random_shoes
from station.errors import InputFileError
from station.game.analysis import analyze
from station.game.guardstats import GuardStats
from station.game.limits import GUARD_MODES, SHOES_MAX
from station.game.stats import BetStats, format_summary
from station.kinds.displays.lines import ConsoleDisplay
from station.live.config import StationConfig, load_config, load_faults
from station.settings.outfiles import Outputs
from station.settings.paytable import Paytable, load_paytable
from station.settings.shoefile import read_shoe_file
from station.table.outputs import Announced, Output, Published
from station.table.simulation import SimulationEnd, simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.upstream.sinks import ResultsWriter
from station.wire.recording import Recorder

if TYPE_CHECKING:
    from station.upstream.stream import MessageStream
    from station.wire.signing import Signer

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "simulate", help="play shoes as fast as possible",
        description="Deal simulated shoes through the full dealing machine. Results are JSON "
        "Lines, one round each; a summary goes to stderr.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--shoes", type=int, default=None, help="how many shuffled shoes (default 1)")
    src.add_argument("--shoe-file", type=Path, action="append",
                     help="deal exactly these cards (see README); repeat it to deal several "
                     "shoes in order")
    p.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    p.add_argument("--out", help="write rounds as JSON Lines to FILE, or - for stdout")
    p.add_argument("--record", type=Path, help="write every input event to FILE for replay")
    p.add_argument("--announcements", metavar="FILE",
                   help="write each betting-open announcement (with its open bets) and each shoe "
                   "report to FILE")
    p.add_argument("--messages", metavar="FILE",
                   help="write every upstream message, in order, as the file upstream does "
                   "(signed when the -c config names a signing key), to FILE or - for stdout")
    p.add_argument("--faults", type=Path, help="YAML list of faults to inject (see README)")
    p.add_argument("--supervisor", choices=SUPERVISOR_POLICIES, default="none",
                   help="what the simulated supervisor does on a pause (default: none, "
                   "the simulation stops paused)")
    p.add_argument("--display", action="store_true", help="print the dealer display to stderr")
    p.add_argument("-c", "--config", type=Path,
                   help="take the table (rules and paytable) from this station YAML")
    bets = p.add_mutually_exclusive_group()
    bets.add_argument("--paytable", type=Path,
                      help=f"settle every round with this paytable (default: {DEFAULT_PAYTABLE}, "
                      "or the config's)")
    bets.add_argument("--no-bets", action="store_true",
                      help="publish rounds without settling bets")
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="a variant of the paytable (repeatable), e.g. no_commission")
    p.add_argument("--stats", action="store_true",
                   help="print each bet's observed return, with a confidence interval, next "
                   "to its exact return, and what the bet guard closed (stderr)")
    p.add_argument("--progress", action="store_true",
                   help="show a progress bar on stderr (shown anyway when stderr is a "
                   "terminal)")
    p.add_argument("--bet-guard", choices=GUARD_MODES, default=None,
                   help="the bet guard for this run, in place of table.bet_guard (off "
                   "without -c): off, observe or close")
    p.set_defaults(func=run)


DEFAULT_PAYTABLE = "config/paytables/seed000.yaml"


def _table(args: argparse.Namespace, config: StationConfig | None
           ) -> tuple[TableRules, Paytable | None]:
    rules = config.rules if config is not None else TableRules()
    if args.no_bets:
        if args.stats:
            raise InputFileError("--stats needs bets: drop --no-bets")
        return rules, None
    if args.paytable is not None:
        return rules, load_paytable(args.paytable, args.variant)
    if config is not None and config.paytable is not None and not args.variant:
        return rules, config.paytable
    if config is not None and config.paytable is not None:
        return rules, load_paytable(config.paytable.path, args.variant)
    return rules, load_paytable(REPO_ROOT / DEFAULT_PAYTABLE, args.variant)


def _dealers(args: argparse.Namespace) -> dict[str, Any]:
    """The simulated dealers' badges of a ``-c`` config (``simulation.dealer_badge``...)."""
    if not args.config:
        return {}
    sim = load_config(args.config).simulation
    return {"badges": sim.dealer_badges, "change_every": sim.dealer_change_shoes,
            "player": sim.players}


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config) if args.config else None
    rules, paytable = _table(args, config)
    if args.bet_guard is not None:
        rules = replace(rules, bet_guard=args.bet_guard)
    if args.shoes is not None and args.shoes < 1:
        raise InputFileError(f"--shoes {args.shoes}: play at least 1 shoe")
    if args.shoes is not None and args.shoes > SHOES_MAX:
        raise InputFileError(f"--shoes {args.shoes}: at most {SHOES_MAX:,} shoes in one run")
    if args.shoe_file is not None:
        shoes = iter([read_shoe_file(f, rules.decks) for f in args.shoe_file])
        what = ", ".join(map(str, args.shoe_file))
    else:
        count = args.shoes or 1
        shoes = random_shoes(args.seed, count, rules.decks)
        what = f"{count} shoe(s), seed {args.seed}"
    faults: tuple[Fault, ...] = ()
    if args.faults is not None:
        faults = load_faults(args.faults, decks=rules.decks,
                             shoes=len(args.shoe_file) if args.shoe_file is not None
                             else args.shoes or 1)
    dealer = SimulatedDealer(shoes, faults, supervisor=args.supervisor, **_dealers(args))
    station = Station(rules, paytable, prompts=args.display)
    # The tables the rounds use (settlement's, the bet guard's) before the clock starts: the
    # rate is the rounds', not the one-off set-up's.
    station.prepare()
    stats = BetStats() if args.stats else None
    guard_stats = GuardStats() if args.stats else None
    # Every output is checked against the inputs and the other outputs before anything is
    # written, and replaced only when the simulation finishes (station.settings.outfiles).
    signer: Signer | None = None
    if args.messages is not None:
        from station.upstream.stream import signer_of  # noqa: PLC0415 - only --messages signs

        signer = signer_of(config)
    outs = Outputs([*(args.shoe_file or ()), args.faults, args.config, args.paytable,
                    paytable.path if paytable is not None else None,
                    config.upstream.signing_key_file if signer is not None and config else None])
    outs.claim("--out", args.out)
    outs.claim("--announcements", args.announcements)
    outs.claim("--record", args.record)
    outs.claim("--messages", args.messages)
    messages = None
    with outs:
        out_stream, announce_stream, record_stream = (
            outs["--out"], outs["--announcements"], outs["--record"])
        sink = ResultsWriter(out_stream) if out_stream is not None else None
        announce = ResultsWriter(announce_stream) if announce_stream is not None else None
        display = ConsoleDisplay(sys.stderr) if args.display else None
        record = None
        if record_stream is not None:
            record = Recorder(record_stream, rules, paytable).write

        # Imported here: `simulate --help` loads its own module alone (tests/cli/test_startup.py).
        from station.commands.progress import Progress  # noqa: PLC0415

        progress = (Progress(sys.stderr, len(args.shoe_file) if args.shoe_file is not None
                             else args.shoes or 1)
                    if args.progress or sys.stderr.isatty() else None)

        def on_outputs(outputs: list[Output]) -> None:
            for o in outputs:
                if type(o) is Published:
                    if progress is not None:
                        progress.round(o.record.get("shoe"))
                    if sink is not None:
                        sink.write(o.record)
                    if stats is not None:
                        stats.add(o.record)
                elif type(o) is Announced:
                    if announce is not None:
                        announce.write(o.message)
                    if guard_stats is not None:
                        guard_stats.add(o.message)
            if display is not None:
                display.show(outputs)

        before: Callable[[InputEvent], None] | None = record
        after: Callable[[list[Output]], None] = on_outputs
        messages_stream = outs["--messages"]
        if messages_stream is not None:
            # Only when asked: the messages cost a snapshot of the station per event.
            messages = _messages(station, rules, signer, messages_stream)
            before, after = messages.hooks(record, on_outputs)

        if display is not None:
            display.show([station.prompt])
        started = time.perf_counter()
        end = simulate(station, dealer, after, before)
        elapsed = time.perf_counter() - started
        if progress is not None:
            progress.close()
        if messages is not None:
            messages.close()
    _summary(what, end, elapsed)
    if messages is not None:
        print(f"{messages.written} upstream messages (seq 1-{messages.written}) written to "
              f"{args.messages}", file=sys.stderr)
    for f in dealer.unused_faults():
        where = f"card {f.card}" if f.card is not None else f"after round {f.after_round}"
        print(f"fault {f.kind} at {where} of shoe {f.shoe} never happened: the simulation "
              "did not get that far (check the fault script)", file=sys.stderr)
    if stats is not None and paytable is not None:
        print(format_summary(stats, analyze(paytable, rules.decks)), file=sys.stderr)
    if guard_stats is not None and paytable is not None:
        print(guard_stats.summary(rules.bet_guard), file=sys.stderr)
    return 0


def _messages(station: Station, rules: TableRules, signer: Signer | None,
              out: IO[str]) -> MessageStream:
    # Imported here: the feed signs (cryptography), which a plain simulate never needs.
    from station.upstream.stream import MessageStream, virtual_chain  # noqa: PLC0415
    from station.wire.feed import Feed  # noqa: PLC0415

    return MessageStream(station, Feed(rules.table, rules.decks, signer,
                                       chain=virtual_chain(station)), out)


def _summary(what: str, end: SimulationEnd, elapsed: float) -> None:
    rate = end.rounds / elapsed if elapsed > 0 else 0.0
    lines = [
        f"simulated {what}: {end.rounds} rounds complete, {end.voids} void, "
        f"{end.events} events in {elapsed:.2f} s ({rate:,.0f} rounds/s)"
    ]
    if end.final_phase.value == "paused":
        lines.append(f"stopped PAUSED: {end.pause_reason} (use --supervisor resume|void to "
                     "let the simulated supervisor act)")
    if end.exhausted_mid_round:
        lines.append("the shoe ran out of cards in the middle of a round: that round was not "
                     "published (add cards, or a CUT so the shoe ends between rounds)")
    lines.extend(end.notes)
    print("\n".join(lines), file=sys.stderr)
