"""Minimal reproducers of compiler defects found while writing the product libraries
(schemas/blog, schemas/shop, schemas/saas). They were ``xfail(strict=True)``
until the compiler core was fixed; they stay as regression tests.

Each test states what a user would reasonably expect.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

ORG = """\
type Org { required name: str; }
type Member {
  required link org -> Org;
  required email: str;
  constraint exclusive on ((.org, .email));
}
"""


def plans(sources):
    return {q.name: q for q in check_library(sources, Options(library="t")).queries}


def test_unless_conflict_on_a_parenthesised_tuple():
    q = plans({"s.esdl": ORG,
               "q/add.edgeql": "insert Member { org := (select Org filter .id = <uuid>$org_id), email := <str>$email }\n"
                               "unless conflict on ((.org, .email));"})["add"]
    assert 'ON CONFLICT ("org_id", "email") DO NOTHING' in q.sql


def test_filter_on_an_exclusive_constraint_over_a_link_is_single():
    q = plans({"s.esdl": ORG,
               "q/rename.edgeql": "update Member filter .org = <uuid>$org_id and .email = <str>$email\n"
                                  "set { email := <str>$new_email };"})["rename"]
    assert q.cardinality == "at_most_one"


def test_the_arbiter_of_unless_conflict_is_not_listed_as_raisable():
    schema = "type User { required email: str { constraint exclusive; }; required handle: str { constraint exclusive; }; }"
    qs = plans({"s.esdl": schema,
                "q/on_email.edgeql": "insert User { email := <str>$email, handle := <str>$handle } unless conflict on .email;",
                "q/any.edgeql": "insert User { email := <str>$email, handle := <str>$handle } unless conflict;"})
    assert [ex.name for ex in qs["on_email"].exclusives] == ["uq_user_handle"]
    assert list(qs["any"].exclusives) == []


def test_cast_of_a_string_literal_to_an_enum_checks_the_member():
    schema = "scalar type Scope extending enum<'projects:read', 'billing'>;\ntype Key { scopes: array<Scope>; s: Scope; }"
    with pytest.raises(CompileError) as exc:
        plans({"s.esdl": schema,
               "q/q.edgeql": "update Key filter .id = <uuid>$id set { s := <Scope>'projects:raed' };"})
    assert [d.code for d in exc.value.diagnostics] == ["E0203"]


def test_decimal_literals_keep_their_digits():
    out = compile_library({"s.esdl": "type Account { balance: decimal { default := 12345678901234567890.123456789; }; }"},
                          Options(library="t"))
    assert "DEFAULT 12345678901234567890.123456789" in out["sql/000001_init.up.sql"]


def test_enums_of_the_same_name_in_two_modules():
    sources = {"s.esdl": "module default { enum Status { Open, Closed } type Ticket { status: Status; } }\n"
                         "module billing { enum Status { Draft, Paid } type Invoice { status: Status; } }\n"}
    try:
        out = compile_library(sources, Options(library="t"))
    except CompileError as e:  # refusing the collision by name is fine too
        assert [d.code for d in e.diagnostics] == ["E0207"]
        return
    assert out["ts/models.ts"].count("export const Status =") <= 1
    assert out["go/models.go"].count("type Status string") <= 1


def test_go_errors_are_gofmt_clean_for_long_constraint_names(tmp_path):
    gofmt = shutil.which("gofmt") or (str(Path(shutil.which("go")).with_name("gofmt")) if shutil.which("go") else None)
    if not gofmt or not Path(gofmt).exists():
        pytest.skip("gofmt is not on PATH")
    out = compile_library({"s.esdl": "module billing { type Payment { external_ref: str { constraint exclusive; }; } }"},
                          Options(library="t"))
    (tmp_path / "errors.go").write_text(out["go/errors.go"])
    listed = subprocess.run([gofmt, "-l", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    assert listed == ""
