"""One config key as docs/configuration.md shows it: a kind declares its keys with these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Key:
    """``type``: what the YAML holds (``text``, ``whole number``, ...); ``default``: as the
    docs show it (``required`` when the kind needs it, ``null`` for none); ``unit``: of a
    number, when it has one (it is in the key's name too)."""

    name: str
    type: str
    default: str
    meaning: str
    unit: str = ""

    def row(self, section: str) -> str:
        """This key's row in docs/configuration.md."""
        return (f"| `{section}.{self.name}` | {self.type} | {self.default} | {self.unit or '-'} "
                f"| {self.meaning} |")
