"""What a consumer learns from each message it is fed: one small frozen value per finding.

``problem`` marks the findings that say something is wrong with the stream (a bad signature,
a gap, a schema failure, an unknown table, an unreadable message); ``Applied`` and
``Duplicate`` are the normal course of an at-least-once stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Applied:
    """A verified, valid, new message, folded into its table's state."""

    table: str
    kind: str
    seq: int | None  # None for a presence status
    key: str
    message: Mapping[str, Any] = field(compare=False, repr=False)
    problem: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A re-delivery (same key, or a seq not above the last taken): dropped."""

    table: str
    key: str
    seq: int | None
    problem: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Gap:
    """The events message numbered ``missing`` never arrived (nor perhaps others after
    ``after``, the last one taken): docs/upstream.md, "Checking for gaps"."""

    table: str
    after: int
    missing: int
    problem: ClassVar[bool] = True

    @property
    def detail(self) -> str:
        return f"seq {self.missing} never arrived (nor perhaps others after {self.after})"


@dataclass(frozen=True, slots=True)
class BadSignature:
    """The message does not verify with its table's key: never applied."""

    table: str
    key: str | None
    detail: str
    problem: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class UnknownTable:
    """No public key for the table the message names: never applied."""

    table: str
    detail: str
    problem: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class SchemaFailure:
    """Signed, but not what its kind's JSON Schema allows: never applied."""

    table: str
    key: str | None
    detail: str
    problem: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class RewrittenHistory:
    """A status names a journal head that contradicts one named before: for the same
    journal, a record's seq went back or one seq came with two hashes (docs/upstream.md,
    ``status``). The message is applied all the same; the history behind it is suspect."""

    table: str
    key: str
    detail: str
    problem: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Not a message at all (not JSON, not an object, no table), or on another table's
    topic: never applied."""

    topic: str
    detail: str
    problem: ClassVar[bool] = True


Finding = (Applied | Duplicate | Gap | BadSignature | UnknownTable | SchemaFailure
           | RewrittenHistory | Unreadable)
