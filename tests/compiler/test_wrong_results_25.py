"""The ten silent wrong results of issue 25, each checked against Gel's answer (on Postgres 15 with
data where it is about results), one test per item; each failed before its fix.

Gel's rule of each is cited in its test."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options


def _compile(sources):
    return compile_library(sources, Options(library="w"))


def _plans(sources):
    return {q.name: q for q in check_library(sources, Options(library="w")).queries}


def _migrate(pg, sources):
    pg.execute(_compile(sources)["sql/000001_init.up.sql"])


def _run(pg, plan, *args):
    """``plan``'s statement with ``args`` as $1, $2, ... (in any order in the text)."""
    if not args:
        return pg.execute(plan.sql)
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})


def _error(sources) -> "CompileError":
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="w"))
    return e.value


# -- 8. to_str formats are text, never Python format strings ----------------------------------


def test_08_to_str_format_is_text_not_a_python_format(pg):
    """``to_str(value, fmt)`` (https://docs.geldata.com/reference/stdlib/string#function::std::to_str)
    passes the format to Postgres' ``to_char``: ``'YYYY{'`` was read as a Python format string
    (a traceback), ``'{0}'`` was replaced by the value (SQL Postgres refuses)."""
    sources = {
        "s.esdl": "type T { required d: datetime; }",
        "q/brace.edgeql": "select T { s := to_str(.d, 'YYYY{') };",
        "q/placeholder.edgeql": "select to_str(<duration>'1 hour', '{0}');",
        "q/both.edgeql": "select to_str(<datetime>'2024-05-06T07:08:09Z', '{1}YYYY}{{');",
    }
    _migrate(pg, sources)
    pg.execute("INSERT INTO t (d) VALUES ('2024-01-02T03:04:05Z')")
    plans = _plans(sources)
    assert _run(pg, plans["brace"]) == [("2024{",)]
    assert _run(pg, plans["placeholder"]) == [("{0}",)]
    assert _run(pg, plans["both"]) == [("{1}2024}{{",)]


# -- 9. words are read whole: filterr'x' is the identifier filterr ---------------------------


def test_09_keyword_glued_to_a_word_is_one_identifier():
    """Gel's lexer reads the longest word (https://docs.geldata.com/reference/edgeql/lexical#identifiers),
    so ``filterr'x'`` is the identifier ``filterr`` followed by a string: a syntax error. The
    contextual lexer read the keyword ``filter`` and the raw string ``r'x'``, and the query
    compiled (and ``fmt`` turned it into ``filter r'x'``, a different query)."""
    from schemac.fmt import FormatError, format_source

    schema = "type Post { required title: str; }"
    for query, word in [("select Post { title } filterr'x' = .title;", "filterr"),
                        ("select Post { title } orderby .title;", "orderby"),
                        ("select Post { title } order by .title ascx;", "ascx"),
                        ("select Post { title } filter .title = 'a' orr .title = 'b';", "orr")]:
        err = _error({"s.esdl": schema, "q/q.edgeql": query})
        (d,) = err.diagnostics
        assert d.code.startswith("E01"), d
        assert f"'{word}'" in d.message
        assert (d.span.file, d.span.line, d.span.col) == ("q/q.edgeql", 1, query.index(word) + 1)
        with pytest.raises(FormatError):
            format_source("q/q.edgeql", query + "\n")
    # with a space it is Gel's keyword and raw string, and fmt keeps it so
    ok = "select Post { title } filter r'x' = .title;\n"
    assert format_source("q/q.edgeql", ok) == ok
    assert "WHERE 'x' = title" in _plans({"s.esdl": schema, "q/q.edgeql": ok})["q"].sql.replace('"', "")


# -- 1. -= on a multi property is the multiset difference -------------------------------------


def test_01_subtract_from_a_multi_property_removes_one_occurrence_per_element(pg):
    """geldata/gel tests/test_edgeql_update.py ``test_edgeql_update_subtract_non_distinct``:
    ``str_tags := ['1','1','2','3','2','2','3','4']``, then ``str_tags -= {'1','2','2','3','5'}``
    gives ``{'1','2','3','4'}`` (Gel's ``except`` is a multiset difference:
    https://docs.geldata.com/reference/edgeql/sets). schemac removed every copy (``['4']``)."""
    sources = {
        "s.esdl": "type T { required name: str; multi tags: str; }",
        "q/literal.edgeql": "update T filter .name = <str>$n set { tags -= {'1','2','2','3','5'} };",
        "q/param.edgeql": "update T filter .name = <str>$n set { tags -= array_unpack(<array<str>>$v) };",
        "q/one.edgeql": "update T filter .name = <str>$n set { tags -= <optional str>$v };",
        "q/read.edgeql": "select T { tags } filter .name = <str>$n;",
    }
    _migrate(pg, sources)
    start = ["1", "1", "2", "3", "2", "2", "3", "4"]
    for name in ("a", "b", "c", "d"):
        pg.execute("INSERT INTO t (name, tags) VALUES (%s, %s)", (name, start))
    plans = _plans(sources)
    _run(pg, plans["literal"], "a")
    _run(pg, plans["param"], "b", ["1", "2", "2", "3", "5"])
    _run(pg, plans["one"], "c", "2")
    _run(pg, plans["one"], "d", None)  # -= {} removes nothing
    tags = {n: _run(pg, plans["read"], n)[0][0] for n in "abcd"}
    assert sorted(tags["a"]) == ["1", "2", "3", "4"]
    assert sorted(tags["b"]) == ["1", "2", "3", "4"]
    assert sorted(tags["c"]) == ["1", "1", "2", "2", "3", "3", "4"]
    assert tags["d"] == start
    # the rest keep their order
    assert tags["a"] == ["1", "2", "3", "4"] and tags["c"] == ["1", "1", "3", "2", "2", "3", "4"]


# -- 2. constraint exclusive on a multi link ----------------------------------------------------


def test_02_exclusive_multi_link_holds_each_target_once(pg):
    """``std::exclusive`` on a multi link: "the set of values held by a link ... does not
    intersect with any other such set in any other object"
    (https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive): two users
    cannot hold one award (Gel: ConstraintViolationError). The constraint was dropped."""
    import psycopg

    sources = {
        "s.esdl": "type Award { required name: str; }\n"
                  "type User { required name: str; multi awards: Award { constraint exclusive; } }",
        "q/give.edgeql": "insert User { name := <str>$n, "
                         "awards := (select Award filter .id in array_unpack(<array<uuid>>$ids)) };",
    }
    out = _compile(sources)
    pg.execute(out["sql/000001_init.up.sql"])
    [(gold,)] = pg.execute("INSERT INTO award (name) VALUES ('gold') RETURNING id")
    [(silver,)] = pg.execute("INSERT INTO award (name) VALUES ('silver') RETURNING id")
    give = _plans(sources)["give"]
    _run(pg, give, "ann", [gold])
    _run(pg, give, "bob", [silver])
    with pytest.raises(psycopg.errors.UniqueViolation) as e:
        _run(pg, give, "cid", [silver])
    assert e.value.diag.constraint_name == "uq_user_awards_target_id"
    assert pg.execute("SELECT count(*) FROM \"user\"") == [(2,)]
    # the typed error of the runners, as for any exclusive constraint
    assert 'case "uq_user_awards_target_id":' in out["ts/errors.ts"]
    assert 'pgErr.ConstraintName == "uq_user_awards_target_id"' in out["go/errors.go"]
    # on a multi property (one array per object) a UNIQUE compared whole arrays: refused
    err = _error({"s.esdl": "type T {\n  multi tags: str { constraint exclusive; }; }"})
    assert [(d.code, d.span.line) for d in err.diagnostics] == [("E0206", 2)]
    # other constraints on a multi link are refused, not dropped
    err = _error({"s.esdl": "type Award { required name: str; }\n"
                            "type User { multi awards: Award { constraint max_len_value(3); } }"})
    assert [d.code for d in err.diagnostics] == ["E0206"]
    assert err.diagnostics[0].span.line == 2


# -- 5. objects of more than 50 fields: no call with more than 100 arguments -------------------


def test_05_nested_shapes_of_many_fields_run(pg):
    """A JSON object is one ``json_build_object`` call, and Postgres takes at most 100 arguments
    ("cannot pass more than 100 arguments to a function"): ``select Holder { big: {*} }`` over a
    type of 50+ properties compiled and failed when run. Objects of more keys are built in chunks
    (lowering.json_object_sql), keys in the shape's order (``{*}`` is every property,
    https://docs.geldata.com/reference/edgeql/select#splats), in nested shapes, multi links,
    named tuples, and a trigger's ``<json>__new__``."""
    n = 130
    props = " ".join(f"p{i}: {'int64' if i % 3 == 0 else 'str'};" for i in range(n))
    sources = {
        "s.esdl": f"type Big {{ {props}\n"
                  "  trigger log after insert for each do (insert Log { body := <json>__new__ {**} }); }\n"
                  "type Log { required body: json; }\n"
                  "type Holder { required name: str; big: Big; multi bigs: Big; }",
        "q/read.edgeql": "select Holder { name, big: {*}, bigs: {*} } order by .name;",
        "q/tuple.edgeql": "select (" + ", ".join(f"a{i} := {i}" for i in range(120)) + ");",
        "q/add.edgeql": "insert Holder { name := <str>$n, big := (select Big limit 1) };",
    }
    _migrate(pg, sources)
    cols = ", ".join(f"p{i}" for i in range(n))
    vals = ", ".join(str(i) if i % 3 == 0 else f"'v{i}'" for i in range(n))
    [(big,)] = pg.execute(f"INSERT INTO big ({cols}) VALUES ({vals}) RETURNING id")
    plans = _plans(sources)
    _run(pg, plans["add"], "h")
    pg.execute("INSERT INTO holder_bigs (source_id, target_id) SELECT id, %s FROM holder", (big,))
    [(name, one, many)] = _run(pg, plans["read"])
    want = {"id": str(big), **{f"p{i}": (str(i) if i % 3 == 0 else f"v{i}") for i in range(n)}}
    assert name == "h" and one == want and many == [want]
    assert list(one) == list(want)  # the shape's order
    [(tup,)] = _run(pg, plans["tuple"])
    assert list(tup) == [f"a{i}" for i in range(120)] and tup["a119"] == "119"
    [(body,)] = pg.execute("SELECT body FROM log")
    assert body == {"id": str(big), **{f"p{i}": (i if i % 3 == 0 else f"v{i}") for i in range(n)}}
    for plan in plans.values():
        calls = re.findall(r"json_build_object\(([^()]|\([^()]*\))*\)", plan.sql)
        assert all(c.count(",") < 100 for c in calls)


# -- 10. input Postgres would refuse is refused where it is written --------------------------


def test_10_more_columns_than_a_table_can_have_is_refused(pg):
    """Postgres' tables have at most 1,600 columns (https://www.postgresql.org/docs/15/limits.html):
    a type of more properties compiled to a migration Postgres refuses. 1,599 properties and the
    id migrate and run; one more is E0206 at the type's name."""
    props = " ".join(f"p{i}: int64;" for i in range(1599))
    sources = {"s.esdl": f"type Wide {{ {props} }}",
               "q/add.edgeql": "insert Wide { p0 := 1, p1598 := 2 };",
               "q/read.edgeql": "select Wide { p0, p1598 };"}
    _migrate(pg, sources)
    plans = _plans(sources)
    _run(pg, plans["add"])
    assert _run(pg, plans["read"]) == [(1, 2)]
    err = _error({"s.esdl": f"\n type Wider {{ {props} p1599: str; }}"})
    (d,) = err.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("E0206", 2, 7)
    assert "1601 columns" in d.message and "1600" in d.message


def test_10_operator_chains_postgres_cannot_nest_are_refused(pg):
    """Postgres analyses ``a + b + c ...`` nested one operator in the next; a 5,000-term chain
    exceeds its stack ("stack depth limit exceeded", max_stack_depth) and it compiled. A chain of
    up to 1,000 nested operators runs; a longer one is E0103 at its start (``and`` / ``or`` runs and
    ``++`` chains are written flat or balanced, and compile at any length: tests/compiler/test_limits.py)."""
    sources = {"s.esdl": "type T { required n: int64; }",
               "q/ok.edgeql": "select T { x := " + " + ".join([".n"] * 1001) + " };"}
    _migrate(pg, sources)
    pg.execute("INSERT INTO t (n) VALUES (2)")
    assert _run(pg, _plans(sources)["ok"]) == [(2002,)]
    query = "select T { n }\nfilter  " + " - ".join([".n"] * 5000) + " = 1;"
    err = _error({"s.esdl": sources["s.esdl"], "q/q.edgeql": query})
    (d,) = err.diagnostics
    assert (d.code, d.span.file, d.span.line, d.span.col) == ("E0103", "q/q.edgeql", 2, 9)
    assert "5000 operators" in d.message


# -- 6. a link written from a sub-select of ids links the objects it finds -------------------


def test_06_unknown_ids_in_a_link_sub_select_are_skipped(pg):
    """``recommends := (select Post filter .id in array_unpack(<array<uuid>>$ids))`` is the
    posts that sub-select finds (https://docs.geldata.com/reference/edgeql/insert#links): an
    unknown id links nothing, as Gel's sub-select finds no object for it. schemac wrote the ids
    as given, and one unknown id failed the statement with the join table's foreign-key error;
    an optional single link ``opt := (select Post filter .id = <uuid>$u)`` likewise (Gel: empty).
    A required one still fails the statement (its foreign key; Gel: MissingRequiredError)."""
    import uuid

    import psycopg

    sources = {
        "s.esdl": "type Post { required title: str; }\n"
                  "type User { required email: str; multi recommends: Post; opt: Post; }\n"
                  "type Pin { required post: Post; }",
        "q/set_all.edgeql": "update User filter .email = <str>$e set { recommends := "
                            "(select Post filter .id in array_unpack(<array<uuid>>$ids)) };",
        "q/add.edgeql": "update User filter .email = <str>$e set { recommends += "
                        "(select Post filter .id in array_unpack(<array<uuid>>$ids)) };",
        "q/set_opt.edgeql": "update User filter .email = <str>$e set { opt := (select Post filter .id = <uuid>$u) };",
        "q/new.edgeql": "insert User { email := <str>$e, opt := (select Post filter .id = <uuid>$u), "
                        "recommends := (select Post filter .id in array_unpack(<array<uuid>>$ids)) };",
        "q/pin.edgeql": "insert Pin { post := (select Post filter .id = <uuid>$u) };",
        "q/read.edgeql": "select User { email, opt: { title }, recommends: { title } order by .title } "
                         "filter .email = <str>$e;",
    }
    _migrate(pg, sources)
    [(a,)] = pg.execute("INSERT INTO post (title) VALUES ('a') RETURNING id")
    [(b,)] = pg.execute("INSERT INTO post (title) VALUES ('b') RETURNING id")
    pg.execute("INSERT INTO \"user\" (email) VALUES ('u')")
    unknown = uuid.uuid4()
    plans = _plans(sources)

    def read(e):
        [(_, opt, recs)] = _run(pg, plans["read"], e)
        return opt and opt["title"], [r["title"] for r in recs]

    _run(pg, plans["set_all"], "u", [a, unknown])
    assert read("u") == (None, ["a"])
    _run(pg, plans["add"], "u", [unknown, b])
    assert read("u") == (None, ["a", "b"])
    _run(pg, plans["set_opt"], "u", b)
    assert read("u") == ("b", ["a", "b"])
    _run(pg, plans["set_opt"], "u", unknown)  # Gel: the sub-select is empty, so is the link
    assert read("u") == (None, ["a", "b"])
    _run(pg, plans["new"], "v", unknown, [unknown, unknown, b])
    assert read("v") == (None, ["b"])
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        _run(pg, plans["pin"], unknown)
    _run(pg, plans["pin"], a)
    assert pg.execute("SELECT count(*) FROM pin") == [(1,)]


# -- 4. {**} on an abstract type: every property and link --------------------------------------


def test_04_double_splat_on_an_abstract_type_has_its_links(pg):
    """``{**}`` is every property and every link, each with ``{*}`` of its target
    (https://docs.geldata.com/reference/edgeql/select#splats); on an abstract type, its own (those
    all its subtypes inherit). ``select Dep {**}`` gave the properties alone."""
    sources = {
        "s.esdl": "type Person { required name: str; }\n"
                  "abstract type Dep { required name: str; boss: Person; multi staff: Person; }\n"
                  "type Lab extending Dep { budget: int64; }\n"
                  "type Office extending Dep { floor: int64; helper: Person; }",
        "q/all.edgeql": "select Dep {**} order by .name;",
    }
    _migrate(pg, sources)
    [(ann,)] = pg.execute("INSERT INTO person (name) VALUES ('ann') RETURNING id")
    [(bob,)] = pg.execute("INSERT INTO person (name) VALUES ('bob') RETURNING id")
    [(lab,)] = pg.execute("INSERT INTO lab (name, boss_id, budget) VALUES ('lab', %s, 5) RETURNING id", (ann,))
    [(office,)] = pg.execute("INSERT INTO office (name, helper_id) VALUES ('office', %s) RETURNING id", (bob,))
    pg.execute("INSERT INTO lab_staff (source_id, target_id) VALUES (%s, %s), (%s, %s)", (lab, ann, lab, bob))
    plan = _plans(sources)["all"]
    assert [f.name for f in plan.result] == ["id", "name", "boss", "staff"]
    rows = _run(pg, plan)
    person = {ann: {"id": str(ann), "name": "ann"}, bob: {"id": str(bob), "name": "bob"}}
    assert rows == [(lab, "lab", person[ann], sorted([person[ann], person[bob]], key=lambda p: p["id"])),
                    (office, "office", None, [])]


# -- 7. an hnsw index does not drop the rows without a vector ---------------------------------


def test_07_vector_index_keeps_the_rows_without_a_vector(pgvector_db):
    """``order by cosine_distance(.embedding, $q) empty last limit 10`` is Gel's order: rows with
    no vector last (https://docs.geldata.com/reference/edgeql/select#ordering). Postgres served it
    from the hnsw index, whose scan holds no NULL vector, so those rows were missing (2 of 5
    here); without the index they came back. With ``filter exists .embedding`` the index still
    serves the ordering (the rows are the same with and without it)."""
    schema = ("using extension pgvector;\nmodule default { type Doc { required title: str; "
              "embedding: ext::pgvector::vector<3>;\n"
              "  index ext::pgvector::hnsw_cosine(m := 16, ef_construction := 64) on (.embedding); } }")
    order = "order by ext::pgvector::cosine_distance(.embedding, <ext::pgvector::vector>$q) empty last limit 10;"
    sources = {"s.esdl": schema, "q/all.edgeql": "select Doc { title } " + order,
               "q/some.edgeql": "select Doc { title } filter exists .embedding " + order}
    pgvector_db.execute(_compile(sources)["sql/000001_init.up.sql"])
    docs = {"a": "[1,0,0]", "b": "[0,1,0]", "c": "[1,1,0]", "x": None, "y": None}
    for title, v in docs.items():
        pgvector_db.execute("INSERT INTO doc (title, embedding) VALUES (%s, %s)", (title, v))
    plans = _plans(sources)
    q = "[1,0.1,0]"
    with pgvector_db.conn.transaction():
        pgvector_db.execute("SET LOCAL enable_seqscan = off")  # as on a large table: the index if it can
        rows = [r[0] for r in _run(pgvector_db, plans["all"], q)]
        some = [r[0] for r in _run(pgvector_db, plans["some"], q)]
        explain = "\n".join(r[0] for r in pgvector_db.execute(
            "EXPLAIN " + plans["some"].sql.replace("$1", f"'{q}'")))
    assert rows[:3] == ["a", "c", "b"] and sorted(rows[3:]) == ["x", "y"]
    assert some == ["a", "c", "b"]
    assert "hnsw" in explain or "ix_doc_embedding" in explain, explain
    with pgvector_db.conn.transaction():
        pgvector_db.execute("SET LOCAL enable_indexscan = off")
        assert sorted(r[0] for r in _run(pgvector_db, plans["all"], q)) == sorted(rows)
    # the same rule in a nested shape's ordering
    nested = _plans({"s.esdl": schema.replace("} }", "} type Shelf { multi docs: Doc; } }"),
                     "q/n.edgeql": "select Shelf { docs: { title } " + order.replace(";", " }") + ";"})["n"]
    assert "(\"_s1\".embedding <=> $1::vector) IS NOT NULL DESC NULLS LAST" in nested.sql


# -- 3. an exclusive constraint holds across a type's subtypes ---------------------------------


def test_03_exclusive_on_a_concrete_parent_holds_across_its_subtypes(pg, pg_factory):
    """``type User { required email: str { constraint exclusive; } } type Admin extending User;``:
    Gel's exclusive holds across the objects of User, admins included ("does not intersect with
    any other such set in any other object of this type",
    https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive). Each table
    had its own UNIQUE only, so a user and an admin could share an email. Also under concurrency:
    a second writer of the same email waits for the first and is refused. (Migrations:
    tests/migrations/test_wrong_results_25_migrations.py.)"""
    import threading

    import psycopg

    sources = {
        "s.esdl": "type User { required email: str { constraint exclusive; } }\n"
                  "type Admin extending User { level: int64; }\n"
                  "type Root extending Admin;\n"
                  "abstract type Named { required name: str { constraint exclusive; } }\n"
                  "type Team extending Named;\ntype Project extending Named;",
        "q/add_user.edgeql": "insert User { email := <str>$e };",
        "q/add_admin.edgeql": "insert Admin { email := <str>$e };",
    }
    _migrate(pg, sources)
    plans = _plans(sources)
    _run(pg, plans["add_user"], "a@x")
    with pytest.raises(psycopg.errors.UniqueViolation) as e:
        _run(pg, plans["add_admin"], "a@x")
    assert e.value.diag.constraint_name == "uq_admin_email"  # Admin's typed ExclusiveViolation
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute("INSERT INTO root (email) VALUES ('a@x')")
    _run(pg, plans["add_admin"], "b@x")
    with pytest.raises(psycopg.errors.UniqueViolation) as e:  # an update too
        pg.execute("UPDATE \"user\" SET email = 'b@x' WHERE email = 'a@x'")
    assert e.value.diag.constraint_name == "uq_user_email"
    pg.execute("UPDATE \"user\" SET email = 'a@x' WHERE email = 'a@x'")  # its own value again
    with pytest.raises(psycopg.errors.UniqueViolation):  # within a table, as before
        _run(pg, plans["add_admin"], "b@x")
    pg.execute("INSERT INTO team (name) VALUES ('n')")
    with pytest.raises(psycopg.errors.UniqueViolation):  # an abstract type's, likewise
        pg.execute("INSERT INTO project (name) VALUES ('n')")
    assert pg.execute("SELECT count(*) FROM \"user\"") + pg.execute("SELECT count(*) FROM admin") == [(1,), (1,)]

    # Two transactions writing one email into two tables: the second waits, then is refused.
    first = psycopg.connect(pg.url)
    second = psycopg.connect(pg.url)
    try:
        first.execute("INSERT INTO \"user\" (email) VALUES ('c@x')")
        outcome = []

        def other():
            try:
                second.execute("INSERT INTO admin (email) VALUES ('c@x')")
                second.commit()
                outcome.append("inserted")
            except psycopg.errors.UniqueViolation:
                second.rollback()
                outcome.append("refused")

        t = threading.Thread(target=other)
        t.start()
        t.join(1.0)
        assert t.is_alive() and not outcome  # waiting for the first
        first.commit()
        t.join(10)
        assert outcome == ["refused"]
    finally:
        first.close()
        second.close()
