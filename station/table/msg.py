"""A message id and its parameters: what the station means to say, in no language. Pure.

The station's own English sentences stay what the journal, the log and the upstream messages
carry (their bytes are the contract); what a person reads on a page is rendered from the
``Msg`` beside them through the page's language catalogue (``station.web.catalogue``).
A parameter is a string shown as it is (a card code, an id), an int or float (formatted by
the language), or a nested ``Msg`` (a hand's name, a round's tag). ``count`` picks the
plural form.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Msg:
    id: str
    params: tuple[tuple[str, object], ...] = ()


def msg(id_: str, /, **params: object) -> Msg:
    return Msg(id_, tuple(params.items()))
