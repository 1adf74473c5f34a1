"""The archive's alert problems are declared once (station.services.archive.receiver.PROBLEMS):
what the receiver refuses with and docs/journal.md's list are held to it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from station.services.archive import receiver
from station.services.archive.receiver import PROBLEMS

ROOT = Path(__file__).resolve().parents[2]


def _raised() -> set[str]:
    tree = ast.parse(Path(receiver.__file__).read_text("utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            at = {"_Refused": 0, "Finding": 1}.get(node.func.id)
            if at is not None and len(node.args) > at:
                arg = node.args[at]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.add(arg.value)
    return out


def test_every_problem_the_receiver_refuses_with_is_declared_and_each_is_raised() -> None:
    assert _raised() == set(PROBLEMS)


def test_docs_journal_lists_exactly_the_declared_problems() -> None:
    text = (ROOT / "docs" / "journal.md").read_text("utf-8")
    start = text.index("`problem` is ")
    said = text[start:text.index("`journal` and `seq`", start)]
    assert re.findall(r"`(\w+)`", said)[1:] == list(PROBLEMS)  # [0] is `problem` itself
