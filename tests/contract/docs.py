"""The upstream contract as docs/upstream.md and docs/messages.md state it, read from the docs.

A game server's developer has the two pages and nothing else; so does this module. It reads
the field table of each message kind (``| field | type | required | meaning |``), the
envelope's table, the round record's table in messages.md and every JSON example, and
``problems`` says how one message differs from what they promise. The vocabulary of the
``type`` and ``required`` columns is the one upstream.md defines ("Every message"); a word
outside it is an error here, so the docs stay regular enough to be read by a program.

To sign the examples of upstream.md again after editing them (with the documentation key,
private bytes 00 01 .. 1f, as the page says)::

    python -m tests.contract.docs
"""

from __future__ import annotations

import base64
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

DOCS = Path(__file__).resolve().parents[2] / "docs"
UPSTREAM = DOCS / "upstream.md"
MESSAGES = DOCS / "messages.md"
HEADER = ["field", "type", "required", "meaning"]
TYPES = ("int", "number", "string", "bool", "true", "null", "list", "object")
REQUIRED = ("required", "optional", "events", "journaled", "void", "absent")
STATUS = "status"  # the one kind on the status topic (upstream.md, "Where messages go")
ROUND = "round"  # its body is the record of messages.md
DOC_KEY = bytes(range(32))  # "private bytes 00 01 02 ... 1f"


class DocError(ValueError):
    """The docs are not in the regular form this reader (and a game server) relies on."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    types: tuple[str, ...]  # empty: documented as absent
    required: str


@dataclass(slots=True)
class Section:
    title: str
    lines: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Contract:
    envelope: dict[str, Field]
    kinds: dict[str, dict[str, Field]]  # each kind's own table (overrides the envelope's)
    record: dict[str, Field]  # messages.md: the round record
    examples: dict[str, list[str]]  # kind -> its examples in upstream.md, as written
    record_examples: list[str]  # messages.md's records
    command_examples: list[str]  # upstream.md's inbound commands
    command: dict[str, Field]  # the inbound command's field table
    refusals: tuple[str, ...]  # the reasons a command_refused can give

    def fields(self, kind: str) -> dict[str, Field]:
        """Every field a message of ``kind`` may carry, as the docs list it."""
        if kind not in self.kinds:
            raise KeyError(f"no kind {kind!r} in {UPSTREAM.name}")
        out = dict(self.envelope)
        if kind == ROUND:
            out |= self.record
        return out | self.kinds[kind]


def sections(text: str) -> list[Section]:
    out = [Section("")]
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("#"):
            out.append(Section(line.lstrip("#").strip()))
        else:
            out[-1].lines.append(line)
    return out


def tables(lines: list[str]) -> list[list[list[str]]]:
    """The markdown tables among ``lines``: rows of cells (``\\|`` is a literal bar)."""
    found: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if current is None:
                current = []
                found.append(current)
            if not all(set(c) <= {"-", ":"} for c in cells):
                current.append(cells)
        else:
            current = None
    return found


def examples(lines: list[str]) -> list[str]:
    return re.findall(r"```json\n(.*?)\n```", "\n".join(lines), re.S)


def field_table(rows: list[list[str]], where: str) -> dict[str, Field]:
    if not rows or [c.lower() for c in rows[0]] != HEADER:
        raise DocError(f"{where}: the field table must have the columns {HEADER}")
    out: dict[str, Field] = {}
    for row in rows[1:]:
        if len(row) != len(HEADER):
            raise DocError(f"{where}: row {row} does not have {len(HEADER)} cells")
        names = re.findall(r"`([^`]+)`", row[0])
        if not names:
            raise DocError(f"{where}: row {row}: no `field` name")
        required = row[2]
        if required not in REQUIRED:
            raise DocError(f"{where}: {names}: required is {required!r}, not one of {REQUIRED}")
        if required == "absent":
            types: tuple[str, ...] = ()
        else:
            types = tuple(t.strip() for t in row[1].split(" or "))
            unknown = [t for t in types if t not in TYPES]
            if unknown:
                raise DocError(f"{where}: {names}: type {unknown} is not one of {TYPES}")
        for name in names:
            if name in out:
                raise DocError(f"{where}: `{name}` is listed twice")
            out[name] = Field(name, types, required)
    return out


def read(upstream: str | None = None, messages: str | None = None) -> Contract:
    """The contract from the two pages (their text, or the files)."""
    up = sections(upstream if upstream is not None else UPSTREAM.read_text("utf-8"))
    envelope: dict[str, Field] | None = None
    kinds: dict[str, dict[str, Field]] = {}
    shown: dict[str, list[str]] = {}
    commands: list[str] = []
    command: dict[str, Field] | None = None
    refusals: tuple[str, ...] = ()
    for s in up:
        kind = re.fullmatch(r"`([a-z_]+)`", s.title)
        if s.title == "The envelope":
            envelope = field_table(_one_table(s), s.title)
        elif kind:
            name = kind.group(1)
            if name in kinds:
                raise DocError(f"{UPSTREAM.name}: the kind {name} has two sections")
            found = tables(s.lines)
            if name == ROUND:
                if found:
                    raise DocError("`round`: its fields are messages.md's table, not its own")
                kinds[name] = {}
            else:
                kinds[name] = field_table(_one_table(s), f"`{name}`")
            shown[name] = examples(s.lines)
            if not shown[name]:
                raise DocError(f"`{name}`: no example")
        elif s.title == "Commands from upstream":
            commands = examples(s.lines)
            found = tables(s.lines)
            fields = [t for t in found if t and [c.lower() for c in t[0]] == HEADER]
            reasons = [t for t in found if t and [c.lower() for c in t[0]] == ["reason", "when"]]
            if len(fields) != 1 or len(reasons) != 1:
                raise DocError(f"{s.title}: expected one field table and one reason table")
            command = field_table(fields[0], s.title)
            refusals = tuple(n for row in reasons[0][1:] for n in re.findall(r"`([^`]+)`",
                                                                              row[0]))
    if envelope is None or command is None:
        raise DocError(f"{UPSTREAM.name}: no section 'The envelope' or 'Commands from "
                       "upstream'")
    msg = sections(messages if messages is not None else MESSAGES.read_text("utf-8"))
    record_tables = [t for s in msg for t in tables(s.lines)
                     if t and [c.lower() for c in t[0]] == HEADER]
    if len(record_tables) != 1:
        raise DocError(f"{MESSAGES.name}: expected one field table, found {len(record_tables)}")
    record = field_table(record_tables[0], MESSAGES.name)
    return Contract(envelope, kinds, record, shown,
                    [e for s in msg for e in examples(s.lines)], commands, command, refusals)


def snippet(title: str, text: str | None = None) -> dict[str, Any]:
    """What the Python example under the heading ``title`` of upstream.md defines, run as a
    game server's developer would copy it."""
    for s in sections(text if text is not None else UPSTREAM.read_text("utf-8")):
        if s.title == title:
            found = re.findall(r"```python\n(.*?)```", "\n".join(s.lines), re.S)
            if len(found) != 1:
                raise DocError(f"{title}: expected one Python example, found {len(found)}")
            scope: dict[str, Any] = {}
            exec(found[0], scope)  # the docs' own code, exactly as written
            return scope
    raise DocError(f"{UPSTREAM.name}: no section {title!r}")


def _one_table(s: Section) -> list[list[str]]:
    found = tables(s.lines)
    if len(found) != 1:
        raise DocError(f"{s.title}: expected one field table, found {len(found)}")
    return found[0]


def _is(value: Any, type_: str) -> bool:
    match type_:
        case "int":
            return isinstance(value, int) and not isinstance(value, bool)
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        case "string":
            return isinstance(value, str)
        case "bool":
            return isinstance(value, bool)
        case "true":
            return value is True
        case "null":
            return value is None
        case "list":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
    raise DocError(f"unknown type {type_!r}")


def present(f: Field, kind: str, message: dict[str, Any]) -> bool | None:
    """Whether ``f`` must be in ``message`` (True), must not (False), or may (None)."""
    match f.required:
        case "required":
            return True
        case "optional":
            return None
        case "events":
            return kind != STATUS
        case "journaled":
            return "seq" in message if f.name != "seq" else None
        case "void":
            return message.get("status") == "void"
        case "absent":
            return False
    raise DocError(f"unknown requirement {f.required!r}")


def problems(message: dict[str, Any], fields: dict[str, Field], kind: str) -> list[str]:
    """How ``message`` breaks the documented ``fields`` of ``kind``: an undocumented field,
    a required one missing, one that must be absent, a value of another type."""
    out = []
    for name, value in message.items():
        f = fields.get(name)
        if f is None:
            out.append(f"{kind}: `{name}` is not documented")
        elif f.types and not any(_is(value, t) for t in f.types):
            out.append(f"{kind}: `{name}` is {value!r}, documented as {' or '.join(f.types)}")
    for f in fields.values():
        must = present(f, kind, message)
        if must is True and f.name not in message:
            out.append(f"{kind}: `{f.name}` ({f.required}) is missing")
        elif must is False and f.name in message:
            out.append(f"{kind}: `{f.name}` is documented as absent here")
    return out


def canonical(message: dict[str, Any]) -> bytes:
    """The form upstream.md signs: sorted keys, no white space, UTF-8."""
    body = {k: v for k, v in message.items() if k != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def resign(text: str) -> str:
    """``text`` with every signed JSON example signed again with the documentation key."""
    key = Ed25519PrivateKey.from_private_bytes(DOC_KEY)

    def again(match: re.Match[str]) -> str:
        message = json.loads(match.group(1))
        if not isinstance(message, dict) or "sig" not in message:
            return match.group(0)
        message["sig"] = base64.b64encode(key.sign(canonical(message))).decode("ascii")
        line = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return f"```json\n{line}\n```"

    return re.sub(r"```json\n(.*?)\n```", again, text, flags=re.S)


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python -m tests.contract.docs  (signs docs/upstream.md's examples again)",
              file=sys.stderr)
        return 2
    text = UPSTREAM.read_text("utf-8")
    new = resign(text)
    UPSTREAM.write_text(new, "utf-8")
    print(f"{UPSTREAM.name}: {len(examples(new.splitlines()))} examples, "
          f"{'signed again' if new != text else 'unchanged'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
