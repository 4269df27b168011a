"""Completion over stdio: enum members after `EnumName.` (the design note's example), properties
and links of the type in scope, type names, keywords the grammar accepts, `$params`, and all of
it in text that does not parse."""

from lsprotocol import types as lsp

from support_lsp import by_label, complete, insert_text, labels, open_doc, position_of, replace_all

SEED_MEMBERS = ["Pending", "Running", "Failed", "Processed"]


async def test_seed_query_enum_members_after_enum_name_dot(client):
    """The design note's promise: open the seed's claim query, type `QueueStatus.`, get the
    four members (in declaration order)."""
    rel = "schemas/jobs/queries/claim_job.edgeql"
    u, text = open_doc(client, rel)
    # Delete `QueueStatus.Running` and type it again, up to the dot.
    edited = text.replace("status := QueueStatus.Running", "status := ")
    replace_all(client, u, text, edited, 2)
    at = position_of(edited, "status := ")
    insert_text(client, u, at, "QueueStatus.", 3)
    pos = lsp.Position(line=at.line, character=at.character + len("QueueStatus."))
    items = await complete(client, u, pos, ".")
    assert labels(items) == SEED_MEMBERS
    assert all(i.kind == lsp.CompletionItemKind.EnumMember for i in items)
    # The edit replaces what is typed after the dot (here nothing).
    assert items[0].text_edit.range.start == pos
    # Typing on: `QueueStatus.Pe` still lists them (the client filters by the prefix).
    insert_text(client, u, pos, "Pe", 4)
    items = await complete(client, u, lsp.Position(line=pos.line, character=pos.character + 2))
    assert labels(items) == SEED_MEMBERS
    assert items[0].text_edit.range.start == pos


async def test_seed_schema_enum_members_in_filter_and_default(client):
    rel = "schemas/jobs/schema.esdl"
    u, text = open_doc(client, rel)
    for needle in ("filter .status = QueueStatus.", "default := QueueStatus."):
        items = await complete(client, u, position_of(text, needle), ".")
        assert labels(items) == SEED_MEMBERS, needle


async def test_properties_after_dot_in_filter_set_order_shape(client):
    rel = "schemas/jobs/queries/list_pending_jobs.edgeql"
    text = ("select Job { id, na }\n"
            "filter .status = QueueStatus.Pending and .\n"
            "order by .\n")
    u, _ = open_doc(client, rel, text)
    job = ["id", "name", "actor", "payload", "status", "claimed_at", "processed_at"]
    for needle, nth in ((".status = QueueStatus.Pending and .", 0), ("order by .", 0)):
        items = await complete(client, u, position_of(text, needle, nth=nth), ".")
        assert labels(items) == job, needle
        assert "str (required, property)" == by_label(items)["name"].detail
    items = await complete(client, u, position_of(text, "{ id, na"))
    assert labels(items) == job
    assert items[0].text_edit.range.start == position_of(text, "{ id, ")
    # update ... set { ... }: the type's properties, those already assigned left out
    text2 = "update Job filter .id = <uuid>$id set { claimed_at := now(),  }"
    u2, _ = open_doc(client, "schemas/jobs/queries/claim_job.edgeql", text2)
    items = await complete(client, u2, position_of(text2, "now(), "))
    assert labels(items) == [n for n in job if n != "claimed_at"]


async def test_link_paths_and_nested_shapes(client):
    text = ("select Post {\n  title,\n  author: {  },\n}\nfilter .author. = 'x'\n")
    u, _ = open_doc(client, "schemas/blog/queries/author_feed.edgeql", text)
    user = await complete(client, u, position_of(text, "author: { "))
    names = labels(user)
    assert names[0] == "id" and {"email", "handle", "display_name", "bio", "is_admin"} <= set(names)
    # inherited from the abstract Timestamped
    assert {"created_at", "updated_at"} <= set(names)
    items = await complete(client, u, position_of(text, "filter .author."), ".")
    assert labels(items) == names
    post = labels(await complete(client, u, position_of(text, "select Post {\n  ")))
    assert {"title", "author", "tags", "status"} <= set(post)
    assert by_label(await complete(client, u, position_of(text, "select Post {\n  ")))["author"].detail == \
        "User (required, link)"


async def test_type_names_after_colon_and_arrow(client):
    rel = "schemas/blog/schema.esdl"
    text = open_doc(client, rel)[1]
    u = open_doc(client, rel)[0]
    edited = text.replace("bio: str;", "bio: ;\n    property nick -> ;")
    replace_all(client, u, text, edited, 2)
    for needle in ("bio: ", "nick -> "):
        items = {i.label: i for i in await complete(client, u, position_of(edited, needle), ":")}
        for want, kind in (("str", lsp.CompletionItemKind.TypeParameter), ("Slug", lsp.CompletionItemKind.TypeParameter),
                           ("PublicationStatus", lsp.CompletionItemKind.Enum), ("User", lsp.CompletionItemKind.Class)):
            assert want in items and items[want].kind == kind, (needle, want)
    # after `select`: object types only
    t2 = "select "
    u2, _ = open_doc(client, "schemas/blog/queries/author_feed.edgeql", t2)
    got = set(labels(await complete(client, u2, position_of(t2, "select "))))
    assert {"User", "Post", "Tag", "Comment"} <= got and "str" not in got and "PublicationStatus" not in got
    # a typed parameter
    t3 = "select Post filter .id = $id<"
    u3, _ = open_doc(client, "schemas/blog/queries/author_feed.edgeql", t3)
    got = set(labels(await complete(client, u3, position_of(t3, "$id<"), "<")))
    assert {"uuid", "str", "int64", "PublicationStatus"} <= got


async def test_keywords_the_grammar_accepts(client):
    t = "select Job { id } "
    u, _ = open_doc(client, "schemas/jobs/queries/get_job.edgeql", t)
    got = labels(await complete(client, u, position_of(t, "} ")))
    assert {"filter", "order", "limit", "offset"} <= set(got)
    assert "select" not in got and "insert" not in got
    t = "update Job "
    u, _ = open_doc(client, "schemas/jobs/queries/get_job.edgeql", t)
    assert set(labels(await complete(client, u, position_of(t, "Job ")))) == {"filter", "set"}
    t = ""
    u, _ = open_doc(client, "schemas/jobs/queries/get_job.edgeql", t)
    assert {"select", "insert", "update", "delete", "with", "for"} <= set(labels(
        await complete(client, u, lsp.Position(line=0, character=0))))
    t = "type X {\n  required \n}"
    u, _ = open_doc(client, "schemas/jobs/schema.esdl", t)
    got = set(labels(await complete(client, u, position_of(t, "required "))))
    assert {"multi", "single", "property", "link"} <= got


async def test_params_already_used(client):
    t = "select Job { id }\nfilter .name = $name and .actor = $actor and .status = $"
    u, _ = open_doc(client, "schemas/jobs/queries/get_job.edgeql", t)
    got = labels(await complete(client, u, position_of(t, "= $", nth=2), "$"))
    assert got == ["$actor", "$name"] or sorted(got) == ["$actor", "$name"]


async def test_completion_in_text_that_does_not_parse(client):
    """Mid-edit: unbalanced braces, a dangling operator, a half-typed shape; the schema file
    itself broken too (its last good parse is used)."""
    schema_rel = "schemas/jobs/schema.esdl"
    su, stext = open_doc(client, schema_rel)
    broken_schema = stext.replace("payload: json;", "payload: json\n  oops oops {")
    replace_all(client, su, stext, broken_schema, 2)
    t = "select Job {\n  name,\n  status\nfilter .status = QueueStatus.\n  and . = \n"
    u, _ = open_doc(client, "schemas/jobs/queries/get_job.edgeql", t)
    assert labels(await complete(client, u, position_of(t, "QueueStatus."), ".")) == SEED_MEMBERS
    items = await complete(client, u, position_of(t, "and ."), ".")
    assert "actor" in labels(items) and "claimed_at" in labels(items)
    replace_all(client, su, broken_schema, stext, 3)
