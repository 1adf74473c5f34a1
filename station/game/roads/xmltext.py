"""Text and attribute values for the SVG, escaped as ``xml.sax.saxutils`` escapes them.

Written here because importing ``xml.sax.saxutils`` brings in ``urllib`` and ``http.client``
(about 40 ms) on every start of ``station roads``, for two string functions.
tests/cli/test_startup.py holds both to the standard library's on any text.
"""

from __future__ import annotations

_WHITESPACE = (("\n", "&#10;"), ("\r", "&#13;"), ("\t", "&#9;"))


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities (``&`` first, so nothing is escaped twice)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """An attribute value with its quotes: escaped, line breaks and tabs as character
    references, in double quotes unless it holds only double quotes."""
    text = escape(text)
    for char, ref in _WHITESPACE:
        text = text.replace(char, ref)
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"{}"'.format(text.replace('"', "&quot;"))
