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


def compile_sql(schema: str, queries=None):
    from schemac.compiler import compile_library

    sources = {"t/schema.esdl": schema}
    sources.update({f"t/queries/{k}.edgeql": v for k, v in (queries or {}).items()})
    return compile_library(sources, Options(library="t"))


VECTOR_SCHEMA = """\
using extension pgvector;
using extension pg_trgm;
module default {
  scalar type Embedding extending ext::pgvector::vector<3>;
  type Doc {
    required title: str;
    embedding: Embedding;
    raw: ext::pgvector::vector<2>;
    index ext::pgvector::hnsw_cosine(m := 16, ef_construction := 64) on (.embedding);
    index ext::pgvector::ivfflat_euclidean(lists := 10) on (.raw);
    index ext::pg_trgm::gist on (.title);
  }
}
"""


def test_extensions_are_created_first_in_name_order_and_dropped_last():
    out = compile_sql(VECTOR_SCHEMA)
    up = out["sql/000001_init.up.sql"]
    assert up.index('CREATE EXTENSION IF NOT EXISTS "pg_trgm";') < up.index('CREATE EXTENSION IF NOT EXISTS "vector";') \
        < up.index('CREATE TABLE "doc"')
    assert '"embedding" vector(3),\n    "raw" vector(2)\n' in up
    assert 'USING hnsw ("embedding" vector_cosine_ops) WITH (m = 16, ef_construction = 64);' in up
    assert 'USING ivfflat ("raw" vector_l2_ops) WITH (lists = 10);' in up
    assert 'USING gist ("title" gist_trgm_ops);' in up
    down = out["sql/000001_init.down.sql"]
    assert down.index('DROP TABLE "doc";') < down.index('DROP EXTENSION IF EXISTS "pg_trgm";') \
        < down.index('DROP EXTENSION IF EXISTS "vector";')


def test_extension_functions_lower_to_their_postgres_operators_and_functions():
    out = compile_sql(VECTOR_SCHEMA.replace("using extension pg_trgm;", "using extension pg_trgm;\n"
                                            "using extension pgcrypto;\nusing extension fuzzystrmatch;"), {
        "nearest": "select Doc { title } order by ext::pgvector::cosine_distance(.embedding, "
                   "<ext::pgvector::vector>$q) then ext::pgvector::euclidean_distance(.embedding, <ext::pgvector::vector>$q)"
                   " then ext::pgvector::neg_inner_product(.embedding, <ext::pgvector::vector>$q) limit 3;",
        "fuzzy": "select Doc { title } filter ext::pg_trgm::word_similar(<str>$q, .title) "
                 "and ext::fuzzystrmatch::levenshtein(.title, <str>$q) <= 3 "
                 "and ext::pgcrypto::digest(.title, 'sha256') != ext::pgcrypto::hmac(.title, 'k', 'sha256') "
                 "order by ext::pg_trgm::similarity(.title, <str>$q) desc;",
    })
    ts = out["ts/queries.ts"]
    assert ("ORDER BY (embedding <=> $1::vector) ASC NULLS FIRST THEN" not in ts
            and "(embedding <=> $1::vector) ASC NULLS FIRST, (embedding <-> $1::vector) ASC NULLS FIRST, "
                "(embedding <#> $1::vector) ASC NULLS FIRST" in ts)
    assert ("WHERE ($1::text <% title) AND (levenshtein(title, $1::text) <= 3) AND "
            "(digest(title, 'sha256') <> hmac(title, 'k', 'sha256'))") in ts
    assert "ORDER BY similarity(title, $1::text) DESC" in ts
    assert "readonly q: readonly number[];" in ts and "JSON.stringify(args.q)" in ts


@pytest.mark.parametrize("schema, expected", [
    ("type T { e: ext::pgvector::vector<3>; }",
     "t/s.esdl:1:13: error[E0201]: 'ext::pgvector::vector' needs the pgvector extension\n"
     "    type T { e: ext::pgvector::vector<3>; }\n"
     "                ^^^^^^^^^^^^^^^^^^^^^^^^\n"
     "hint: add 'using extension pgvector;' to a schema file"),
    ("using extension auth;\ntype T { required identity: ext::auth::Identity; }",
     "t/s.esdl:2:29: error[E0206]: 'ext::auth::Identity' belongs to Gel's 'auth' extension, a service of the Gel "
     "server that Postgres does not have"),
    ("using extension ai;\ntype T { a: str; index ext::ai::index(embedding_model := 1) on (.a); }",
     "t/s.esdl:2:18: error[E0206]: 'ext::ai::index' belongs to Gel's 'ai' extension"),
    ("using extension ai;\ntype T { a: str; deferred index ext::ai::index(embedding_model := 'x') on (.a); }",
     "t/s.esdl:2:18: error[E0206]: 'ext::ai::index' belongs to Gel's 'ai' extension, a service of the Gel server"),
    ("using extension pgvektor;",
     "t/s.esdl:1:1: error[E0206]: unknown extension 'pgvektor'\n    using extension pgvektor;\n"
     "    ^^^^^^^^^^^^^^^^^^^^^^^^\nhint: did you mean 'pgvector'?"),
    ("using extension postgis;", "t/s.esdl:1:1: error[E0206]: extension 'postgis' is not supported yet"),
    ("using extension pgvector;\ntype T { e: ext::pgvector::vector<0>; }",
     "t/s.esdl:2:13: error[E0201]: 'ext::pgvector::vector<0>': a vector takes one dimension count, 1 to 16000"),
    ("using extension pgvector;\ntype T { e: ext::pgvector::vector<3>; index ext::pgvector::ivfflat_cosine on (.e); }",
     "t/s.esdl:2:39: error[E0304]: index kind 'ext::pgvector::ivfflat_cosine' needs the argument 'lists'"),
    ("using extension pgvector;\ntype T { e: ext::pgvector::vector<3>; "
     "index ext::pgvector::hnsw_cosine(lists := 3) on (.e); }",
     "t/s.esdl:2:72: error[E0304]: index kind 'ext::pgvector::hnsw_cosine' has no argument 'lists'"),
    ("using extension pgvector;\ntype T { e: ext::pgvector::vector; index ext::pgvector::hnsw_ip on (.e); }",
     "t/s.esdl:2:69: error[E0206]: index kind 'ext::pgvector::hnsw_ip' needs vectors of a fixed length"),
    ("using extension pg_trgm;\ntype T { n: int64; index ext::pg_trgm::gin on (.n); }",
     "t/s.esdl:2:48: error[E0304]: index kind 'ext::pg_trgm::gin' indexes a str value, got int64"),
    ("using extension pgvector;\ntype T { e: array<ext::pgvector::vector<3>>; }",
     "t/s.esdl:2:13: error[E0206]: arrays of vectors are not supported"),
    ("using extension pgvector;\nusing extension pgvector;",
     "t/s.esdl:2:1: error[E0200]: extension 'pgvector' is already used at t/s.esdl:1:1"),
])
def test_extension_misuse_is_located(schema, expected):
    _, text = diagnose({"t/s.esdl": schema})
    assert expected in text, text


def test_gel_server_services_are_accepted_with_a_warning():
    from schemac.compiler import compile_library

    warnings = []
    out = compile_library({"t/s.esdl": "using extension auth;\nusing extension graphql;\ntype T { a: str; }\n"},
                          Options(library="t"), warnings)
    assert [(w.code, w.span.line, w.message) for w in warnings] == [
        ("W0001", 1, "extension 'auth' is a service of the Gel server: accepted, nothing is created in Postgres"),
        ("W0001", 2, "extension 'graphql' is a service of the Gel server: accepted, nothing is created in Postgres")]
    assert "EXTENSION" not in out["sql/000001_init.up.sql"]


def test_query_functions_need_their_extension_and_right_arguments():
    schema = "using extension pg_trgm;\ntype Doc { required title: str; n: int64; }\n"
    for query, expected in [
        ("select Doc { title } filter ext::fuzzystrmatch::soundex(.title) = 'A';",
         "error[E0201]: 'ext::fuzzystrmatch::soundex' needs the fuzzystrmatch extension"),
        ("select Doc { title } filter ext::pg_trgm::similar(.title, .n);",
         "error[E0304]: ext::pg_trgm::similar() needs str here, got int64"),
        ("select Doc { title } filter ext::pg_trgm::simlar(.title, 'x');",
         "error[E0206]: function 'ext::pg_trgm::simlar()' is not supported\n"),
    ]:
        _, text = diagnose({"t/s.esdl": schema, "t/queries/q.edgeql": query})
        assert expected in text, text


def test_sequence_scalars_extend_sequences_and_duration_units_are_checked():
    out = compile_sql("scalar type S extending sequence;\nscalar type S2 extending S;\ntype T { a: S2; b: S; }\n")
    up = out["sql/000001_init.up.sql"]
    assert "\"a\" bigint DEFAULT nextval('\"seq_s2\"')" in up and "\"b\" bigint DEFAULT nextval('\"seq_s\"')" in up
    _, text = diagnose({"t/s.esdl": "type T { b: duration { default := to_duration(hours := 1.5); }; }"})
    assert "t/s.esdl:1:56: error[E0304]: 'hours' must be an integer, got a fractional number" in text, text
