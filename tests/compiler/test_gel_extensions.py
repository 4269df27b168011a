"""Gel extensions (https://docs.geldata.com/reference/datamodel/extensions): ``using extension``
statements and the named arguments of extension index kinds parse as Gel writes them."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.diagnostics import CompileError
from schemac.syntax.parser import parse_schema


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
    from schemac.pipeline import compile_library

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
    ("type T { required identity: ext::auth::Identity; }",
     "t/s.esdl:1:29: error[E0201]: 'ext::auth::Identity' needs the auth extension\n"
     "    type T { required identity: ext::auth::Identity; }\n"
     "                                ^^^^^^^^^^^^^^^^^^^\n"
     "hint: add 'using extension auth;' to a schema file"),
    ("using extension auth;\ntype T { required identity: ext::auth::Identiy; }",
     "t/s.esdl:2:29: error[E0206]: 'ext::auth::Identiy' belongs to the service of Gel's 'auth' extension, which "
     "Postgres does not have"),
    ("using extension auth;\nglobal t := global ext::auth::client_token;",
     "t/s.esdl:2:13: error[E0206]: 'ext::auth::client_token' belongs to the service of Gel's 'auth' extension, "
     "which Postgres does not have\n    global t := global ext::auth::client_token;\n"
     "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nhint: the token is verified by the Gel server's auth service; "
     "verify it in your application and set the global ext::auth::identity_id to the identity's id"),
    ("using extension auth;\ntype T { c: ext::auth::GoogleOAuthProvider; }",
     "t/s.esdl:2:13: error[E0206]: 'ext::auth::GoogleOAuthProvider' belongs to the service of Gel's 'auth' "
     "extension, which Postgres does not have"),
    ("using extension auth;\ntype T { required identity: ext::auth::Identity; ok := ext::auth::signing_key_exists(); }",
     "t/s.esdl:2:56: error[E0206]: 'ext::auth::signing_key_exists' belongs to the service of Gel's 'auth' "
     "extension"),
    ("using extension ai;\ntype T { a: str; index ext::ai::index(embedding_model := 1) on (.a); }",
     "t/s.esdl:2:18: error[E0206]: 'ext::ai::index' belongs to Gel's 'ai' extension"),
    ("type T { a: str; deferred index ext::ai::index(embedding_model := 'x') on (.a); }",
     "t/s.esdl:1:18: error[E0201]: 'ext::ai::index' needs the ai extension"),
    ("using extension ai;\ntype T { a: str; ok := ext::ai::search(T, [1.0]); }",
     "t/s.esdl:2:24: error[E0206]: 'ext::ai::search' belongs to Gel's 'ai' extension, a service of the Gel server"),
    ("using extension pgvektor;",
     "t/s.esdl:1:1: error[E0206]: unknown extension 'pgvektor'\n    using extension pgvektor;\n"
     "    ^^^^^^^^^^^^^^^^^^^^^^^^\nhint: did you mean 'pgvector'?"),
    ("using extension postgis;\ntype T { g: ext::postgis::geometry; index ext::postgis::gist on (.g); }",
     "t/s.esdl:2:37: error[E0206]: index kind 'ext::postgis::gist' is not supported"),
    ("type T { g: ext::postgis::geometry; }",
     "t/s.esdl:1:13: error[E0201]: 'ext::postgis::geometry' needs the postgis extension"),
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
    from schemac.pipeline import compile_library

    warnings = []
    out = compile_library({"t/s.esdl": "using extension auth;\nusing extension graphql;\ntype T { a: str; }\n"},
                          Options(library="t"), warnings)
    assert [(w.code, w.span.line, w.message) for w in warnings] == [
        ("W0001", 1, "extension 'auth': the ext::auth types the schema names become tables; its service (sign-in "
                     "flows, tokens) is not provided"),
        ("W0001", 2, "extension 'graphql' is a service of the Gel server: accepted, nothing is created in Postgres")]
    assert "EXTENSION" not in out["sql/000001_init.up.sql"]


def test_gel_auth_data_model_becomes_the_tables_the_schema_names():
    # https://docs.geldata.com/reference/auth ("Example usage"): only Identity is named, so only
    # its table is created (Auditable is abstract; LocalIdentity and the factors are not named).
    from schemac.pipeline import compile_library

    warnings = []
    out = compile_library({"t/s.esdl": "using extension auth;\ntype User { required identity: ext::auth::Identity; }\n",
                           "t/queries/q.edgeql": "select User { identity: { subject } } "
                                                 "filter .identity = global ext::auth::ClientTokenIdentity;"},
                          Options(library="t"), warnings)
    up = out["sql/000001_init.up.sql"]
    assert [line for line in up.splitlines() if line.startswith("CREATE TABLE")] == [
        'CREATE TABLE "ext_auth_identity" (', 'CREATE TABLE "user" (']
    assert 'CONSTRAINT "uq_ext_auth_identity_issuer_subject" UNIQUE ("issuer", "subject")' in up
    assert '"created_at" timestamptz NOT NULL DEFAULT clock_timestamp(),\n    "modified_at" timestamptz NOT NULL,' in up
    assert 'REFERENCES "ext_auth_identity" ("id") ON DELETE RESTRICT;' in up
    assert 'readonly "ext::auth::identity_id"?: string | null;' in out["ts/globals.ts"]
    assert "ExtAuthIdentityID *string" in out["go/globals.go"]
    assert "WHERE identity_id = (SELECT \"id\" FROM \"ext_auth_identity\" WHERE id = $1)" in out["ts/queries.ts"]
    assert [(w.code, w.span.line) for w in warnings] == [("W0001", 1)]
    # Without any ext::auth name, nothing is created.
    out = compile_library({"t/s.esdl": "using extension auth;\ntype T { a: str; }\n"}, Options(library="t"))
    assert "ext_auth" not in out["sql/000001_init.up.sql"] and "globals.ts" not in " ".join(out)


def test_gel_auth_types_a_schema_does_not_name_are_not_in_queries():
    _, text = diagnose({"t/s.esdl": "using extension auth;\ntype User { required identity: ext::auth::Identity; }\n",
                        "t/queries/q.edgeql": "select ext::auth::LocalIdentity { subject };"})
    assert "error[E0201]: 'ext::auth::LocalIdentity' is not in this schema" in text or \
        "error[E0301]: unknown type 'ext::auth::LocalIdentity'" in text, text


def test_deferred_ai_index_is_accepted_with_a_warning_and_creates_nothing():
    # https://docs.geldata.com/reference/ai/extai: only ext::ai::search reads the index.
    from schemac.pipeline import compile_library

    warnings = []
    out = compile_library({"t/s.esdl": "using extension ai;\ntype Doc {\n  body: str;\n"
                           "  deferred index ext::ai::index(embedding_model := 'text-embedding-3-small') on (.body);\n}\n"},
                          Options(library="t"), warnings)
    assert [(w.code, w.span.line, w.span.col) for w in warnings] == [("W0001", 1, 1), ("W0007", 4, 3)]
    up = out["sql/000001_init.up.sql"]
    assert "INDEX" not in up and 'CREATE TABLE "doc"' in up


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
