"""Layer 9, the kinds: the pluggable kinds: card readers, cut-card sensors, upstream outlets and
displays.

Each kind lives in its own module here (beside its driver under ``drivers/``) and is one
line of ``station.kinds.registry``. See docs/architecture.md for where each change goes.
"""
