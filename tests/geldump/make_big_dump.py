"""Write a large Gel dump (for the bounded-memory measurement of ``import-gel-dump``; see
docs/moving-from-gel.md, "Size"): ``python tests/geldump/make_big_dump.py OUT.dump ITEMS``.

The library it matches is :data:`SCHEMA` (written next to the dump as ``OUT.dump.lib/schema.esdl``).
Rows are generated as they are written: the writer holds one block at a time.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gelwriter as gw  # noqa: E402

SCHEMA = """
type User {
  required email: str { constraint exclusive; };
}

type Item {
  required name: str;
  n: int64;
  at: datetime;
  price: decimal;
  tags: array<str>;
  doc: json;
  owner: User;
  multi watchers: User;
}
"""

S = gw.scalar
USERS = 1000


def user_id(i: int) -> uuid.UUID:
    return uuid.UUID(int=(1 << 120) + i)


def item_id(i: int) -> uuid.UUID:
    return uuid.UUID(int=(2 << 120) + i)


def main(out: str, items: int) -> None:
    base = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    users = ((user_id(i), f"user{i}@example.com") for i in range(USERS))
    rows = ((item_id(i), f"item number {i} " + "x" * (i % 40), i, base + dt.timedelta(seconds=i), f"{i % 1000}.{i % 100:02d}",
             ["red", "green", f"t{i % 7}"], {"i": i, "k": "v" * (i % 10)}, user_id(i % USERS))
            for i in range(items))
    watchers = ((item_id(i), user_id((i * 7 + k) % USERS)) for i in range(items) for k in range(2))
    tables = [
        gw.object_table("default::User", [("id", S("uuid")), ("email", S("str"))], users),
        gw.object_table("default::Item", [("id", S("uuid")), ("name", S("str")), ("n", S("int64")),
                                          ("at", S("datetime")), ("price", S("decimal")), ("tags", gw.array(S("str"))),
                                          ("doc", S("json")), ("owner", S("uuid"))], rows, links=("owner",)),
        gw.pointer_table("default::Item", "watchers", gw.obj("default::User"), watchers),
    ]
    gw.write_dump(out, tables, rows_per_block=5000)
    lib = out + ".lib"
    os.makedirs(lib, exist_ok=True)
    with open(os.path.join(lib, "schema.esdl"), "w") as fh:
        fh.write(SCHEMA)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
