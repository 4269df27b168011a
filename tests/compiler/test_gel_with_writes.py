"""An update or a delete of a ``with``-bound selection (https://docs.geldata.com/reference/edgeql/with,
https://docs.geldata.com/reference/edgeql/update): ``with t := (select T filter f) update t
[filter g] set {...}`` writes the selection's objects, the same statement as ``update T filter f
and g set {...}``. Run on PostgreSQL 15 through the runners in tests/e2e/test_sdl_forms_e2e.py."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = "type Member { required name: str; nick: str; }"


def _sql(query: str) -> str:
    lib = check_library({"s.esdl": SCHEMA, "q/q.edgeql": query}, Options(library="c"))
    return lib.queries[0].sql


@pytest.mark.parametrize("bound, plain", [
    ("with m := (select Member filter .nick = <str>$nick) update m filter .name != 'x' set { nick := 'y' };",
     "update Member filter .nick = <str>$nick and .name != 'x' set { nick := 'y' };"),
    ("with m := (select Member filter .nick = <str>$nick) delete m;",
     "delete Member filter .nick = <str>$nick;"),
    ("with module default, m := (select Member filter .name = <str>$n) update m set { nick := 'y' };",
     "update Member filter .name = <str>$n set { nick := 'y' };"),
])
def test_a_write_of_a_bound_selection_is_the_write_of_its_objects(bound, plain):
    assert _sql(bound) == _sql(plain)


def test_a_paged_selection_is_refused_where_it_is_written():
    query = "with m := (select Member order by .name limit 1) update m set { nick := 'y' };"
    with pytest.raises(CompileError) as e:
        check_library({"s.esdl": SCHEMA, "q/q.edgeql": query}, Options(library="c"))
    assert [(d.code, d.message, d.span.col) for d in e.value.diagnostics] == [
        ("E0206", "an update of 'm', which orders or pages its objects, is not supported yet", 57)]
