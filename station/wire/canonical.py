"""The canonical JSON form that signatures cover.

One byte string per message, reproducible in any language: keys sorted by code point, no
spaces, UTF-8 without ``\\u`` escapes for non-ASCII, the top-level ``sig`` left out. Numbers
are the part where languages disagree (Python writes ``1.0`` where JavaScript writes ``1``,
and each has its own exponent style), so a float with an integral value is written as an
integer and a float that would need an exponent is refused rather than signed in a form a
verifier could not reproduce.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import orjson

SIG = "sig"
# JavaScript and Python agree on the shortest round-trip digits of a float in this range and
# write them without an exponent (Python switches to exponents below 1e-4, JavaScript
# below 1e-6; both above 1e16 for integral values, which are written as integers here).
_MIN_PLAIN = 1e-4
_MAX_PLAIN = 1e16
# Integers a JSON parser that reads numbers as doubles (JavaScript) keeps exactly.
_MAX_SAFE_INT = 2**53 - 1


class CanonicalError(ValueError):
    """A value has no canonical JSON form (NaN, infinity, a float needing an exponent, a
    non-string key, a type JSON does not have)."""


def _normal(value: Any, path: str) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if abs(value) > _MAX_SAFE_INT:
            raise CanonicalError(
                f"{path}: {value} is beyond what a JavaScript verifier reads exactly"
            )
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalError(f"{path}: {value} has no JSON form")
        if value.is_integer():
            return _normal(int(value), path)
        if not _MIN_PLAIN <= abs(value) < _MAX_PLAIN:
            raise CanonicalError(
                f"{path}: {value!r} would need an exponent, which verifiers in other "
                "languages write differently; send it as a string or scaled integer"
            )
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise CanonicalError(f"{path}: key {k!r} is not a string")
            out[k] = _normal(v, f"{path}.{k}")
        return out
    if isinstance(value, list | tuple):
        return [_normal(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise CanonicalError(f"{path}: {type(value).__name__} is not a JSON value")


def normalize(message: Mapping[str, Any]) -> dict[str, Any]:
    """The message as plain JSON values, integral floats as ints (raises CanonicalError)."""
    out = _normal(message, "$")
    assert isinstance(out, dict)
    return out


def canonical(message: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: ``message`` without its top-level ``sig``, canonical.

    Raises CanonicalError for a value with no canonical form.
    """
    body = {k: v for k, v in message.items() if k != SIG}
    return encode(normalize(body))


def encode(normal: Mapping[str, Any]) -> bytes:
    """Canonical bytes of an already normalized object (sorted keys, compact, UTF-8).

    orjson sorts keys by their UTF-8 bytes, which is code point order, and writes the same
    bytes as ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    (a property test holds it to that) about twenty times faster.
    """
    try:
        return orjson.dumps(normal, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError as exc:  # e.g. an int beyond 64 bits
        raise CanonicalError(str(exc)) from None
