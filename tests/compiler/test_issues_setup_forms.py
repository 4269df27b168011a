"""Two forms of Gel's own setup script tests/schemas/issues_setup.edgeql (geldata/gel), which
loads the fixture of test_edgeql_select/scope/filter/group/policies/functions...:

* ``owner := (SELECT User FILTER User.name = 'Elvis')``: inside the sub-select the type's name
  is its subject (https://docs.geldata.com/reference/edgeql/paths), so ``User.name`` is
  ``.name``, and an exclusive ``name`` (here a ``delegated constraint exclusive`` of the
  abstract base) pins one object (was E0206 "may select several");
* ``time_spent_log := (SELECT LogEntry)``: a multi link to every object of the type (was E0206
  "a select of an expression");
* ``multi references: File | URL | Publication { list_order: int64 }``: a link to a union of
  types (https://docs.geldata.com/reference/datamodel/links) is a polymorphic link to their
  concrete types (was E0206), and ``references := (SELECT URL FILTER ...) UNION (SELECT File
  FILTER ...)`` in an insert links the objects of each operand;
* ``WITH I := DETACHED Issue INSERT Issue { related_to := (SELECT I FILTER I.number = '2') }``:
  a ``with`` name is computed in a scope of its own, so ``detached`` changes nothing there (was
  E0302 "unknown name").

On PostgreSQL 15 with data."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  abstract type Named { required name: str; }
  abstract type Dictionary extending Named {
    overloaded required name: str { delegated constraint exclusive; }
  }
  type User extending Dictionary;
  type Status extending Dictionary;
  type LogEntry { required body: str; }
  type File extending Named;
  type URL extending Named { required address: str; }
  type Publication { required title: str; }
  type Issue {
    required title: str { constraint exclusive; }
    required owner: User;
    multi time_spent_log: LogEntry;
    multi references: File | URL | Publication { list_order: int64; };
    multi related_to: Issue;
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/add.edgeql": "insert Issue { title := <str>$t, owner := (select User filter User.name = <str>$u), "
                    "time_spent_log := (select LogEntry) };",
    "q/refs.edgeql": "with I := detached Issue insert Issue { title := 'two', owner := (select User filter "
                     ".name = 'Elvis'), references := (select URL filter URL.address = 'https://a') union "
                     "(select File filter File.name = 'f.png'), related_to := (select I filter I.title = 'one') };",
    "q/show.edgeql": "select Issue { title, references: { id }, related_to: { title } } "
                     "filter .title = 'two';",
}


def test_issues_setup_forms_on_postgres(pg):
    out = compile_library(SOURCES, Options(library="isf"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("""INSERT INTO "user" (name) VALUES ('Elvis'), ('Yury');
                  INSERT INTO log_entry (body) VALUES ('a'), ('b');""")
    plan = next(q for q in check_library(SOURCES, Options(library="isf")).queries if q.name == "add")
    pg.execute(plan.sql.replace("$1", "%(t)s").replace("$2", "%(u)s"), {"t": "one", "u": "Yury"})
    assert pg.execute('SELECT i.title, u.name, (SELECT count(*) FROM issue_time_spent_log l WHERE l.source_id = i.id) '
                      'FROM issue i JOIN "user" u ON u.id = i.owner_id') == [("one", "Yury", 2)]
    pg.execute("""INSERT INTO url (name, address) VALUES ('a', 'https://a'), ('b', 'https://b');
                  INSERT INTO file (name) VALUES ('f.png'), ('g.png');
                  INSERT INTO publication (title) VALUES ('p');""")
    plans = {q.name: q for q in check_library(SOURCES, Options(library="isf")).queries}
    pg.execute(plans["refs"].sql)
    rows = pg.execute(plans["show"].sql)
    assert len(rows) == 1 and rows[0][0] == "two"
    linked = {r["id"] for r in rows[0][1]}
    assert linked == {str(r[0]) for r in pg.execute("SELECT id FROM url WHERE name = 'a' UNION ALL "
                                                    "SELECT id FROM file WHERE name = 'f.png'")}
    assert rows[0][2] == [{"title": "one"}]


def test_another_type_name_does_not_pin():
    """``(select User filter Status.name = 'x')``: ``Status`` is every Status object, not the
    subject: nothing is pinned (refused, as before)."""
    src = dict(SOURCES, **{"q/add.edgeql": "insert Issue { title := 'x', owner := (select User filter "
                                           "Status.name = 'Open') };"})
    with pytest.raises(CompileError):
        check_library(src, Options(library="isf"))
