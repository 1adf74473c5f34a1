"""Dealer-station controller for live baccarat tables.

The packages are layers, bottom up, each importing only those below it: ``game`` (pure
baccarat and its money), ``table`` (the pure machine, ``Station.apply``), ``settings`` (the
config's values and input files), ``wire`` (the contract on the wire), ``client``,
``journal``, ``upstream``, ``web``, ``kinds``, ``live`` (one table's process), ``services``
(pit, archive, fleet), ``commands`` and ``cli``; docs/architecture.md "Layers" says why, and
tests/core/test_layering.py holds the order. Drivers live in the sibling ``drivers`` package
and never import this one.
"""

__version__ = "0.1.0"
