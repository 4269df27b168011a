"""Identifier quoting, naming and output determinism."""

from __future__ import annotations

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.semantics.names import go_name, ts_camel
from schemac.semantics.sqlnames import NON_UNRESERVED_KEYWORDS, object_name, qi, quote_ident, snake_case


def test_keyword_list_matches_the_server(pg):
    rows = pg.execute("SELECT word FROM pg_get_keywords() WHERE catcode <> 'U'")
    assert NON_UNRESERVED_KEYWORDS == frozenset(r[0] for r in rows)


def test_quote_ident_agrees_with_postgres(pg):
    names = ["status", "order", "user", "select", "Mixed", "a b", 'q"uote', "_x1", "1a", "name", "type", "set"]
    for name in names:
        (server,) = pg.execute("SELECT quote_ident(%s)", (name,))[0]
        assert quote_ident(name) == server, name
    assert qi("order") == '"order"' and qi('a"b') == '"a""b"'


def test_snake_case_and_object_names():
    assert snake_case("QueueStatus") == "queue_status"
    assert snake_case("HTTPRequest") == "http_request"
    assert snake_case("userID") == "user_id"
    assert snake_case("job") == "job"
    assert object_name("uq", "job", ["name", "actor"]) == "uq_job_name_actor"
    long = object_name("uq", "t" * 40, ["c" * 30, "d" * 30])
    assert len(long) == 63 and long == object_name("uq", "t" * 40, ["c" * 30, "d" * 30])
    assert long != object_name("uq", "t" * 40, ["c" * 30, "e" * 30])


def test_go_and_ts_names():
    assert go_name("claim_job") == "ClaimJob" and go_name("id") == "ID"
    assert go_name("user_url") == "UserURL" and go_name("json_payload") == "JSONPayload"
    assert ts_camel("enqueue_job") == "enqueueJob"


def test_output_is_deterministic_and_independent_of_input_order():
    schema = "enum S { B, A }\ntype T { required a: str; s: S; constraint exclusive on (.a, .s) filter .s = S.A; }\n"
    q1 = "insert T { a := $a, s := $s } unless conflict on (.a, .s);"
    q2 = "update T filter .id = $id<uuid> set { s := S.B };"
    a = compile_library({"l/s.esdl": schema, "l/queries/b.edgeql": q2, "l/queries/a.edgeql": q1}, Options("l"))
    b = compile_library({"l/queries/a.edgeql": q1, "l/s.esdl": schema, "l/queries/b.edgeql": q2}, Options("l"))
    assert a == b and list(a) == sorted(a)
    text = "".join(a.values())
    assert "/tmp" not in text and "/work" not in text
