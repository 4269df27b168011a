"""Access policies in the IR are checked nodes, not SQL text (issue 26 step 2): the checker
(``schemac.semantics.policies``) builds ``qir.Visible`` / ``qir.PolicyCheck`` /
``qir.JoinRowVisible`` / ``qir.UpsertCheck`` holding each policy's checked ``when`` / ``using``
over the row a use reads, and only the lowering (``schemac.pgsql.policies``) writes their SQL.

The semantics are Gel's (https://docs.geldata.com/reference/datamodel/access_policies): a row is
visible when one ``allow`` policy of each kind holds and no ``deny`` does; a refused write fails
with SQLSTATE SCP01, a required link whose target the policies hide with SCP02 (Gel's
"required link ... is hidden by access policy", tests/test_edgeql_policies.py
``test_edgeql_policies_05a``). The e2e policy suite (tests/e2e/test_policy_suite_e2e.py) proves
the SQL on Postgres; this pins the IR's shape and the split."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

from schemac.pipeline import check_library
from schemac.semantics import qir
from schemac.semantics.library import Options

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import policy_suite  # noqa: E402

#: The IR fields that hold access policies (each a node, or a tuple of them per hop).
POLICY_FIELDS = ("visible", "check", "else_visible", "returning_check")

QUERIES = {
    "shape": "select Comment { text, target: { body }, targets: { body } };",
    "link_id": "select Comment { text, target };",
    "path": "select Comment { t := .target.body, o := .target.owner.name };",
    "count_poly": "select Fav { n := count(.items), e := exists .items, s := exists .item };",
    "required": "select Pin { label, rt: { body } };",
    "insert": "insert Comment { text := <str>$t };",
    "upsert": ("insert Comment { text := <str>$t } unless conflict on .text "
               "else (update Comment set { text := <str>$t ++ '!' });"),
    "update": "update Secret filter .body = <str>$b set { body := 'x' };",
    "delete": "delete Secret filter .body = <str>$b;",
}


def _statements():
    sources = {"schema.gel": policy_suite.SCHEMA}
    sources.update({f"queries/{name}.edgeql": text for name, text in QUERIES.items()})
    lib = check_library(sources, Options(library="policy_ir"))
    return {q.name: q for q in lib.queries}


def _policy_values(node):
    for f in dataclasses.fields(node):
        if f.name in POLICY_FIELDS:
            v = getattr(node, f.name)
            yield from (v if isinstance(v, tuple) else (v,))


def test_every_policy_field_holds_a_node():
    found = set()
    for name, q in _statements().items():
        for n in qir.walk(q.ir.statement):
            for v in _policy_values(n):
                assert v is None or isinstance(v, qir.Expr), (name, type(n).__name__, v)
                if v is not None:
                    found.add(type(v).__name__)
                    if isinstance(v, qir.PolicyCheck):
                        found.add(v.sqlstate)
                        assert v.visible.rules is not None
    assert {"Visible", "PolicyCheck", "JoinRowVisible", "UpsertCheck", "SCP01", "SCP02"} <= found, found


def test_visible_keeps_the_checked_conditions_and_the_row():
    q = _statements()["shape"]
    shape_link = next(n for n in qir.walk(q.ir.statement) if type(n) is qir.ShapeLink and n.link.name == "target")
    v = shape_link.visible
    assert type(v) is qir.Visible and v.subject.name == "Secret" and v.kinds == ("select",)
    (allows, denies), = v.rules
    assert denies == () and [r.policy.name for r in allows] == ["own"]
    cond, = allows[0].conds
    # `.owner.id ?= global cur`, checked over the row the SQL around it names `row`
    assert isinstance(cond, qir.Expr) and cond.type.family == "bool"
    assert any(isinstance(n, qir.ColumnRef) and n.qualifier == v.row for n in qir.walk(cond))
    assert "_s" in v.row
    sql = q.sql
    assert f"{v.row}.owner_id IS NOT DISTINCT FROM $1" in sql


def test_update_joins_its_kinds():
    q = _statements()["update"]
    upd = next(n for n in qir.walk(q.ir.statement) if type(n) is qir.Update)
    assert upd.visible.kinds == ("select", "update read")
    assert upd.check.sqlstate == "SCP01" and upd.check.action == "update" and upd.check.visible.row == '"_new"'
    assert "schemac_raise('SCP01'" in q.sql


def test_the_checker_side_writes_no_policy_sql():
    """semantics/policies.py imports neither the lowering nor SQL names, and holds no SQL."""
    path = ROOT / "pants-plugins" / "schemac" / "semantics" / "policies.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name if isinstance(n, ast.Import) else f"{n.module}.{a.name}"
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert not any("lowering" in m or "pgsql" in m or "sqlnames" in m or "sqltree" in m for m in imported), imported
    text = path.read_text(encoding="utf-8")
    for word in ("CASE WHEN", "EXISTS (", "COALESCE(", "schemac_raise(", "json_build_object"):
        assert word not in text, word


RECURSIVE = """module default {
  global cur: uuid;
  type User { required name: str;
    access policy seen allow all using (exists .<owner[is Secret]); }
  type Secret { required owner: User; body: str;
    access policy own allow all using (.owner.id ?= global cur and .owner.name != ''); }
  type Log { required msg: str; data: json; }
  type Comment { required text: str; target: Secret;
    trigger log after insert for each when (__new__.target.body = 'x') do (
      insert Log { msg := __new__.text, data := <json>__new__ { text, target: { body } } });
    trigger chk after update for each do (
      assert(exists (select Secret filter .body = __new__.text), message := 'no secret'));
  }
}
"""


def test_a_policy_is_not_applied_inside_a_policy_nor_in_a_trigger():
    """Policies of other types are not applied inside a policy's own conditions (a policy never
    recurses: Secret's reads User through .owner, whose policy reads Secret back), nor in what
    a trigger runs in the database (semantics/policies.py's docstring)."""
    from schemac.pipeline import render_library

    sources = {"schema.gel": RECURSIVE, "queries/q.edgeql": "select Comment { text, target: { body } };"}
    lib = check_library(sources, Options(library="policy_rec"))
    q = lib.queries[0]
    visibles = [n.visible for n in qir.walk(q.ir.statement) if type(n) is qir.ShapeLink]
    assert visibles and all(type(v) is qir.Visible for v in visibles)
    for v in visibles:
        for allows, denies in v.rules:
            for rule in allows + denies:
                for cond in rule.conds:
                    inner = [type(n).__name__ for n in qir.walk(cond)
                             if type(n) in (qir.Visible, qir.PolicyCheck, qir.JoinRowVisible)]
                    assert inner == [], inner
    assert q.sql.count("owner_id IS NOT DISTINCT FROM") == 1
    migration = render_library(lib, sources)["sql/000001_init.up.sql"]
    assert "CREATE TRIGGER" in migration or "CREATE OR REPLACE TRIGGER" in migration
    assert "IS NOT DISTINCT FROM" not in migration and "schemac_raise('SCP" not in migration


def test_no_ir_field_holds_policy_sql():
    """Every IR field of an access policy is typed as a node (``Optional[Expr]``, a tuple of
    them per hop, or ``Visible``): a new node must not bring back a ``visible_sql: str``."""
    bad = []
    for name, cls in vars(qir).items():
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            continue
        for f in dataclasses.fields(cls):
            annotation = str(f.type)
            if f.name.endswith("_sql") and ("visib" in f.name or "check" in f.name):
                bad.append(f"{name}.{f.name}")
            elif f.name in POLICY_FIELDS and "Expr" not in annotation and "Visible" not in annotation:
                bad.append(f"{name}.{f.name}: {annotation}")
    assert bad == [], bad
