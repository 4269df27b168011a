"""Gel extensions end to end (https://docs.geldata.com/reference/stdlib/pgvector, .../pg_trgm,
.../pgcrypto, .../fuzzystrmatch): the migration creates the Postgres extension before the tables,
types, index kinds and functions lower to it, and queries return the right rows with data.

pgvector runs on the PostgreSQL 16 server with the ``vector`` extension that tests/run starts
(``pgvector_db``; Debian 12's PostgreSQL 15 has no pgvector): nearest-neighbour ordering by
cosine distance, Euclidean distance and negative inner product, checked against distances
computed here, in TypeScript and in Go, through the TS runner (tsc --strict), the pgx runner and
the database/sql runner (gofmt, go vet, Go 1.21). pg_trgm, pgcrypto and fuzzystrmatch are
Postgres contrib modules: they run on the PostgreSQL 15 server."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library

HERE = Path(__file__).parent

VECTOR_SCHEMA = """\
using extension pgvector;

module default {
  scalar type Embedding extending ext::pgvector::vector<3>;

  type Doc {
    required title: str { constraint exclusive; };
    embedding: Embedding;
    index ext::pgvector::hnsw_cosine(m := 16, ef_construction := 64) on (.embedding);
    index ext::pgvector::ivfflat_euclidean(lists := 1) on (.embedding);
  }
}
"""

VECTOR_QUERIES = {
    "add_doc": "insert Doc { title := <str>$title, embedding := <optional ext::pgvector::vector>$embedding };",
    # `empty last`: Postgres serves ORDER BY distance from an hnsw/ivfflat index only NULLS LAST
    # (Gel's default for asc is empty first); nearest_ip shows the default order is right too.
    "nearest": ("select Doc { title, embedding } filter exists .embedding\n"
                "order by ext::pgvector::cosine_distance(.embedding, <ext::pgvector::vector>$q) empty last\n"
                "limit <int64>$n;"),
    # (`filter exists .embedding`: an index holds no empty vector, so without it the ordering is
    # not served by one, and the rows without a vector still come last: issue 25)
    "nearest_l2": ("select Doc { title } filter exists .embedding\n"
                   "order by ext::pgvector::euclidean_distance(.embedding, <ext::pgvector::vector>$q) empty last\n"
                   "limit <int64>$n;"),
    "nearest_ip": ("select Doc { title } filter exists .embedding\n"
                   "order by ext::pgvector::neg_inner_product(.embedding, <ext::pgvector::vector>$q) limit <int64>$n;"),
}

#: The documents of every vector test (the TS and Go programs use the same ones).
DOCS = {
    "east": [1.0, 0.0, 0.0], "east-north": [0.9, 0.2, 0.0], "north": [0.0, 1.0, 0.0], "up": [0.0, 0.0, 1.0],
    "west": [-1.0, 0.0, 0.0], "far-east": [4.0, 0.5, 0.0], "diagonal": [0.5, 0.5, 0.5],
}
QUERY = [1.0, 0.1, 0.0]


def _sources(schema, queries, lib):
    out = {f"{lib}/schema.esdl": schema}
    out.update({f"{lib}/queries/{k}.edgeql": v for k, v in queries.items()})
    return out


def _compiled(tmp_path: Path, sources, lib: str, go_driver: str = "pgx") -> Path:
    out = tmp_path / f"gen-{lib}-{go_driver.replace('/', '-')}"
    for rel, text in compile_library(sources, Options(library=lib, go_driver=go_driver)).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def _plans(sources, lib):
    return {q.name: q for q in check_library(sources, Options(library=lib)).queries}


def _run(db, plan, *args):
    """Run a query plan's SQL with psycopg: ``$n`` -> ``%(pn)s`` (``%`` operators doubled)."""
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return db.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})


def _cosine(a, b):
    return 1 - sum(x * y for x, y in zip(a, b)) / (math.hypot(*a) * math.hypot(*b))


def _l2(a, b):
    return math.dist(a, b)


def _neg_ip(a, b):
    return -sum(x * y for x, y in zip(a, b))


def _expected(distance, n):
    return [t for t, _ in sorted(DOCS.items(), key=lambda kv: (distance(kv[1], QUERY), kv[0]))][:n]


def _vec(v) -> str:
    return "[" + ",".join(repr(x) for x in v) + "]"


def test_pgvector_migration_indexes_and_nearest_neighbours_on_postgres(pgvector_db, tmp_path):
    sources = _sources(VECTOR_SCHEMA, VECTOR_QUERIES, "vec")
    out = _compiled(tmp_path, sources, "vec")
    up = (out / "sql" / "000001_init.up.sql").read_text()
    assert up.index('CREATE EXTENSION IF NOT EXISTS "vector";') < up.index('CREATE TABLE "doc"')
    pgvector_db.execute(up)
    indexes = dict(pgvector_db.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'doc'"))
    defs = sorted(d.split(" USING ", 1)[1] for n, d in indexes.items() if n.startswith("ix_"))
    assert defs == ["hnsw (embedding vector_cosine_ops) WITH (m='16', ef_construction='64')",
                    "ivfflat (embedding) WITH (lists='1')"]  # (vector_l2_ops is ivfflat's default opclass)
    plans = _plans(sources, "vec")
    for title, v in DOCS.items():
        _run(pgvector_db, plans["add_doc"], title, _vec(v))
    _run(pgvector_db, plans["add_doc"], "no-embedding", None)
    for name, distance in (("nearest", _cosine), ("nearest_l2", _l2), ("nearest_ip", _neg_ip)):
        rows = _run(pgvector_db, plans[name], _vec(QUERY), 4)
        assert [r[0] for r in rows] == _expected(distance, 4), name
    # The indexes serve the orderings they were declared for.
    with pgvector_db.conn.transaction():
        pgvector_db.execute("SET LOCAL enable_seqscan = off")
        for name, index in (("nearest", "hnsw"), ("nearest_l2", "ivfflat")):
            plan = "\n".join(r[0] for r in pgvector_db.execute(
                "EXPLAIN " + plans[name].sql.replace("$1", "'" + _vec(QUERY) + "'").replace("$2", "3")))
            used = [n for n in indexes if n in plan]
            assert used and indexes[used[0]].split(" USING ", 1)[1].startswith(index), plan
    # down, then up again.
    pgvector_db.execute((out / "sql" / "000001_init.down.sql").read_text())
    assert pgvector_db.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == [(0,)]
    pgvector_db.execute(up)
    assert pgvector_db.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == [(1,)]


@pytest.mark.slow
def test_typescript_runner_orders_by_vector_distance(pgvector_db, tsc_run, tmp_path):
    out = _compiled(tmp_path, _sources(VECTOR_SCHEMA, VECTOR_QUERIES, "vec"), "vec")
    pgvector_db.execute((out / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(out / "ts", src / "gen")
    shutil.copy(HERE / "pgvector_ts" / "main.ts", src / "main.ts")
    (src / "docs.json").write_text(json.dumps({"docs": DOCS, "query": QUERY}))
    result = tsc_run(src, "main.ts", database_url=pgvector_db.url, args=[str(src / "docs.json")])
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert got == {"cosine": _expected(_cosine, 3), "l2": _expected(_l2, 3), "ip": _expected(_neg_ip, 3)}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner_orders_by_vector_distance(pgvector_db, go_run, tmp_path, driver):
    out = _compiled(tmp_path, _sources(VECTOR_SCHEMA, VECTOR_QUERIES, "vec"), "vec", driver)
    pgvector_db.execute((out / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(out / "go", mod / "vec")
    test = "vector_pgx_test.go" if driver == "pgx" else "vector_sql_test.go"
    (mod / "e2e").mkdir()
    shutil.copy(HERE / "pgvector_go" / "e2e" / test, mod / "e2e" / test)
    shutil.copy(HERE / "pgvector_go" / "e2e" / "docs_test.go", mod / "e2e" / "docs_test.go")
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True, database_url=pgvector_db.url,
                    env={"SCHEMAC_VECTOR_WANT": json.dumps({"cosine": _expected(_cosine, 3), "l2": _expected(_l2, 3),
                                                            "ip": _expected(_neg_ip, 3)})})
    assert "--- PASS: TestVectorNearest" in result.test.stdout


TEXT_SCHEMA = """\
using extension pg_trgm;
using extension pgcrypto;
using extension fuzzystrmatch;

module default {
  type Person {
    required name: str;
    password_hash: str;
    index ext::pg_trgm::gin on (.name);
    index ext::pg_trgm::gist on (.name);
  }
}
"""

TEXT_QUERIES = {
    "add_person": ("insert Person { name := <str>$name,\n"
                   "  password_hash := ext::pgcrypto::crypt(<str>$password, ext::pgcrypto::gen_salt('bf', 4)) };"),
    "like_name": ("select Person { name } filter ext::pg_trgm::similar(.name, <str>$q)\n"
                  "order by ext::pg_trgm::similarity(.name, <str>$q) desc then .name;"),
    "word_match": ("select Person { name } filter ext::pg_trgm::word_similar(<str>$q, .name)\n"
                   "order by ext::pg_trgm::word_similarity(<str>$q, .name) desc then .name;"),
    "sounds_like": ("select Person { name } filter ext::fuzzystrmatch::soundex(.name) = ext::fuzzystrmatch::soundex(<str>$q)\n"
                    "  and ext::fuzzystrmatch::levenshtein(.name, <str>$q) <= <int64>$max order by .name;"),
    "name_digest": ("select Person { name } filter ext::pgcrypto::digest(.name, 'sha256') = <bytes>$digest\n"
                    "  and ext::pgcrypto::hmac(.name, 'key', 'sha1') = <bytes>$mac;"),
    "login": ("select Person { name } filter .name = <str>$name\n"
              "  and .password_hash = ext::pgcrypto::crypt(<str>$password, .password_hash);"),
}


def test_pg_trgm_pgcrypto_fuzzystrmatch_on_postgres(pg, tmp_path):
    sources = _sources(TEXT_SCHEMA, TEXT_QUERIES, "txt")
    out = _compiled(tmp_path, sources, "txt")
    up = (out / "sql" / "000001_init.up.sql").read_text()
    pg.execute(up)
    assert sorted(r[0] for r in pg.execute("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'")) == [
        "fuzzystrmatch", "pg_trgm", "pgcrypto"]
    defs = sorted(r[0].split(" USING ", 1)[1] for r in pg.execute(
        "SELECT indexdef FROM pg_indexes WHERE tablename = 'person' AND indexname LIKE 'ix_%'"))
    assert defs == ["gin (name gin_trgm_ops)", "gist (name gist_trgm_ops)"]
    plans = _plans(sources, "txt")
    names = ("Jonathan Smith", "Jon Smyth", "Joanna Smithers", "Robert Jones", "Smith")
    for name in names:
        _run(pg, plans["add_person"], name, name.lower() + "!")
    run = lambda q, *args: [r[0] for r in _run(pg, plans[q], *args)]  # noqa: E731
    # pg_trgm: Gel's similar/word_similar are "similarity above the threshold" (pg_trgm's % and <%).
    for query, fn, setting, q in (("like_name", "similarity(name, %s)", "similarity_threshold", "Jon Smith"),
                                  ("word_match", "word_similarity(%s, name)", "word_similarity_threshold", "Smith")):
        threshold = pg.execute(f"SELECT current_setting('pg_trgm.{setting}')::real")[0][0]
        expected = [r[0] for r in pg.execute(
            f"SELECT name FROM person WHERE {fn} > %s ORDER BY {fn} DESC, name", (q, threshold, q))]
        assert run(query, q) == expected and 1 < len(expected) < len(names), (query, expected)
    # fuzzystrmatch: the same soundex (S530) and at most 2 edits.
    assert run("sounds_like", "Smyth", 2) == ["Smith"]
    # pgcrypto: digests computed here; crypt() checks a password against its stored hash.
    name = "Robert Jones"
    assert run("name_digest", hashlib.sha256(name.encode()).digest(),
               hmac.new(b"key", name.encode(), "sha1").digest()) == [name]
    assert run("login", name, "robert jones!") == [name]
    assert run("login", name, "robert jones?") == []
    hashes = {r[0] for r in pg.execute("SELECT password_hash FROM person")}
    assert len(hashes) == len(names) and all(h.startswith("$2a$04$") for h in hashes)
    # Down drops the extensions, up creates them again.
    pg.execute((out / "sql" / "000001_init.down.sql").read_text())
    assert pg.execute("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'") == []
    pg.execute(up)


FTS_SOURCES = {
    "ft/schema.esdl": """\
type Doc {
  required title: str;
  body: str;
  index fts::index on ((
    fts::with_options(.title, language := fts::Language.eng, weight_category := fts::Weight.A),
    fts::with_options(.body, language := fts::Language.eng, weight_category := fts::Weight.B)
  ));
}
""",
    "ft/queries/add_doc.edgeql": "insert Doc { title := <str>$title, body := <optional str>$body };",
    "ft/queries/search.edgeql": "select Doc { title } filter exists fts::search(Doc, <str>$q) order by .title;",
    "ft/queries/search_fr.edgeql": (
        "select Doc { title } filter exists fts::search(Doc, <str>$q, language := 'fra') order by .title;"),
}


def test_fts_index_and_search_on_postgres(pg, tmp_path):
    """Gel's fts::index / fts::search (https://docs.geldata.com/reference/stdlib/fts): a GIN index
    over the weighted tsvector of the indexed properties, and searches that match stems, phrases
    and negations (websearch syntax) and are answered from that index."""
    out = _compiled(tmp_path, FTS_SOURCES, "ft")
    up = (out / "sql" / "000001_init.up.sql").read_text()
    pg.execute(up)
    (indexdef,) = [r[0] for r in pg.execute("SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'ix_doc_%'")]
    assert "USING gin (((setweight(to_tsvector('english'::regconfig, COALESCE(title, ''::text)), 'A'::\"char\")" \
        in indexdef
    plans = _plans(FTS_SOURCES, "ft")
    for title, body in (("Running shoes", "Light shoes for long runs."), ("Trail guide", "Where to run in the hills"),
                        ("Cooking", "Soups and stews"), ("Untitled", None)):
        _run(pg, plans["add_doc"], title, body)
    search = lambda q: [r[0] for r in _run(pg, plans["search"], q)]  # noqa: E731
    assert search("run") == ["Running shoes", "Trail guide"]           # stems: runs, run, running
    assert search('"long runs"') == ["Running shoes"]                  # a phrase
    assert search("run -hills") == ["Running shoes"]                   # a negation
    assert search("soup or guide") == ["Cooking", "Trail guide"]
    assert search("nothing") == []
    assert [r[0] for r in _run(pg, plans["search_fr"], "soups")] == ["Cooking"]
    with pg.conn.transaction():
        pg.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(r[0] for r in pg.execute("EXPLAIN " + plans["search"].sql.replace("$1::text", "'run'")))
        assert "ix_doc_title_body_fts_" in plan, plan
    pg.execute((out / "sql" / "000001_init.down.sql").read_text())


def test_fts_index_of_a_subtype_replaces_its_bases(pg, tmp_path):
    """A type that inherits an fts::index and declares its own searches its own document only
    (https://docs.geldata.com/reference/stdlib/fts: "only the new index applies and fully
    overrides the fts::index inherited from the parent type"); two in one type stay E0200."""
    sources = {
        "sub/schema.esdl": """\
abstract type Post {
  required title: str;
  body: str;
  index fts::index on (fts::with_options(.title, language := fts::Language.eng));
}
type Note extending Post {
  index fts::index on (fts::with_options(.body, language := fts::Language.eng));
}
type Page extending Post {}
""",
        "sub/queries/notes.edgeql": "select Note { title } filter exists fts::search(Note, <str>$q) order by .title;",
        "sub/queries/pages.edgeql": "select Page { title } filter exists fts::search(Page, <str>$q) order by .title;",
    }
    out = _compiled(tmp_path, sources, "sub")
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    plans = _plans(sources, "sub")
    pg.execute("INSERT INTO note (title, body) VALUES ('Apples', 'about pears'), ('Pears', 'about apples')")
    pg.execute("INSERT INTO page (title, body) VALUES ('Apples', 'about pears'), ('Pears', 'about apples')")
    assert [r[0] for r in _run(pg, plans["notes"], "apples")] == ["Pears"]    # its own: the body
    assert [r[0] for r in _run(pg, plans["pages"], "apples")] == ["Apples"]   # inherited: the title
    from schemac.diagnostics import CompileError
    twice = "type D { b: str; index fts::index on (fts::with_options(.b, language := fts::Language.eng)); " \
            "index fts::index on (fts::with_options(.b, language := fts::Language.fra)); }"
    with pytest.raises(CompileError) as e:
        check_library({"t/schema.esdl": twice}, Options(library="t"))
    assert "error[E0200]: type 'D' has two fts::index declarations" in e.value.render({"t/schema.esdl": twice})


def test_fts_misuse_is_located():
    from schemac.diagnostics import CompileError

    for schema, query, expected in [
        ("type Doc { body: str; index fts::index on (.body); }", None,
         "t/schema.esdl:1:44: error[E0304]: an fts::index indexes fts::with_options(<property>, language := "
         "fts::Language.<lang>) values"),
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.klingon)); }",
         None, "error[E0304]: language must be an fts::Language member Postgres has a configuration for"),
        ("type Doc { body: str; }", "select Doc { body } filter exists fts::search(Doc, 'x');",
         "t/queries/q.edgeql:1:35: error[E0206]: type 'Doc' has no fts::index to search"),
        # Gel's fts::search is an optional tuple<object, score>: a filter tests it with exists
        # (https://docs.geldata.com/reference/stdlib/fts)
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "select Doc { body } filter fts::search(Doc, 'x');",
         "t/queries/q.edgeql:1:28: error[E0304]: fts::search() is an optional tuple<object: Doc, score: float32>, "
         "not a bool"),
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "select Doc { body } filter exists fts::search(Doc, 'x', weights := 'heavy');",
         "error[E0304]: weights must be an array<float64>, got str"),
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "select Doc { body } filter exists fts::search(Doc, 'x', language := <str>$lang);",
         "error[E0206]: fts::search() with a language other than a string literal is not supported"),
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "select Doc { body } filter exists fts::search(Doc, 'x', language := 'english');",
         "error[E0304]: language must name an fts::Language member"),
        # res.score is the score of the object in scope: only in a select of res.object
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "with res := (select fts::search(Doc, <str>$q)) select Doc { body, s := res.score };",
         "t/queries/q.edgeql:1:72: error[E0206]: reading 'res.score' outside a select of 'res.object' is not "
         "supported"),
        ("type Doc { body: str; index fts::index on (fts::with_options(.body, language := fts::Language.eng)); }",
         "with res := (select fts::search(Doc, <str>$q)) select res;",
         "error[E0206]: reading 'res', a set of fts::search() results, other than as 'res.object' or 'res.score' "
         "is not supported"),
    ]:
        sources = {"t/schema.esdl": schema}
        if query:
            sources["t/queries/q.edgeql"] = query
        with pytest.raises(CompileError) as e:
            check_library(sources, Options(library="t"))
        assert expected in e.value.render(sources), e.value.render(sources)
