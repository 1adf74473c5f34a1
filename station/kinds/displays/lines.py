"""The console dealer display: one line per prompt change, notice or published round."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import IO

from station.table.outputs import Announced, Notice, Output, Prompt


class ConsoleDisplay:
    """Prints what the dealer must see. ``clock`` stamps lines in the daemon; a simulation
    passes ``None`` so its output stays reproducible."""

    def __init__(self, stream: IO[str] | None = None, stamp: bool = False) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self._stamp = stamp

    def show(self, outputs: list[Output]) -> None:
        for o in outputs:
            if isinstance(o, Announced):
                continue  # for upstream; the prompt already tells the dealer betting is open
            line = format_output(o)
            if self._stamp:
                now = datetime.now(UTC).strftime("%H:%M:%S")
                line = f"{now} {line}"
            print(line, file=self._stream, flush=True)


def format_output(o: Output) -> str:
    if isinstance(o, Prompt):
        return o.line()
    if isinstance(o, Notice):
        return f"note: {o.text}"
    if isinstance(o, Announced):
        m = o.message
        if m["type"] == "dealer":  # station.table.dealers: a sign-in, sign-out or change
            return f"announced: dealer {m['action']} ({m['previous']} -> {m['dealer']})"
        if m["type"] == "shoe_report":
            return (f"announced: shoe report of {m['shoe']}: {m['dealt']} dealt, {m['burned']} "
                    f"burned, {m['discarded']} discarded, {m['left']} left")
        if m["type"] == "betting_open":
            return (f"announced: {m['type']} round {m['round']} ({len(m['open_bets'])} bets "
                    "open)")
        return f"announced: {m['type']} {m.get('alert') or m.get('detail', '')}".rstrip()
    r = o.record
    cards = f"P {' '.join(r['player'])} | B {' '.join(r['banker'])}"
    if r["status"] == "void":
        return f"published round {r['round']}: VOID ({r['void_reason']}) [{cards}]"
    head = "TIE" if r["winner"] == "tie" else f"{r['winner'].upper()} WINS"
    return (
        f"published round {r['round']}: {head} (player {r['player_total']}, "
        f"banker {r['banker_total']}) [{cards}]"
    )
