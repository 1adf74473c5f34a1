"""``display.type: console``: the dealer's prompts as lines (``station.kinds.displays.lines``); and
``none``: no display (a service whose table log goes to the journal)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from station.kinds.displays import DisplayContext

if TYPE_CHECKING:
    from station.kinds.displays.lines import ConsoleDisplay


def build(ctx: DisplayContext) -> ConsoleDisplay:
    from station.kinds.displays.lines import ConsoleDisplay  # noqa: PLC0415 - only when run

    config = ctx.config
    # Results on stdout: the console's lines go to stderr so the two never mix.
    to_stdout = "-" in (config.results_path, config.announcements_path)
    return ConsoleDisplay(sys.stderr if to_stdout else None, stamp=True)
