"""A spelling of a standard-library call (see :mod:`schemac.pgsql.calls`): the one type every
table of ``schemac.pgsql.calls_*`` uses, apart from the table that merges them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from schemac.semantics import qir


@dataclass(frozen=True)
class Spelling:
    """A call's SQL: ``template`` over the arguments rendered per ``modes`` (see the module
    docstring); ``atomic`` when it needs no parentheses as an operand."""

    template: str
    modes: str = "r"
    atomic: bool = True


Entry = Union[Spelling, Callable[[qir.Call], Spelling]]
