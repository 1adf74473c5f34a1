"""Seeded mutations of valid input files: bytes, lines, splices and edge values.

Every mutator takes a ``random.Random`` so a failing case is reproduced from its seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

EDGE_VALUES: tuple[bytes, ...] = (
    b"0", b"-1", b"1e400", b"-1e400", b"nan", b".nan", b".inf", b"-.inf", b"NaN", b"Infinity",
    b"18446744073709551616", b"1" * 400, b"8.9", b"true", b"null", b"~", b"[]", b"{}",
    b'""', b"x" * 5000, b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\r\n", b"&a [1]", b"*a",
    b"<<: *a", b"[" * 2000, b"{" * 2000, b"2024-13-45", b"!!binary aGVsbG8=", b"!!python/none",
    b"../../x", b"a\\0b", b"'\\ufeff'", b"0x7fffffffffffffff", b"1_000", b"- ", b": ",
    b"#", b"CUT", b"AS", b"10H", b"\t", b"1e999999999", b'"1e999999999"', b"99999",
)
_NUMBER = re.compile(rb"-?\d+(\.\d+)?")


def flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]


def insert(rng: random.Random, data: bytes) -> bytes:
    i = rng.randrange(len(data) + 1)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return data[:i] + junk + data[i:]


def delete(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 40):]


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def duplicate_line(rng: random.Random, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"".join(lines)


def swap_lines(rng: random.Random, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    if len(lines) < 2:
        return data
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def edge_value(rng: random.Random, data: bytes) -> bytes:
    """A number of the file replaced by an edge value, or an edge value put anywhere."""
    value = rng.choice(EDGE_VALUES)
    numbers = list(_NUMBER.finditer(data))
    if numbers and rng.random() < 0.7:
        m = rng.choice(numbers)
        return data[: m.start()] + value + data[m.end():]
    i = rng.randrange(len(data) + 1)
    return data[:i] + value + data[i:]


def crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def bom(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


MUTATORS: tuple[Callable[[random.Random, bytes], bytes], ...] = (
    flip, flip, insert, delete, truncate, duplicate_line, swap_lines, edge_value, edge_value,
    edge_value, crlf, bom,
)


def splice(rng: random.Random, a: bytes, b: bytes) -> bytes:
    """The start of one valid file joined to the end of another."""
    return a[: rng.randrange(len(a) + 1)] + b[rng.randrange(len(b) + 1):]


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One to four mutations of ``data``; sometimes spliced with another valid file first."""
    if others and rng.random() < 0.15:
        data = splice(rng, data, rng.choice(others))
    for _ in range(rng.choice((1, 1, 1, 2, 3, 4))):
        data = rng.choice(MUTATORS)(rng, data)
    return data
