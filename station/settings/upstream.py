"""What the ``upstream:`` section shares with the tools around it: the rule for a command
key's name (its sender), which ``station keygen``, the pit and the archive hold to as well.

The section's values are ``station.settings.configmodel.UpstreamConfig`` (the key every
outlet shares) and each outlet kind's own settings, declared beside its code
(``station.kinds.outlets``).
"""

from __future__ import annotations

import re

KEY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
