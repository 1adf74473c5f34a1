"""The keyboard layouts a keyboard-wedge scanner may be set to, as data: one JSON file each
in ``drivers/keymaps/`` (``us``, the default, ``uk``, ``de``, ``fr``). A layout names keys
as the kernel does (``KEY_A``, ``KEY_1``; python-evdev's ``ecodes``) and gives each the
characters it types plain, with shift and (optionally) with AltGr. A new layout is one file:
set the scanner and ``reader.layout`` to the same one.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Final

from drivers.keyboard import Layout

KEYMAPS: Final = Path(__file__).resolve().parent / "keymaps"
DEFAULT_LAYOUT: Final = "us"


def layout_names() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in KEYMAPS.glob("*.json")))


@cache
def load_layout(name: str) -> Layout:
    """The layout ``name``; raises ValueError naming the known ones, or what in its file is
    wrong (a key the kernel does not know, an entry that is not one character)."""
    from evdev import ecodes  # noqa: PLC0415 - the key names are python-evdev's

    if name not in layout_names():
        raise ValueError(f"no keyboard layout {name!r}; known: {', '.join(layout_names())}")
    path = KEYMAPS / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    keys: dict[int, tuple[str, ...]] = {}
    for key, chars in data["keys"].items():
        code = ecodes.ecodes.get(key)
        if not isinstance(code, int) or not key.startswith("KEY_"):
            raise ValueError(f"{path.name}: {key!r} is not a kernel key name")
        if not (isinstance(chars, list) and 1 <= len(chars) <= 3
                and all(isinstance(c, str) and len(c) <= 1 for c in chars)):
            raise ValueError(f"{path.name}: {key}: expected 1-3 characters, got {chars!r}")
        keys[code] = tuple(chars)
    return Layout(name, keys)
