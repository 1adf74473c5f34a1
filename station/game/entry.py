"""One bet's result in a published record, shared by every record that settles it alike.

Settlement runs on every round, and giving each record its own copy of each entry was most of
its cost. ``Entry`` is a ``dict`` (consumers index it, and orjson and ``json`` serialize dict
subclasses natively, without a ``default=`` hook) that refuses every change, so one entry
object can stand in every record it belongs to and no record can change another's. A record's
own ``bets`` mapping stays a plain dict: replacing an entry there touches that record only.
Pure; no I/O.
"""

from __future__ import annotations

from typing import Any, NoReturn


class Entry(dict[str, object]):
    """A read-only ``{"outcome": ..., "pays": ...}``: every mutating method raises TypeError."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a settled bet entry is shared between records and cannot be changed; "
                        "build a new dict from it instead (dict(entry))")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        self._refuse()

    def __reduce__(self) -> tuple[type[Entry], tuple[dict[str, object]]]:
        # pickle and copy would otherwise rebuild it item by item through __setitem__.
        return Entry, (dict(self),)

    def __copy__(self) -> Entry:
        return self  # immutable: a copy would be indistinguishable

    def __deepcopy__(self, memo: dict[int, object]) -> Entry:
        return self
