"""What the station tells the world after each event: prompts, notices, published rounds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from station.table.msg import Msg, msg


def duration_words(seconds: float) -> str:
    """A configured length as people say it in the station's own words: ``40 s``, ``5 min``,
    ``1 min 30 s`` (whole seconds; never ``0.666667 min``, issue 30). The journal and
    ``ctl status`` carry the prompt, so this is its wording there too."""
    whole = max(1, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def duration_said(seconds: float) -> Msg:
    """``duration_words`` as a message id and its figures, for the pages."""
    whole = max(1, round(seconds))
    if whole < 60:
        return msg("duration.s", s=whole)
    minutes, rest = divmod(whole, 60)
    return msg("duration.min_s", min=minutes, s=rest) if rest else msg("duration.min",
                                                                         min=minutes)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the dealer display shows now. ``text`` is short enough to read at arm's length;
    ``detail`` says why (e.g. which rule makes a third card due). ``paused`` marks a halt."""

    phase: str
    text: str
    detail: str = ""
    paused: bool = False
    # The same instruction and detail as message ids (station.table.msg), for the pages; None
    # where the page words it from other facts (a pause's reasons). Not compared: they say
    # what the text says, so two prompts are the same when their words are.
    said: Msg | None = field(default=None, compare=False)
    said_detail: Msg | None = field(default=None, compare=False)

    def line(self) -> str:
        return f"{self.text} ({self.detail})" if self.detail else self.text


@dataclass(frozen=True, slots=True)
class Notice:
    """Something worth a log line that does not change the round (a suppressed double read,
    a refused command). Never silent: every notice is shown and journaled."""

    text: str


@dataclass(frozen=True, slots=True)
class RefusedOutside(Notice):
    """A command refused before the station (a wrong supervisor PIN on the page): ``text`` is
    the line journaled and logged, and its parts, so a page words it in its own language
    without reading the line back: ``action`` (``resume``, ``confirm_shuffle``, ...),
    ``reason`` (``wrong_pin``, ``locked_out``, ``no_pins``) and ``figure`` (the tries left
    after a wrong PIN, the seconds locked out; None for none)."""

    action: str = ""
    reason: str = ""
    figure: int | None = None


@dataclass(frozen=True, slots=True)
class Refused(Notice):
    """A command the station did not take, and why: a notice (``text``, the line shown) that
    also says which command (``action``, ``actor``), the reason word (``reason``: ``not_now``
    for the table's state or mode, ``unknown_action`` for an action it has no such command
    for) and the sentence (``detail``). The page and ``station ctl`` answer 409 with it; a
    command from upstream (its actor ends with ``[id]``) is also answered upstream as a
    ``command_refused`` message (docs/upstream.md)."""

    action: str = ""
    actor: str = ""
    reason: str = "not_now"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Published:
    """A verified round record (complete or void) that leaves the station."""

    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Announced:
    """A message for upstream that is not a round result: betting opened for round N, with
    the bets accepted in it (their cut-offs applied)."""

    message: dict[str, Any]


Output = Prompt | Notice | Published | Announced
