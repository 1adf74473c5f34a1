"""docs/upstream.md stays true: its examples verify with its own snippet and key, and
validate against the schemas."""

from __future__ import annotations

import re

from station.wire.schema import COMMAND, validate
from tests.conftest import REPO

DOC = (REPO / "docs" / "upstream.md").read_text()


def test_every_example_verifies_with_the_documented_snippet_and_key() -> None:
    snippet = re.search(r"```python\n(import base64.*?)```", DOC, re.S)
    pem = re.search(r"-----BEGIN PUBLIC KEY-----\n.*?\n-----END PUBLIC KEY-----\n", DOC, re.S)
    assert snippet and pem
    code = snippet.group(1).replace('open("signing-key.pub.pem", "rb").read()', "PEM")
    scope: dict[str, object] = {"PEM": pem.group(0).encode()}
    exec(code, scope)  # the snippet exactly as a game-server developer copies it
    examples = re.findall(r"```json\n(.*?)\n```", DOC)
    # two of the bet guard (issue 25), three of the procedures (22), the archive's archived,
    # one config_changed and the journal mirror (24), sealed and opened (32), the archive's
    # resend (33)
    assert len(examples) == 34
    for text in examples:
        msg = scope["verified"](text.encode())  # type: ignore[operator]
        assert isinstance(msg, dict)
        validate(text.encode(), COMMAND if "action" in msg and "kind" not in msg else None)
