"""An insert leaving out an optional parameter (its column's default applies) into a type whose
access policies read globals: the policy check's global parameters are numbered as the rest of
each statement variant (they were left as the full statement's ``$3`` / ``$4``, so every call
failed: 'bind message supplies 2 parameters, but prepared statement requires 4'). Gel: the
insert succeeds, the policies checked (https://docs.geldata.com/reference/datamodel/access_policies).
Run on PostgreSQL 15 with data; the runners send ``variant.sent``."""

from __future__ import annotations

import re

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
global current_user_id: uuid;
global current_user := (select User filter .id = global current_user_id);
global is_admin: bool { default := false };
type User { required email: str { constraint exclusive; }; }
type Note {
  required owner: User { default := global current_user; };
  required body: str;
  public: bool { default := false };
  access policy owner_all allow all using (.owner ?= global current_user);
  access policy public_read allow select using (.public ?? false);
  access policy admin allow all using (global is_admin);
  access policy no_empty deny insert, update write using (len(.body) = 0) { errmessage := 'empty note' };
}
"""

QUERIES = {"add_note": "insert Note { body := <str>$body, public := <optional bool>$public };"}


def _sources():
    return {"lib/schema.esdl": SCHEMA, **{f"lib/{k}.edgeql": v for k, v in QUERIES.items()}}


def test_each_variant_numbers_the_policy_globals_it_sends(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    uid = pg.execute("INSERT INTO \"user\" (email) VALUES ('a@x') RETURNING id")[0][0]
    plan = next(q for q in check_library(_sources(), Options(library="lib")).queries if q.name == "add_note")
    assert len(plan.variants) == 2
    values = {p.index: p for p in plan.params}
    for variant, public in zip(plan.variants, (True, None)):
        numbers = sorted({int(n) for n in re.findall(r"\$([0-9]+)", variant.sql)})
        assert numbers == list(range(1, len(variant.sent) + 1)), variant.sql
        by_name = {"body": f"note {public}", "public": public, "global default::current_user_id": uid,
                   "global default::is_admin": None}
        args = [by_name[values[i].name] for i in variant.sent]
        sql = re.sub(r"\$([0-9]+)", r"%(p\1)s", variant.sql.replace("%", "%%"))
        pg.execute(sql, {f"p{k}": v for k, v in enumerate(args, 1)})
    assert [tuple(r) for r in pg.execute("SELECT body, public, owner_id FROM note ORDER BY body")] == [
        ("note None", False, uid), ("note True", True, uid)]
