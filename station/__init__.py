"""Dealer-station controller for live baccarat tables.

Pure domain modules (``cards``, ``rules``, ``outcome``, ``shoe``) do no I/O; the edges
(``recording``, ``sinks``, ``display``, ``daemon``, ``cli``) do. Drivers live in the sibling
``drivers`` package and never import this one.
"""

__version__ = "0.1.0"
