"""Compiling stays linear in the library's size (issue 27): the work a compile does on the
schema's tables grows 2x, not 4x, from N types (5N queries) to 2N.

It counts work, not time: the schema the compiler builds gets its collections of object types,
join tables and enums replaced by counting ones, and every scan of them (``values()``,
``items()``, ``keys()``, iterating) adds their length to a counter while the queries are planned
and the code is rendered. A pass that scans every table per query (as ``foreign_keys_violated``
did, rebuilding ``{table name: table}`` for every statement) makes that count quadratic.

The library exercises each per-query lookup of the schema: inserts and updates writing a single
link and a multi link (the foreign keys they can violate, the join tables), deletes (the foreign
keys referring to the deleted table, followed through ``ON DELETE CASCADE``), a backlink
``.<owner[is T]``, ``with module default`` and a type test ``[is T]``."""

from __future__ import annotations

from typing import Dict, List

import schemac.pipeline as pipeline
from schemac.pipeline import compile_library
from schemac.semantics.library import Options


def _library(n: int) -> Dict[str, str]:
    """``n`` types ``T0 .. T{n-1}``: each (but the first) links to the previous one by ``owner``
    (odd types: ``on target delete delete source``, so a cascade two tables deep at most; even
    types: the default, which refuses the delete) and ``multi tags``; 5 queries per type."""
    schema: List[str] = []
    queries: Dict[str, str] = {}
    for i in range(n):
        body = ["  required name: str { constraint exclusive; };", "  note: str;"]
        if i:
            policy = " { on target delete delete source; }" if i % 2 else ""
            body += [f"  owner: T{i - 1}{policy};", f"  multi tags: T{i - 1};"]
        schema.append(f"type T{i} {{\n" + "\n".join(body) + "\n}")
        links = (f", owner := (select T{i - 1} filter .id = <uuid>$owner), "
                 f"tags := (select T{i - 1} filter .id in array_unpack(<array<uuid>>$tags))") if i else ""
        queries[f"insert_t{i}"] = f"insert T{i} {{ name := <str>$name{links} }};"
        queries[f"update_t{i}"] = (
            f"update T{i} filter .id = <uuid>$id set {{ note := <str>$note"
            + (f", tags += (select T{i - 1} filter .id in array_unpack(<array<uuid>>$tags))" if i else "") + " };")
        queries[f"delete_t{i}"] = f"delete T{i} filter .id = <uuid>$id;"
        back = f", owned := .<owner[is T{i + 1}] {{ name }}" if i + 1 < n else ""
        queries[f"get_t{i}"] = f"with module default select T{i} {{ name{back} }} filter .id = <uuid>$id;"
        queries[f"pick_t{i}"] = f"select T{i} {{ name }} filter T{i} is T{i} and .name = <str>$name;"
    out = {"l/schema.esdl": "\n\n".join(schema) + "\n"}
    out.update({f"l/queries/{k}.edgeql": v + "\n" for k, v in queries.items()})
    return out


class _CountingDict(dict):
    def __init__(self, items, counter: List[int]):
        super().__init__(items)
        self.counter = counter

    def _scan(self) -> None:
        self.counter[0] += len(self)

    def values(self):  # type: ignore[override]
        self._scan()
        return super().values()

    def items(self):  # type: ignore[override]
        self._scan()
        return super().items()

    def keys(self):  # type: ignore[override]
        self._scan()
        return super().keys()

    def __iter__(self):
        self._scan()
        return super().__iter__()


class _CountingList(list):
    def __init__(self, items, counter: List[int]):
        super().__init__(items)
        self.counter = counter

    def __iter__(self):
        self.counter[0] += len(self)
        return super().__iter__()


def _work(n: int, monkeypatch) -> int:
    """Tables and enums scanned after the schema is built, compiling :func:`_library` of ``n``."""
    counter = [0]
    build = pipeline.build_schema

    def counted(*args, **kwargs):
        schema = build(*args, **kwargs)
        schema.types = _CountingDict(schema.types, counter)
        schema.enums = _CountingDict(schema.enums, counter)
        schema.join_tables = _CountingList(schema.join_tables, counter)
        return schema

    with monkeypatch.context() as m:
        m.setattr(pipeline, "build_schema", counted)
        out = compile_library(_library(n), Options(library="l"))
    # the library compiled in full: every query is in the generated code
    assert out["ts/queries.ts"].count("export async function ") == 5 * n
    return counter[0]


def test_the_schema_is_scanned_a_number_of_times_independent_of_the_queries(monkeypatch):
    n = 24
    small, big = _work(n, monkeypatch), _work(2 * n, monkeypatch)
    assert small > 0  # the counters see the compiler's scans
    # linear: 2x (plus a little for what does not scale); a scan per query would make it ~4x
    assert big <= 2.25 * small, (small, big)
    # and in absolute terms: a few scans of the schema per compile, not one per query
    assert big <= 20 * (2 * n + 2 * n), (small, big)
