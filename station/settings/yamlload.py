"""The one YAML loader for configs, fault scripts and paytables (issue 7).

Plain YAML only, so a small file can never become a large value:

- **No aliases** (``*name``), hence no merge keys either. A 600-byte paytable nesting eight
  levels of aliases expanded to gigabytes; a budget of aliases would still let a file grow a
  value many times its size, and no file the station reads needs them (none of the shipped
  ones uses one), so they are refused outright with the line to fix.
- **No key given twice** in one mapping (PyYAML silently keeps the last one).
- **Keys are plain scalars** (a list as a key cannot be looked up).
- **At most ``MAX_DEPTH`` levels of nesting** and whole numbers of at most
  ``MAX_INT_DIGITS`` digits.

libyaml's parser is used when present (measured five times faster than PyYAML's own), the
pure-Python one otherwise; the rules are the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from station.errors import ConfigError, StationError
from station.game.limits import clip, short
from station.settings.textfile import describe_path, read_text

MAX_DEPTH: Final = 32
MAX_INT_DIGITS: Final = 30
# The largest shipped file (seed003.yaml) is 11 KiB; the densest 128 KiB of YAML loads in
# about half a second with libyaml, well within the 2 s every input must take.
MAX_YAML_BYTES: Final = 128 * 1024

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT_TAG: Final = "tag:yaml.org,2002:int"
_MERGE_TAG: Final = "tag:yaml.org,2002:merge"


def _line(mark: Any) -> int:
    return int(mark.line) + 1 if mark is not None else 0


class _Refused(Exception):
    """A rule of plain YAML broken, at ``line`` (1-based)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


class _Strict(_Base):  # type: ignore[misc]
    """Safe loading, plus the refusals of this module that need the nodes."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        if (isinstance(node, ScalarNode) and node.tag == _INT_TAG
                and len(str(node.value)) > MAX_INT_DIGITS):
            raise _Refused(_line(node.start_mark),
                           f"a whole number of {len(str(node.value))} digits is too long")
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:  # e.g. a date 2024-13-45
            raise _Refused(_line(node.start_mark),
                           f"cannot read the value {short(node.value)} ({clip(str(exc))})"
                           ) from None


def _mapping(loader: _Strict, node: MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        line = _line(key_node.start_mark)
        if key_node.tag == _MERGE_TAG:
            raise _Refused(line, "merge keys (<<) are not accepted; write the keys out")
        if not isinstance(key_node, ScalarNode):
            raise _Refused(line, "a key must be plain text, not a list or a mapping")
        key = loader.construct_object(key_node)
        if key in seen:
            raise _Refused(line, f"key {short(key)} is given twice; keep one")
        seen.add(key)
    return loader.construct_mapping(node)  # type: ignore[no-any-return]


_Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _check_events(text: str) -> None:
    """Refuse aliases and deep nesting from the event stream, before any node is built."""
    parser = _Base(text)
    depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, yaml.AliasEvent):
                raise _Refused(_line(event.start_mark),
                               f"an alias (*{clip(str(event.anchor))}) is not accepted; "
                               "write the value out")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _Refused(_line(event.start_mark),
                                   f"nested more than {MAX_DEPTH} levels deep")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        parser.dispose()


def parse_yaml(text: str, name: str, error: type[StationError] = ConfigError) -> Any:
    """The value of YAML ``text`` (from the file called ``name``).

    Raises ``error`` naming the file and the line: bad syntax, an alias, a key given twice,
    deep nesting, or a value that cannot be read.
    """
    try:
        _check_events(text)
        loader = _Strict(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except _Refused as exc:
        raise error(f"{name}: line {exc.line}: not accepted YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f"line {mark.line + 1}"
        elif isinstance(exc, yaml.reader.ReaderError):
            where = f"line {text.count(chr(10), 0, exc.position) + 1}"
        else:
            where = "somewhere"
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        said = f"{context}, {problem}" if context else str(problem)
        said = " ".join(said.split())  # one line: a ReaderError spans two
        raise error(
            f"{name}: {where}: not valid YAML ({clip(said, 120)}); fix the syntax"
        ) from None


def load_yaml(path: Path, what: str, error: type[StationError] = ConfigError) -> Any:
    """Read and parse the YAML file ``path`` (its role ``what`` goes into messages)."""
    text = read_text(path, what, error, MAX_YAML_BYTES)
    return parse_yaml(text, describe_path(path), error)
