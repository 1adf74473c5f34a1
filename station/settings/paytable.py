"""Paytables: load a YAML file, validate it strictly, open bets by round (RULES.md 5).

A paytable file describes one family of bets (seed 000, seed 003); ``variants`` in the same
file override payouts of some bets (no commission, a 9 to 1 tie) so one family lives in one
file and its variants cannot drift apart. See docs/paytables.md for the format.

Every mistake raises ``ConfigError`` naming the file, the bet and the key, and the fix.
This is the only module of the bets that reads files; ``Paytable`` and ``open_bets`` live in
the pure ``station.game.bets.model`` and are re-exported here for callers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from station.errors import ConfigError
from station.game.bets.model import PUSH_CONDITIONS, Bet, Paytable, open_bets
from station.game.bets.registry import KINDS, KindSpec
from station.game.limits import payout_problem, short
from station.settings.textfile import describe_path, read_text
from station.settings.yamlload import MAX_YAML_BYTES, parse_yaml

TOP_KEYS: Final = ("name", "title", "source", "bets", "variants")
BET_REQUIRED: Final = ("key", "label", "kind", "pays", "push", "cutoff_round")
BET_OPTIONAL: Final = ("note",)
PARAMS: Final = ("side", "total", "totals", "colour", "bets")
VARIANT_KEYS: Final = ("note", "bets")
OVERRIDABLE: Final = ("pays", "push", "cutoff_round", "note")
COLOURS: Final = ("red", "black")
_KEY_RE: Final = re.compile(r"^[a-z][a-z0-9_]*$")

__all__ = ["Paytable", "load_paytable", "open_bets", "parse_paytable"]


def load_paytable(path: Path, variants: Sequence[str] = ()) -> Paytable:
    """Load and validate the paytable file at ``path`` with ``variants`` applied in order.

    Raises ``ConfigError`` (naming the file, the bet, the key and the fix) for an unreadable
    file, bad YAML, an unknown key, an unknown bet kind or variant, a payout that is not a
    positive number up to 10,000, a missing ``cutoff_round`` or ``push``, and every other
    mistake.
    """
    text = read_text(path, "the paytable", ConfigError, MAX_YAML_BYTES)
    return parse_paytable(text, path, variants)


def parse_paytable(text: str, path: Path, variants: Sequence[str] = ()) -> Paytable:
    """Validate paytable ``text`` (named ``path`` in errors), as ``load_paytable`` does.

    A recording carries the text of the paytable in force, so a replay settles with exactly
    the payouts of the session even if the file has changed since.
    """
    doc = parse_yaml(text, describe_path(path))
    return replace(_Builder(path).build(doc, tuple(variants)), text=text)


def _number(value: object) -> Fraction | None:
    """An exact payout from a YAML int or float (0.95 -> 19/20), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None  # .nan, .inf or an overflowing 1e400: refused as not a payout
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


class _Builder:
    """Validation state for one file, so every error can name it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str, fix: str) -> ConfigError:
        return ConfigError(f"{describe_path(self.path)}: {where}: {problem}; {fix}")

    def build(self, doc: object, chosen: tuple[str, ...]) -> Paytable:
        if not isinstance(doc, dict):
            raise self.fail("top level", "is not a mapping", "start the file with 'name:'")
        for k in doc:
            if k not in TOP_KEYS:
                raise self.fail(
                    f"key {short(k)}", "unknown top-level key", f"use only {', '.join(TOP_KEYS)}"
                )
        for k in ("title", "source"):
            if doc.get(k) is not None and not isinstance(doc[k], str):
                raise self.fail(f"key {k!r}", f"{short(doc[k])} is not text", "quote it")
        name = doc.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail("key 'name'", "missing or not a string", "add 'name: <text>'")
        raw_bets = doc.get("bets")
        if not isinstance(raw_bets, list) or not raw_bets:
            raise self.fail("key 'bets'", "missing or empty", "list the bets under 'bets:'")
        entries = [self.entry(i, raw) for i, raw in enumerate(raw_bets, start=1)]
        raw_variants = doc.get("variants") or {}
        if not isinstance(raw_variants, dict):
            raise self.fail("key 'variants'", "is not a mapping", "map variant names to overrides")
        self.apply_variants(entries, raw_variants, chosen)
        bets = self.resolve(entries)
        full_name = "+".join((name, *chosen))
        return Paytable(
            name=full_name,
            path=self.path,
            bets=bets,
            title=str(doc.get("title") or ""),
            source=str(doc.get("source") or ""),
            variants=chosen,
            available_variants=tuple(str(v) for v in raw_variants),
        )

    # -- one bet entry ---------------------------------------------------------------

    def entry(self, index: int, raw: object) -> dict[str, Any]:
        where = f"bet #{index}"
        if not isinstance(raw, dict):
            raise self.fail(where, "is not a mapping", "write each bet as 'key: ...' lines")
        key = raw.get("key")
        if isinstance(key, str) and _KEY_RE.match(key):
            where = f"bet {short(key)}"
        for field in BET_REQUIRED:
            if field not in raw:
                raise self.fail(
                    f"{where}: key {field!r}",
                    "is missing",
                    f"add '{field}:'"
                    + (" (null for no cut-off)" if field == "cutoff_round" else ""),
                )
        if not isinstance(key, str) or not _KEY_RE.match(key):
            raise self.fail(
                f"{where}: key 'key'", f"{short(key)} is not a bet key",
                "use lower_snake_case English"
            )
        kind = raw["kind"]
        if not isinstance(kind, str) or kind not in KINDS:
            raise self.fail(
                f"{where}: key 'kind'",
                f"unknown bet kind {short(kind)}",
                f"use one of {', '.join(sorted(KINDS))}",
            )
        spec = KINDS[kind]
        allowed = (*BET_REQUIRED, *BET_OPTIONAL, *spec.params)
        for field in raw:
            if field not in allowed:
                hint = (
                    f"kind {kind!r} takes no {field!r}"
                    if field in PARAMS
                    else f"allowed keys are {', '.join(allowed)}"
                )
                raise self.fail(f"{where}: key {short(field)}", "unknown key",
                                f"remove it ({hint})")
        for param in spec.params:
            if param not in raw:
                raise self.fail(
                    f"{where}: key {param!r}", f"kind {kind!r} needs it", f"add '{param}:'"
                )
        label = raw["label"]
        if not isinstance(label, str) or not label.strip():
            raise self.fail(f"{where}: key 'label'", "is empty", "give the table's own name")
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            raise self.fail(f"{where}: key 'note'", "is not text", "quote it")
        out: dict[str, Any] = {"key": key, "label": label, "kind": kind, "note": note}
        out["pays"] = self.pays(where, spec, raw["pays"])
        out["push"] = self.push(where, spec, raw["push"])
        out["cutoff_round"] = self.cutoff(where, raw["cutoff_round"])
        out.update(self.params(where, spec, raw))
        return out

    def pays(self, where: str, spec: KindSpec, raw: object) -> dict[str, Fraction]:
        names = ", ".join(spec.pay_names)
        if not isinstance(raw, dict) or not raw:
            raise self.fail(
                f"{where}: key 'pays'", "is not a mapping", f"map {names} to X (X to 1)"
            )
        out: dict[str, Fraction] = {}
        for name, value in raw.items():
            if name not in spec.pay_names:
                raise self.fail(
                    f"{where}: key 'pays.{short(name)[1:-1] if isinstance(name, str) else name}'",
                    "unknown payout for this kind", f"use {names}"
                )
            x = _number(value)
            problem = "is not a positive payout" if x is None else payout_problem(x)
            if x is None or problem is not None:
                raise self.fail(
                    f"{where}: key 'pays.{name}'",
                    f"{short(value)} {problem}",
                    "write X of 'X to 1' as a positive number up to 10000 (0.95, 3.5, 11); "
                    "a refund is a push",
                )
            out[str(name)] = x
        missing = [n for n in spec.pays_required if n not in out]
        if missing:
            raise self.fail(
                f"{where}: key 'pays.{missing[0]}'", "is missing", f"this kind needs {names}"
            )
        if not spec.pays_required and not out:
            raise self.fail(f"{where}: key 'pays'", "is empty", f"give at least one of {names}")
        return out

    def push(self, where: str, spec: KindSpec, raw: object) -> frozenset[str]:
        if not isinstance(raw, list):
            raise self.fail(
                f"{where}: key 'push'", "is not a list", "write [] or a list such as [tie]"
            )
        for cond in raw:
            if cond not in PUSH_CONDITIONS:
                raise self.fail(
                    f"{where}: key 'push'",
                    f"unknown push condition {short(cond)}",
                    f"use {', '.join(PUSH_CONDITIONS)}",
                )
            if cond not in spec.pushes:
                raise self.fail(
                    f"{where}: key 'push'",
                    f"{cond!r} cannot apply to this kind (it never needs a winner)",
                    "use push: []",
                )
        return frozenset(raw)

    def cutoff(self, where: str, raw: object) -> int | None:
        if raw is None:
            return None
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
            raise self.fail(
                f"{where}: key 'cutoff_round'",
                f"{short(raw)} is not a round number",
                "give the last round N that accepts the bet (N >= 1) or null for no cut-off",
            )
        return raw

    def params(self, where: str, spec: KindSpec, raw: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "side" in spec.params:
            if raw["side"] not in spec.sides:
                raise self.fail(
                    f"{where}: key 'side'", f"{short(raw['side'])} is not a side",
                    f"use {spec.sides}"
                )
            out["side"] = raw["side"]
        if "total" in spec.params:
            t = raw["total"]
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 9:
                raise self.fail(f"{where}: key 'total'", f"{short(t)} is not a total", "use 0..9")
            out["total"] = t
        if "totals" in spec.params:
            ts = raw["totals"]
            if (
                not isinstance(ts, list)
                or not ts
                or any(isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= 9 for t in ts)
            ):
                raise self.fail(
                    f"{where}: key 'totals'",
                    f"{short(ts)} is not a list of totals",
                    "use e.g. [7, 8, 9]",
                )
            out["totals"] = tuple(ts)
        if "colour" in spec.params:
            if raw["colour"] not in COLOURS:
                raise self.fail(
                    f"{where}: key 'colour'",
                    f"{short(raw['colour'])} is not a colour",
                    "use red or black",
                )
            out["colour"] = raw["colour"]
        if "bets" in spec.params:
            refs = raw["bets"]
            if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
                raise self.fail(
                    f"{where}: key 'bets'", "is not a list of bet keys", "list the keys it covers"
                )
            out["ref_keys"] = tuple(refs)
        return out

    # -- variants and references ---------------------------------------------------------

    def apply_variants(
        self, entries: list[dict[str, Any]], raw: Mapping[Any, Any], chosen: tuple[str, ...]
    ) -> None:
        by_key = {e["key"]: e for e in entries}
        if len(by_key) != len(entries):
            seen: set[str] = set()
            for e in entries:
                if e["key"] in seen:
                    raise self.fail(
                        f"bet {short(e['key'])}: key 'key'", "is used twice",
                        "give each bet its own key"
                    )
                seen.add(e["key"])
        parsed = {str(v): self.variant(str(v), body, by_key) for v, body in raw.items()}
        touched: dict[tuple[str, str], str] = {}
        for vname in chosen:
            if vname not in parsed:
                known = ", ".join(parsed) or "none"
                raise self.fail(
                    f"variant {short(vname)}", "is not in this file", f"choose one of: {known}"
                )
            for bkey, over in parsed[vname].items():
                for field, value in over.items():
                    if (bkey, field) in touched:
                        raise self.fail(
                            f"variant {vname!r}: bet {bkey!r}: key {field!r}",
                            f"variant {touched[(bkey, field)]!r} already sets it",
                            "choose only one of these variants",
                        )
                    touched[(bkey, field)] = vname
                    by_key[bkey][field] = value

    def variant(
        self, vname: str, body: object, by_key: Mapping[str, Any]
    ) -> dict[str, dict[str, Any]]:
        """Validate every variant of the file, chosen or not, so a typo is caught early."""
        where = f"variant {short(vname)}"
        if not isinstance(body, dict):
            raise self.fail(where, "is not a mapping", "give it 'note:' and 'bets:'")
        for k in body:
            if k not in VARIANT_KEYS:
                raise self.fail(
                    f"{where}: key {short(k)}", "unknown key",
                    f"use only {', '.join(VARIANT_KEYS)}"
                )
        overrides = body.get("bets") or {}
        if not isinstance(overrides, dict):
            raise self.fail(f"{where}: key 'bets'", "is not a mapping", "map bet keys to changes")
        out: dict[str, dict[str, Any]] = {}
        for bkey, over in overrides.items():
            bwhere = f"{where}: bet {short(bkey)}"
            if bkey not in by_key:
                raise self.fail(bwhere, "is not a bet of this file", "check the bet key")
            if not isinstance(over, dict):
                raise self.fail(bwhere, "is not a mapping", "e.g. 'pays: {win: 9}'")
            spec = KINDS[by_key[bkey]["kind"]]
            parsed: dict[str, Any] = {}
            for field, value in over.items():
                if field == "pays":
                    parsed[field] = self.pays(bwhere, spec, value)
                elif field == "push":
                    parsed[field] = self.push(bwhere, spec, value)
                elif field == "cutoff_round":
                    parsed[field] = self.cutoff(bwhere, value)
                elif field == "note" and isinstance(value, str):
                    parsed[field] = value
                else:
                    raise self.fail(
                        f"{bwhere}: key {short(field)}",
                        "a variant cannot set it",
                        f"change only {', '.join(OVERRIDABLE)} (note as text), or add a bet",
                    )
            out[str(bkey)] = parsed
        return out

    def resolve(self, entries: list[dict[str, Any]]) -> tuple[Bet, ...]:
        plain = {e["key"]: _bet(e, ()) for e in entries if "ref_keys" not in e}
        out: list[Bet] = []
        for e in entries:
            if "ref_keys" not in e:
                out.append(plain[e["key"]])
                continue
            refs: list[Bet] = []
            for r in e["ref_keys"]:
                if r not in plain:
                    problem = (
                        "refers to itself or to another combined bet"
                        if any(x["key"] == r for x in entries)
                        else f"refers to {short(r)}, which is not a bet of this file"
                    )
                    raise self.fail(
                        f"bet {e['key']!r}: key 'bets'", problem, "list keys of plain bets only"
                    )
                refs.append(plain[r])
            out.append(_bet(e, tuple(refs)))
        return tuple(out)


def _bet(e: Mapping[str, Any], refs: tuple[Bet, ...]) -> Bet:
    return Bet(
        key=e["key"],
        label=e["label"],
        kind=e["kind"],
        pays=dict(e["pays"]),
        push=e["push"],
        cutoff_round=e["cutoff_round"],
        note=e["note"],
        side=e.get("side"),
        total=e.get("total"),
        totals=e.get("totals", ()),
        colour=e.get("colour"),
        refs=refs,
    )
