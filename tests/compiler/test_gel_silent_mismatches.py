"""Forms that compiled to a different answer than Gel's (tests/conformance/known_mismatches.txt)
and are now refused with a located E0206 naming the form, as the conformance rule asks: a
compiled query returns Gel's answer or is refused."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Item {
    required name: str;
    multi tag_set1: str;
    tag: str;
    property upper := str_upper(.name);
  }
}
"""


def _errors(query: str):
    src = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        check_library(src, Options(library="lib"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in e.value.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("query, message, col", [
    # geldata/gel tests/test_edgeql_linkatoms.py test_edgeql_links_map_scalars_01..03: Gel orders,
    # slices and filters the values; schemac returned them all, unordered
    ("select Item { name, tag_set1 order by Item.tag_set1 desc };",
     "'order by' on the property 'tag_set1' in a shape is not supported yet", 21),
    ("select Item { tag_set1 order by Item.tag_set1 limit 1 };",
     "'order by' / 'limit' on the property 'tag_set1' in a shape is not supported yet", 15),
    ("select Item { tag_set1 offset 1 };", "'offset' on the property 'tag_set1' in a shape is not supported yet", 15),
    ("select Item { tag filter Item.tag > 'p' };", "'filter' on the property 'tag' in a shape is not supported yet",
     15),
    ("select Item { upper filter Item.upper > 'p' };",
     "'filter' on the property 'upper' in a shape is not supported yet", 15),
])
def test_property_element_clauses_are_refused(query, message, col):
    assert _errors(query) == [("E0206", message, 1, col)]
