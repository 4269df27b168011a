"""The conformance runner's own parts, without a database: the comparison follows Gel's
harness (geldata/gel edb/common/assert_data_shape.py: lists in order, sets sorted, bags in any
order, dicts by the expected keys, floats with a relative tolerance), the script splitter and
the schema reduction."""

from __future__ import annotations

import pytest

import conformance_harness as h


def _ok(data, expected, **kw):
    h.assert_shape(data, h.decode(expected), **kw)


def _bad(data, expected):
    with pytest.raises(h.Mismatch):
        h.assert_shape(data, h.decode(expected))


def test_lists_are_ordered_and_complete():
    _ok([1, 2], [1, 2])
    _bad([2, 1], [1, 2])
    _bad([1], [1, 2])
    _bad([1, 2, 3], [1, 2])
    _bad([], [1])
    _ok([], [])


def test_sets_are_sorted_bags_any_order():
    _ok([2, 1, 3], {"$set": [1, 2, 3]})
    _bad([2, 1], {"$set": [1, 2, 3]})
    _ok([{"a": 2}, {"a": 1}], {"$bag": [{"a": 1}, {"a": 2}]})
    _bad([{"a": 2}, {"a": 2}], {"$bag": [{"a": 1}, {"a": 2}]})
    _bad([{"a": 1}, {"a": 2}, {"a": 3}], {"$bag": [{"a": 1}, {"a": 2}]})


def test_dicts_by_expected_keys_and_placeholders():
    _ok([{"id": "5b0e2c1a-3e4f-11ec-9bbc-0242ac130002", "name": "x", "extra": 1}],
        [{"id": {"$type": "uuid"}, "name": "x"}])
    _bad([{"name": "x"}], [{"name": "x", "n": 1}])
    _bad([{"id": "nope"}], [{"id": {"$type": "uuid"}}])
    _ok([1, 1, 1], [1, {"$ellipsis": 1}])
    _bad([True], [1])
    _bad([None], [[]])


def test_floats_close_and_decimals():
    from decimal import Decimal

    _ok([0.30000001], [0.3])
    _bad([0.31], [0.3])
    _ok([Decimal("1.5")], [{"$decimal": "1.5"}])
    _ok([Decimal("2")], [2])


def test_sort_like_gel():
    data = [{"n": "b", "l": [3, 1]}, {"n": "a", "l": [2, 1]}]
    h.sort_results(data, {"fields": {".": {"key": [["n"]], "tuple": False}, "l": True}})
    assert data == [{"n": "a", "l": [1, 2]}, {"n": "b", "l": [1, 3]}]


def test_split_statements():
    script = """insert A { s := 'a;b' }; # c;d
    select B { x := (select 1; ) } ; select "q;" ++ r'\\'; select $$;$$"""
    assert h.split_statements(script) == [
        "insert A { s := 'a;b' }", "select B { x := (select 1; ) }", 'select "q;" ++ r\'\\\'', "select $$;$$"]


def test_remove_declaration_is_the_innermost_statement():
    text = "module default {\n  type A {\n    required l: B {\n      note: str;\n    }\n    n: str;\n  }\n}\n"
    out, removed = h.remove_declaration(text, 4, 7)
    assert removed.strip() == "note: str;"
    assert out.count("\n") == text.count("\n") and "required l: B" in out and "note" not in out
    out, removed = h.remove_declaration(text, 3, 5)
    assert removed.strip().startswith("required l: B {") and removed.strip().endswith("}")
    assert "n: str;" in out
    assert h.remove_declaration(text, 1, 1) is None
