"""Spellings of the calls the statement checker (:mod:`schemac.semantics.queries`) names: the
values it writes to a column or a link (https://docs.geldata.com/reference/edgeql/insert,
https://docs.geldata.com/reference/edgeql/update). See :mod:`schemac.pgsql.calls` for what an
entry is; the result type is the call's ``type`` (its ``pg``), never spelled by the checker."""

from __future__ import annotations

from typing import Dict

from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir


def _set_of_one(node: qir.Call) -> Spelling:
    """``nicknames := <str>$n``: a multi property (an array column) holds the value, none when
    it is empty (https://docs.geldata.com/reference/datamodel/properties#multi); the value cast
    to its own type (``args[0].type``)."""
    arg = node.args[0]
    if arg.nullable:
        return Spelling(f"array_remove(ARRAY[CAST({{0}} AS {arg.type.pg})], NULL)", "r", False)
    return Spelling(f"ARRAY[CAST({{0}} AS {arg.type.pg})]", "r", False)


STMT: Dict[str, Entry] = {
    # a multi property's value of one (maybe empty) element; an array that may be empty: none
    "multi/of_one": _set_of_one,
    "multi/or_none": lambda n: Spelling(f"coalesce({{0}}, CAST(ARRAY[] AS {n.type.pg}))", "p"),
    # a multi link's ids: the one object of a `with` binding (none when it is empty), or none
    "link_ids/of_one": Spelling("array_remove(ARRAY[{0}], NULL)", "p"),
    "link_ids/none": lambda n: Spelling(f"'{{{{}}}}'::{n.type.pg}"),
    # an empty value of the call's type (another subtype's column of a polymorphic link)
    "typed_null": lambda n: Spelling(f"NULL::{n.type.pg}"),
    # a get-or-insert link value: the object found, else the one inserted (never empty)
    "found_or_inserted": Spelling("COALESCE({0}, {1})"),
    # `if c then f1 else f2` of filters over multi links: the branch the condition picks
    "filter/if_else": Spelling("CASE ({0}) WHEN true THEN {1} WHEN false THEN {2} END", "p"),
    # a number of a set literal widened to the set's type (`{1, 2.5}`)
    "set/widen": lambda n: Spelling(f"CAST({{0}} AS {n.type.pg})", "p"),
}
