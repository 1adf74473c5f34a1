"""The JSON Schema of every upstream message kind, shipped as package data.

``validate`` needs the ``jsonschema`` package, a dev dependency: the station never validates
at run time (its builders are tested against the schemas instead); tests and game-server
developers do.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from station.wire.messages import KINDS

COMMAND = "command"  # the inbound command's schema (commands.py), not an outbound kind


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema for an outbound ``kind`` or for ``command``; raises KeyError otherwise."""
    if name not in (*KINDS, COMMAND):
        raise KeyError(f"no schema for {name!r}; kinds are {', '.join(KINDS)}")
    text = (resources.files("station.wire") / "schemas" / f"{name}.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate(message: dict[str, Any] | bytes, schema: str | None = None) -> None:
    """Raise ``ValueError`` naming the kind and the path of the first problem when
    ``message`` (a dict or the signed payload bytes) breaks its kind's schema.

    ``schema`` defaults to the message's ``kind``; pass ``"command"`` for an inbound command.
    """
    import jsonschema  # noqa: PLC0415 - a dev dependency, imported only where asked for

    if isinstance(message, bytes):
        message = json.loads(message)
        if not isinstance(message, dict):
            raise ValueError("a message is a JSON object")
    name = schema if schema is not None else message.get("kind")
    if not isinstance(name, str) or name not in (*KINDS, COMMAND):
        raise ValueError(f"message has no known kind: {name!r}")
    validator = jsonschema.Draft202012Validator(load_schema(name))
    errors = sorted(validator.iter_errors(message), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ValueError(f"{name} message invalid at {where}: {first.message}")
