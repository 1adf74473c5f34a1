"""A return known exactly, or as a float within a proven bound (issue 35). Pure: no I/O,
no numpy (the bet guard imports it before its analyzer is built).

``station.game.analysis.running`` values the values group in float64; these say whether
such an estimate settles the published figure (rounded half to even to six decimals, as
``station.game.betguard.published``) and the comparison with the guard's limit, or whether
the exact integers must.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

_SCALE: Final = 10**6  # station.game.betguard.RTP_DECIMALS

# A float sum of n non-negative terms errs by at most n * 2**-53 of its value (Higham,
# "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 4.4, any order of
# summation); n <= 5,005 multisets of one length, plus a handful of roundings. 1e-10 is
# that bound (5.6e-13) with a margin of a hundred and more.
RELATIVE_ERROR: Final = 1e-10


@dataclass(frozen=True, slots=True)
class Estimate:
    """A return known to lie within ``value * (1 ± RELATIVE_ERROR)``."""

    value: float


Valued = tuple[int, int] | Estimate  # exact (numerator, denominator), or a float estimate


def published_of(rtp: Valued) -> float | None:
    """The published figure (``betguard.published``) of ``rtp``, or None when an estimate
    lies too near a rounding boundary to say."""
    if not isinstance(rtp, Estimate):
        num, den = rtp
        q, r = divmod(num * _SCALE, den)
        if 2 * r > den or (2 * r == den and q % 2):
            q += 1
        return q / _SCALE
    slack = rtp.value * RELATIVE_ERROR + 1e-15
    low, high = round((rtp.value - slack) * _SCALE), round((rtp.value + slack) * _SCALE)
    return low / _SCALE if low == high else None


def over_limit(rtp: Valued, limit: Fraction, bound: float) -> bool | None:
    """Whether ``rtp`` is strictly over ``limit``, or None when an estimate cannot say;
    ``bound`` is ``float(limit)``, within 1e-16 of it: far inside the slack."""
    if not isinstance(rtp, Estimate):
        return rtp[0] * limit.denominator > limit.numerator * rtp[1]
    slack = rtp.value * RELATIVE_ERROR + 1e-15
    if rtp.value - slack > bound:
        return True
    if rtp.value + slack < bound:
        return False
    return None
