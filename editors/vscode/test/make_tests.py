"""Writes the grammar tests (schema.tmtest, query.tmtest) for vscode-tmgrammar-test: each source
line is followed by assertion lines, `# ^^^ scope`, whose carets this script places under the
named part of the line (so the columns are right by construction). Run it after editing the
cases below: python3 test/make_tests.py"""

import pathlib

HERE = pathlib.Path(__file__).resolve().parent

SCHEMA = [
    ("enum QueueStatus { Pending, Running, Failed, Processed }",
     [("enum", "storage.type.enum"), ("QueueStatus", "entity.name.type.enum")]),
    ("abstract type Named {", [("abstract", "storage.modifier"), ("type", "storage.type"),
                               ("Named", "entity.name.type.class")]),
    ("  required name: str;", [("required", "storage.modifier"), ("name", "variable.other.property.declaration"),
                               (":", "keyword.operator.type.annotation"), ("str", "support.type.builtin")]),
    ("}", []),
    ("type Job extending Named {", [("type", "storage.type"), ("Job", "entity.name.type.class"),
                                    ("extending", "storage.modifier.extending")]),
    ("  required link owner -> User { on target delete delete source; };",
     [("link", "storage.modifier"), ("owner", "variable.other.property.declaration"),
      ("->", "keyword.operator.type.annotation"), ("User", "entity.name.type"), ("target", "keyword.other")]),
    ("  tags: array<str>;", [("array", "support.type.builtin"), ("str", "support.type.builtin")]),
    ("  status: QueueStatus { default := QueueStatus.Pending };",
     [("QueueStatus", "entity.name.type"), ("default", "keyword.other"), (":=", "keyword.operator.assignment"),
      ("QueueStatus.", "entity.name.type.enum"), ("Pending", "variable.other.enummember")]),
    ("  # Uniqueness only among Pending rows", [("# Uniqueness only among Pending rows", "comment.line.number-sign")]),
    ("  constraint exclusive on (.name, .actor) filter .status = QueueStatus.Pending;",
     [("constraint", "keyword.other.constraint"), ("exclusive", "support.function.constraint"),
      ("name", "variable.other.property"), ("actor", "variable.other.property"), ("filter", "keyword.other"),
      ("status", "variable.other.property"), ("=", "keyword.operator.comparison"),
      ("Pending", "variable.other.enummember")]),
    ("  slug: str { constraint regexp(r'^[a-z]+$'); };",
     [("regexp", "support.function.constraint"), ("r'^[a-z]+$'", "string.quoted.raw")]),
    ("  full_name := .name ++ ' ' ++ .slug;", [("full_name", "variable.other.property.declaration"),
                                               ("++", "keyword.operator"), ("' '", "string.quoted.single")]),
    ("}", []),
    ("scalar type Slug extending str;", [("scalar type", "storage.type"), ("Slug", "entity.name.type.class")]),
    ("module billing {", [("module", "storage.type.module"), ("billing", "entity.name.namespace")]),
    ("  scalar type Status extending enum<Draft, 'Paid in full'>;", [("'Paid in full'", "string.quoted.single")]),
    ("}", []),
    ("migration { rename property Job.name to title; }",
     [("migration", "keyword.other"), ("rename", "keyword.other"), ("to", "keyword.other")]),
]

QUERY = [
    ("update Job", [("update", "keyword.control.query"), ("Job", "entity.name.type")]),
    ("  filter .id = $id<uuid>", [("filter", "keyword.control.query"), ("id", "variable.other.property"),
                                  ("=", "keyword.operator.comparison"), ("$id", "variable.parameter"),
                                  ("uuid", "support.type.builtin")]),
    ("  set { status := QueueStatus.Running, claimed_at := now() };",
     [("set", "keyword.control.query"), (":=", "keyword.operator.assignment"),
      ("QueueStatus", "entity.name.type.enum"), ("Running", "variable.other.enummember"),
      ("now", "support.function")]),
    ("select Job { id, name, owner: { email } } filter .actor = <str>$actor and .name ilike '%x%'",
     [("select", "keyword.control.query"), ("Job", "entity.name.type"), ("str", "support.type.builtin"),
      ("$actor", "variable.parameter"), ("and", "keyword.operator.word"), ("ilike", "keyword.operator.word"),
      ("'%x%'", "string.quoted.single")]),
    ("order by .name desc then .claimed_at limit 10;",
     [("order", "keyword.control.query"), ("desc", "keyword.control.query"), ("then", "keyword.control.query"),
      ("10", "constant.numeric")]),
    ("for name in array_unpack(<array<str>>$names) union (insert Job { name := name }) # bulk",
     [("for", "keyword.control.query"), ("array_unpack", "support.function"), ("$names", "variable.parameter"),
      ("union", "keyword.control.query"), ("insert", "keyword.control.query"), ("# bulk", "comment.line.number-sign")]),
    ("insert Tag { name := 'x' } unless conflict on .name else (select Tag);",
     [("unless", "keyword.control.query"), ("conflict", "keyword.control.query"), ("else", "keyword.control.query")]),
]


def render(lang: str, title: str, cases) -> str:
    out = [f'# SYNTAX TEST "source.{lang}" "{title}"']
    for line, checks in cases:
        out.append(line)
        for check in checks:
            part, scope = check[0], check[1]
            nth = check[2] if len(check) > 2 else 0
            col = -1
            for _ in range(nth + 1):
                col = line.index(part, col + 1)
            width = len(part.rstrip(".")) if part.endswith(".") else len(part)
            if col == 0:
                out.append("# <" + "-" * width + f" {scope}.{lang}")
            else:
                out.append("#" + " " * (col - 1) + "^" * width + f" {scope}.{lang}")
    return "\n".join(out) + "\n"


(HERE / "schema.tmtest").write_text(render("esdl", "schema files", SCHEMA))
(HERE / "query.tmtest").write_text(render("edgeql", "query files", QUERY))
