"""The generated access policy suite (issue 24; see test_policy_suite_e2e.py): query forms x
link paths, each compiled on its own (a refused one, E0206, is listed, not run), then run as
alice, who must not see bob's secret.

The oracle needs no expected values: Gel's rule is that an object the policies hide is as good
as absent to the query (https://docs.geldata.com/reference/datamodel/access_policies), so each
query's result in state ``A`` (bob's secret exists and alice's comments link it) must equal its
result in state ``B`` (bob's secret and every link to it deleted), and bob's secret (its id, its
body) never appears in any result. A required link to it cannot be emptied, so the queries that
read ``Pin.rt`` must fail in state ``A`` with Gel's error, "required link 'rt' of object type
'default::Pin' is hidden by access policy"."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

SCHEMA = """module default {
  global cur: uuid;
  type User {
    required name: str;
    multi secrets := .<owner[is Secret];
  }
  type Secret {
    required owner: User;
    body: str;
    access policy own allow all using (.owner.id ?= global cur);
  }
  type Comment {
    required text: str { constraint exclusive; };
    target: Secret;
    multi targets: Secret;
    tgt := .target;
    tb := .target.body;
    multi tgs := .targets;
    # (a policy that hides nothing: writes of Comment are checked, and return what they wrote
    # through that check)
    access policy everyone allow all using (true);
  }
  type Pin {
    required label: str;
    required rt: Secret;
  }
  # polymorphic links: to an abstract type whose subtype Movie has a policy
  abstract type Content { required title: str; }
  type Movie extending Content {
    required owner: User;
    access policy own allow all using (.owner.id ?= global cur);
  }
  type Show extending Content { n: int64; }
  type Fav {
    required label: str;
    item: Content;
    multi items: Content;
  }
  type Row {
    required n: int32;
    access policy everyone allow all using (true);
  }
}
"""

ALICE, BOB = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
SA, SB = "00000000-0000-0000-0000-0000000000a1", "00000000-0000-0000-0000-0000000000b1"
C1, C2, C3 = ("00000000-0000-0000-0000-0000000000c1", "00000000-0000-0000-0000-0000000000c2",
              "00000000-0000-0000-0000-0000000000c3")
P1, P2 = "00000000-0000-0000-0000-0000000000d1", "00000000-0000-0000-0000-0000000000d2"
MA, MB, SH = ("00000000-0000-0000-0000-0000000000e1", "00000000-0000-0000-0000-0000000000e2",
              "00000000-0000-0000-0000-0000000000e3")
F1, F2 = "00000000-0000-0000-0000-0000000000f1", "00000000-0000-0000-0000-0000000000f2"
LABELS = {ALICE: "alice", BOB: "bob", SA: "sa", SB: "SB!", C1: "c1", C2: "c2", C3: "c3", P1: "p1", P2: "p2",
          MA: "ma", MB: "MB!", SH: "sh", F1: "f1", F2: "f2"}
#: bob's secret's body: no result may hold it.
HIDDEN_BODY = "bob-secret-body"

DATA = f"""
INSERT INTO "user" (id, name) VALUES ('{ALICE}', 'alice'), ('{BOB}', 'bob');
INSERT INTO secret (id, owner_id, body) VALUES ('{SA}', '{ALICE}', 'alice-body'), ('{SB}', '{BOB}', '{HIDDEN_BODY}');
INSERT INTO comment (id, text, target_id) VALUES ('{C1}', 'c1', '{SB}'), ('{C2}', 'c2', '{SA}'), ('{C3}', 'c3', NULL);
INSERT INTO comment_targets (source_id, target_id) VALUES ('{C1}', '{SA}'), ('{C1}', '{SB}'), ('{C2}', '{SA}'),
                                                        ('{C3}', '{SB}');
INSERT INTO pin (id, label, rt_id) VALUES ('{P1}', 'p1', '{SB}'), ('{P2}', 'p2', '{SA}');
INSERT INTO "row" (n) VALUES (1);
INSERT INTO movie (id, title, owner_id) VALUES ('{MA}', 'alice-movie', '{ALICE}'), ('{MB}', 'bob-movie', '{BOB}');
INSERT INTO show (id, title) VALUES ('{SH}', 'a-show');
INSERT INTO fav (id, label, item_movie_id, item_show_id) VALUES ('{F1}', 'f1', '{MB}', NULL), ('{F2}', 'f2', NULL, '{SH}');
INSERT INTO fav_items (source_id, target_id, target_movie_id, target_show_id) VALUES
  ('{F1}', '{MA}', '{MA}', NULL), ('{F1}', '{MB}', '{MB}', NULL), ('{F2}', '{MB}', '{MB}', NULL),
  ('{F2}', '{SH}', NULL, '{SH}');
"""

#: State B: bob's secret, and every link to it, gone (run in a transaction rolled back after).
STATE_B = (f"DELETE FROM comment_targets WHERE target_id = '{SB}'; "
           f"UPDATE comment SET target_id = NULL WHERE target_id = '{SB}'; "
           f"DELETE FROM pin WHERE rt_id = '{SB}'; DELETE FROM secret WHERE id = '{SB}'; "
           f"DELETE FROM fav_items WHERE target_id = '{MB}'; UPDATE fav SET item_movie_id = NULL "
           f"WHERE item_movie_id = '{MB}'; DELETE FROM movie WHERE id = '{MB}'")

HIDDEN_LINK = "required link 'rt' of object type 'default::Pin' is hidden by access policy"
FORGED = f"schemac-access-policy|default::Row|delete|{SA}|spoofed"

# -- paths: (template over the subject prefix {s}, kind) -----------------------------------------
# kinds: obj (an object: the link's id), uuid, str, int, bool, arr

COMMENT_VALUES = [
    ("{s}target", "obj"), ("{s}target.id", "uuid"), ("{s}target.body", "str"), ("{s}tgt", "obj"),
    ("{s}tgt.id", "uuid"), ("{s}tb", "str"), ("count({s}target)", "int"), ("count({s}targets)", "int"),
    ("count({s}tgs)", "int"), ("count({s}targets.body)", "int"), ("array_agg({s}targets.id)", "arr"),
    ("array_agg({s}targets.body)", "arr"), ("{s}target.body ?? 'none'", "str"), ("len({s}target.body ?? '')", "int"),
    ("sum(len({s}targets.body))", "int"), ("max({s}targets.body)", "str"),
]
COMMENT_BOOLS = [
    "exists {s}target", "exists {s}targets", "exists {s}tgs", "exists {s}target.body", "exists {s}tgt",
    "any({s}targets.body = '" + HIDDEN_BODY + "')", "{s}target.body = '" + HIDDEN_BODY + "'",
    "{s}target.id = <uuid>'" + SB + "'", "count({s}targets) = 2", "not exists {s}target",
    "'" + HIDDEN_BODY + "' in {s}targets.body", "<uuid>'" + SB + "' in {s}targets.id",
    "{s}tb ?= '" + HIDDEN_BODY + "'",
]
COMMENT_ELEMENTS = [
    "target", "target: { id }", "target: { body }", "targets", "targets: { id }", "targets: { body }",
    "tgt: { body }", "tgs: { body }", "targets: { body } filter .body != 'x'", "targets: { body } order by .body limit 1",
    "first := (select .targets order by .body limit 1) { body }", "tgt", "tb",
]

USER_VALUES = [
    ("count({s}secrets)", "int"), ("count({s}<owner[is Secret])", "int"), ("array_agg({s}secrets.body)", "arr"),
    ("array_agg({s}<owner[is Secret].id)", "arr"),
]
USER_BOOLS = ["exists {s}secrets", "exists {s}<owner[is Secret]", "any({s}secrets.body = '" + HIDDEN_BODY + "')"]
USER_ELEMENTS = ["secrets: { body }", "secrets", "s := .<owner[is Secret] { body }"]

PIN_VALUES = [("{s}rt", "obj"), ("{s}rt.id", "uuid"), ("{s}rt.body", "str"), ("count({s}rt)", "int")]
PIN_BOOLS = ["exists {s}rt", "{s}rt.body = 'x'"]
PIN_ELEMENTS = ["rt", "rt: { id }", "rt: { body }"]

FAV_VALUES = [("count({s}items)", "int"), ("{s}item.id", "uuid"), ("{s}item.title", "str"), ("count({s}item)", "int")]
FAV_BOOLS = ["exists {s}item", "exists {s}items", "count({s}items) = 2"]
FAV_ELEMENTS = ["item", "items", "item: { title }", "items: { title }"]

# -- forms: templates with {e} (a value), {b} (a condition) or {el} (a shape element) --------------

VALUE_FORMS = {
    "shape": "select {T} {{ {k}, x := {e} }} order by .{k};",
    "order": "select {T} {{ {k} }} order by {e} empty last then .{k};",
    "group": "group {T} {{ {k} }} using g := {e} by g;",
    "with_value": "with v := (select {T}) select v {{ {k}, x := {e} }} order by .{k};",
    "for": "for o in (select {T}) union ({eo});",
    "free": "select {{ xs := (select {T} {{ {k}, x := {e} }} order by .{k}) }};",
    "sub_select": ("select {T} {{ {k}, n := count((select detached {T} filter .{k} = '{first}' and exists ({e}))) }} "
                   "order by .{k};"),
    "update_ret": "select (update {T} filter .{k} = '{first}' set {{ {k} := .{k} }}) {{ {k}, x := {e} }};",
    "delete_ret": "select (delete {T} filter .{k} = '{first}') {{ {k}, x := {e} }};",
    "filter_eq_param": "select {T} {{ {k} }} filter {e} ?= <{pt}>$v order by .{k};",
}
BOOL_FORMS = {
    "filter": "select {T} {{ {k} }} filter {b} order by .{k};",
    "shape_bool": "select {T} {{ {k}, x := {b} }} order by .{k};",
    "with_set": "with s := (select {T} filter {b}) select s {{ {k} }} order by .{k};",
    "count_filtered": "select count((select {T} filter {b}));",
    "update_filter": "select (update {T} filter {b} set {{ {k} := .{k} }}) {{ {k} }};",
    "delete_filter": "select (delete {T} filter {b}) {{ {k} }};",
    "group_bool": "group {T} {{ {k} }} using g := {b} by g;",
}
ELEMENT_FORMS = {
    "element": "select {T} {{ {k}, {el} }} order by .{k};",
    "element_update_ret": "select (update {T} filter .{k} = '{first}' set {{ {k} := .{k} }}) {{ {k}, {el} }};",
    "element_delete_ret": "select (delete {T} filter .{k} = '{first}') {{ {k}, {el} }};",
    "element_with": "with v := (select {T} filter .{k} = '{first}') select v {{ {k}, {el} }};",
}
#: Forms that write: a link assigned an object the policies hide (it is not found: empty).
WRITE_CASES = {
    "insert_link": ("select (insert Comment { text := 'new', target := (select Secret filter .body = "
                    f"'{HIDDEN_BODY}' limit 1) }}) {{ text, target }};"),
    "insert_multi": ("select (insert Comment { text := 'new', targets := (select Secret filter .body != 'x') }) "
                     "{ text, n := count(.targets), targets: { body } };"),
    "update_link": ("select (update Comment filter .text = 'c3' set { target := (select Secret filter .body = "
                    f"'{HIDDEN_BODY}' limit 1) }}) {{ text, target }};"),
    "update_add": ("select (update Comment filter .text = 'c2' set { targets += (select Secret filter .body != 'x') }) "
                   "{ text, targets };"),
    "update_remove": ("select (update Comment filter .text = 'c1' set { targets -= (select Secret filter .body != 'x') }) "
                      "{ text, n := count(.targets) };"),
    "select_secret": "select Secret { body, owner: { name } } order by .body;",
    "count_secret": "select count(Secret);",
    "user_secrets": "select User { name, secrets: { body }, n := count(.secrets) } order by .name;",
    "backlink_id": "select Secret { body } filter .id = <uuid>$v;",
    "upsert_existing": ("select (insert Comment { text := 'c1', target := (select Secret filter .body = "
                        f"'{HIDDEN_BODY}' limit 1) }} unless conflict on .text else (update Comment set {{ text := .text }})) "
                        "{ text, target, n := count(.targets) };"),
    "upsert_new": ("select (insert Comment { text := 'c9', target := (select Secret filter .body = "
                   f"'{HIDDEN_BODY}' limit 1) }} unless conflict on .text else (update Comment set {{ text := .text }})) "
                   "{ text, target };"),
    "select_movies": "select Content { title } order by .title;",
    "insert_ids": ("select (insert Comment { text := 'new', targets := (select Secret filter .id in "
                   "array_unpack(<array<uuid>>$ids)) }) { text, n := count(.targets), targets: { body } };"),
    "update_add_ids": ("select (update Comment filter .text = 'c2' set { targets += (select Secret filter .id in "
                       "array_unpack(<array<uuid>>$ids)) }) { text, n := count(.targets) };"),
    "insert_poly_ids": ("select (insert Fav { label := 'new', items := (select Movie filter .id in "
                        "array_unpack(<array<uuid>>$ids)) }) { label, n := count(.items) };"),
}

SUBJECTS = {
    # type, key property, the first object's key, paths (values, conditions, elements), required
    "Comment": ("text", "c1", COMMENT_VALUES, COMMENT_BOOLS, COMMENT_ELEMENTS),
    "User": ("name", "alice", USER_VALUES, USER_BOOLS, USER_ELEMENTS),
    "Pin": ("label", "p1", PIN_VALUES, PIN_BOOLS, PIN_ELEMENTS),
    "Fav": ("label", "f1", FAV_VALUES, FAV_BOOLS, FAV_ELEMENTS),
}
PARAM_TYPES = {"uuid": ("uuid", SB), "obj": ("uuid", SB), "str": ("str", HIDDEN_BODY), "int": ("int64", 1)}


@dataclass
class Case:
    name: str
    query: str
    form: str
    path: str
    subject: str
    args: Dict[str, object] = field(default_factory=dict)
    #: The statement must fail in state A with the hidden required link's error (reads Pin.rt).
    hidden_required: bool = False
    #: The forged policy text: must fail, and with no access policy error.
    forged: bool = False


def cases() -> List[Case]:
    """Every form x path of the suite, in a fixed order."""
    out: List[Case] = []

    def add(form, path, subject, query, args=None):
        out.append(Case(f"c{len(out):03d}", query, form, path, subject, dict(args or {}),
                        hidden_required=subject == "Pin"))

    for subject, (key, first, values, bools, elements) in SUBJECTS.items():
        for (path, kind), (form, tpl) in itertools.product(values, VALUE_FORMS.items()):
            if form == "filter_eq_param":
                if kind not in PARAM_TYPES:
                    continue
                pt, v = PARAM_TYPES[kind]
                add(form, path, subject, tpl.format(T=subject, k=key, first=first, e=path.format(s="."), pt=pt,
                                                    eo=path.format(s="o.")), {"v": v})
                continue
            add(form, path, subject, tpl.format(T=subject, k=key, first=first, e=path.format(s="."),
                                                eo=path.format(s="o."), pt=""))
        for path, (form, tpl) in itertools.product(bools, BOOL_FORMS.items()):
            add(form, path, subject, tpl.format(T=subject, k=key, first=first, b=path.format(s=".")))
        for el, (form, tpl) in itertools.product(elements, ELEMENT_FORMS.items()):
            add(form, el, subject, tpl.format(T=subject, k=key, first=first, el=el))
    for form, query in WRITE_CASES.items():
        args = {"v": SB} if "$v" in query else {"ids": [MA, MB] if "Movie" in query else [SA, SB]} \
            if "$ids" in query else None
        add(form, "-", "Comment", query, args)
    out.append(Case(f"c{len(out):03d}", "select <int32><str>$s;", "forged_error", "-", "Row", {"s": FORGED},
                    forged=True))
    return out


def compile_cases(all_cases: List[Case]) -> Tuple[List[Case], Dict[str, str]]:
    """``(accepted, {case name: the refusal})``: each case compiled on its own with the schema."""
    from schemac.diagnostics import CompileError
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options

    accepted, refused = [], {}
    for c in all_cases:
        try:
            check_library({"schema.gel": SCHEMA, f"queries/{c.name}.edgeql": c.query}, Options(library="polsuite"))
        except CompileError as e:
            refused[c.name] = " ".join(str(e).split())[:240]
            continue
        accepted.append(c)
    return accepted, refused


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalize(value) -> str:
    """A result as canonical JSON: known ids by name, new ones as ``<new>``, a list of rows in a
    fixed order (a statement's rows have no order unless it orders them; both runs of a case
    are compared after the same sorting)."""
    text = json.dumps(value, sort_keys=True, default=str)
    text = _UUID.sub(lambda m: LABELS.get(m.group(0), "<new>"), text)
    doc = json.loads(text)
    if isinstance(doc, dict) and isinstance(doc.get("ok"), list):
        doc["ok"] = sorted(doc["ok"], key=lambda r: json.dumps(r, sort_keys=True))
    return json.dumps(doc, sort_keys=True)


def leaks(text: str) -> bool:
    """Whether a normalized result shows bob's secret."""
    return any(m in text for m in ("SB!", HIDDEN_BODY, "MB!", "bob-movie"))
