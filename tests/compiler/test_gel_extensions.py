"""Gel extensions (https://docs.geldata.com/reference/datamodel/extensions): ``using extension``
statements and the named arguments of extension index kinds parse as Gel writes them."""

from __future__ import annotations

import pytest

from schemac.compiler import Options, check_library
from schemac.diagnostics import CompileError
from schemac.parser import parse_schema


def diagnose(sources):
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="t"))
    return exc.value, exc.value.render(sources)


def test_using_extension_parses_with_and_without_version():
    f = parse_schema("s.esdl", "using extension pgvector;\nusing extension auth version '1.0';\n"
                     "module default { type T { a: str; } }\n")
    assert [(e.name, e.version, e.span.line, e.span.col) for e in f.extensions] == [
        ("pgvector", None, 1, 1), ("auth", "1.0", 2, 1)]


def test_index_arguments_parse_and_are_refused_on_kinds_without_arguments():
    f = parse_schema("s.esdl", "type T { a: str; index pg::gin(lists := 3, m := 16) on (.a); }\n")
    (ix,) = f.types[0].indexes
    assert [(name, span.col) for name, _, span in ix.args] == [("lists", 32), ("m", 44)]
    _, text = diagnose({"t/s.esdl": "type T { a: str; index pg::gin(lists := 3) on (.a); }\n"})
    assert "t/s.esdl:1:32: error[E0206]: index kind 'pg::gin' takes no arguments" in text
