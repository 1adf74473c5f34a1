"""Words from message ids: one gettext catalogue per language and side, read with Babel.

Code says what to say as a message id and its parameters (``station.table.msg.Msg``); this
module renders it in a language through that language's catalogue
(``station/web/locale/<tag>/station.po``; the pages' labels are ``pages.po``, handed to their
scripts by ``page_words``). A parameter is a string kept verbatim (a card code, an id, a
name), a number formatted by the language's CLDR locale, or another ``Msg`` rendered first in
the same language (a hand, a round's tag). A message with a ``count`` parameter has plural
forms, chosen by the catalogue's own ``Plural-Forms`` header.

The catalogues are ``.po`` files read at first use (``babel.messages.pofile.read_po``) and
compiled in memory (``babel.messages.mofile.write_mo``) into a ``babel.support.Translations``,
rather than ``.mo`` files compiled at build: the package has no build step of its own
(setuptools copies package data as it is), the checkout runs the same files the wheel ships,
and reading the few hundred messages takes a few milliseconds once per process.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

from station.settings.languages import ALIASES, LANGUAGES, language
from station.table.msg import Msg

SIDES = ("station", "pages")


@dataclass(frozen=True, slots=True)
class Loaded:
    catalog: Catalog
    translations: Translations


def _po_text(tag: str, side: str) -> str:
    return resources.files("station.web").joinpath(
        f"locale/{tag}/{side}.po").read_text(encoding="utf-8")


@cache
def loaded(tag: str, side: str = "station") -> Loaded:
    """``tag``'s catalogue of ``side`` (``station`` or ``pages``), read and compiled once."""
    lang = language(tag)
    catalog = read_po(io.StringIO(_po_text(lang.tag, side)), locale=lang.locale, domain=side)
    mo = io.BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return Loaded(catalog, Translations(mo, domain=side))


def _param(value: object, tag: str) -> str:
    if isinstance(value, Msg):
        return render(value, tag)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return _number(value, language(tag).locale)


@lru_cache(maxsize=4096)
def _number(value: float, locale: str) -> str:
    # Numbers by the locale, without grouping: a round, a count or seconds read as digits
    # (1234 cards is "1234", as the station has always said it).
    return format_decimal(value, locale=locale, group_separator=False)


@lru_cache(maxsize=8192)  # a view renders the same few instructions again and again
def render(msg: Msg, tag: str) -> str:
    """``msg`` in the language ``tag``. An id its catalogue lacks renders as the id itself
    (the tests fail on any such id, so no page shows one)."""
    t = loaded(language(tag).tag).translations
    params = {k: _param(v, tag) for k, v in msg.params}
    count = dict(msg.params).get("count")
    text = (t.ungettext(msg.id, msg.id, count) if isinstance(count, int)
            else t.ugettext(msg.id))
    return text.format_map(_Params(params)) if params else text


class _Params(dict[str, str]):
    """``{x}`` is the parameter x; ``{X}`` (its first letter a capital) the same with its
    first letter a capital, for a parameter that begins an English sentence (``{Device} is
    back``: "The card scanner is back")."""

    def __missing__(self, key: str) -> str:
        low = key[:1].lower() + key[1:]
        if low != key and low in self:
            said = self[low]
            return said[:1].upper() + said[1:]
        raise KeyError(key)


def ids(tag: str, side: str = "station") -> frozenset[str]:
    """Every message id of ``tag``'s catalogue of ``side``."""
    return frozenset(str(m.id if isinstance(m.id, str) else m.id[0])
                     for m in loaded(tag, side).catalog if m.id)


def page_words(tag: str) -> dict[str, Any]:
    """The pages' labels in ``tag``, as their scripts take them: ``words`` (id -> text, or
    its list of plural forms), ``plural`` (the catalogue's plural expression in ``n``, C
    syntax, which a script evaluates as it is), the tag and its locale."""
    lang = language(tag)
    cat = loaded(lang.tag, "pages").catalog
    words: dict[str, str | list[str]] = {}
    for m in cat:
        if not m.id:
            continue
        key = m.id if isinstance(m.id, str) else m.id[0]
        words[key] = list(m.string) if isinstance(m.string, tuple | list) else str(m.string)
    return {"tag": lang.tag, "html": lang.tag, "plural": cat.plural_expr,
            "nplurals": cat.num_plurals, "words": words}


def all_page_words() -> Mapping[str, dict[str, Any]]:
    """Every language's labels by tag, and by each alias (``zh``) too."""
    words = {tag: page_words(tag) for tag in LANGUAGES}
    return {**words, **{alias: words[tag] for alias, tag in ALIASES.items()}}


def text(id_: str, tag: str) -> str:
    """The catalogue's text of ``id_`` in ``tag``, its placeholders left for the caller."""
    return loaded(language(tag).tag).translations.ugettext(id_)
