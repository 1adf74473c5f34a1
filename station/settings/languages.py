"""The languages the station's people read, one registry line each. Pure.

A language is a BCP 47 tag (``en``, ``zh-Hans``, ``zh-Hant``) with the CLDR locale Babel
formats its numbers and plural forms by, and the tag the pages put in ``<html lang>``. Its
words are two gettext catalogues beside this module, one per side: ``locale/<tag>/station.po``
(the sentences the Python side renders: instructions, pause reasons, notices) and
``locale/<tag>/pages.po`` (the pages' own labels, handed to their scripts as JSON). Adding a
language is those two files and one line here (docs/architecture.md, "Where each change goes").

``zh`` stays an alias of ``zh-Hans`` (configs written before tags were taken); tags are
matched without regard to case, as BCP 47 says they compare (``zh-hant`` is ``zh-Hant``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Language:
    tag: str  # BCP 47, as the config and the pages' ?lang= write it
    name: str  # its own name, for a page's language switch
    locale: str  # the CLDR locale (Babel's identifier): number formats, plural rules

    @property
    def translated(self) -> bool:
        """Whether the page says the station's English sentences (its notices, a pause's
        actions) in this language's words rather than as the station wrote them."""
        return self.tag != DEFAULT


LANGUAGES: Final = {lang.tag: lang for lang in (
    Language("en", "English", "en"),
    Language("zh-Hans", "简体中文", "zh_Hans_CN"),
    Language("zh-Hant", "繁體中文", "zh_Hant_HK"),
)}
ALIASES: Final = {"zh": "zh-Hans"}
DEFAULT: Final = "en"
_BY_FOLDED: Final = {t.casefold(): t for t in (*LANGUAGES, *ALIASES)}


def tag_of(text: str) -> str | None:
    """The registered tag ``text`` names (an alias resolved, case ignored), or None."""
    tag = _BY_FOLDED.get(text.strip().casefold())
    return None if tag is None else ALIASES.get(tag, tag)


def language(tag: str) -> Language:
    """The language of ``tag`` (any spelling ``tag_of`` takes); the default for any other."""
    return LANGUAGES[tag_of(tag) or DEFAULT]


def accepted() -> tuple[str, ...]:
    """Every spelling the config takes, tags first, then aliases."""
    return (*LANGUAGES, *ALIASES)
