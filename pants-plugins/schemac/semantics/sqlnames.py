"""SQL identifier and literal spelling for Postgres, and deterministic object names.

Two quoting styles are used on purpose:

* :func:`qi` always double-quotes. Used for every identifier in DDL and DML statements
  (``CREATE TABLE "order"``, ``INSERT INTO "job" ("name")``).
* :func:`quote_ident` quotes only when needed, exactly like Postgres' ``quote_ident()`` and
  ``pg_get_expr()`` (https://www.postgresql.org/docs/15/functions-string.html). Used inside
  expressions (index predicates, filters), so a predicate reads the way Postgres prints it back
  (``WHERE (status = 'Pending')``), which is also what a later schema diff compares against.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Iterable

#: Postgres 15 keywords that are not UNRESERVED (``select word from pg_get_keywords() where
#: catcode <> 'U'``); ``quote_ident`` quotes these. A test checks this list against the server.
NON_UNRESERVED_KEYWORDS = frozenset(
    """
    all analyse analyze and any array as asc asymmetric authorization between bigint binary bit
    boolean both case cast char character check coalesce collate collation column concurrently
    constraint create cross current_catalog current_date current_role current_schema current_time
    current_timestamp current_user dec decimal default deferrable desc distinct do else end except
    exists extract false fetch float for foreign freeze from full grant greatest group grouping
    having ilike in initially inner inout int integer intersect interval into is isnull join
    lateral leading least left like limit localtime localtimestamp national natural nchar none
    normalize not notnull null nullif numeric offset on only or order out outer overlaps overlay
    placing position precision primary real references returning right row select session_user
    setof similar smallint some substring symmetric table tablesample then time timestamp to
    trailing treat trim true union unique user using values varchar variadic verbose when where
    window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse
    xmlpi xmlroot xmlserialize xmltable
    """.split()
)

#: Postgres' identifier length limit in bytes (NAMEDATALEN - 1).
MAX_IDENTIFIER_BYTES = 63

_SAFE_IDENT = re.compile(r"^[a-z_][a-z0-9_$]*$")


@functools.lru_cache(maxsize=None)  # pure, and asked again and again for the same names
def qi(name: str) -> str:
    """Always-quoted identifier: ``order`` -> ``"order"``, ``a"b`` -> ``"a""b"``."""
    return '"' + name.replace('"', '""') + '"'


def quote_ident(name: str) -> str:
    """Quote ``name`` only if Postgres' ``quote_ident()`` would: when it is not a lower-case
    simple identifier or is a non-unreserved keyword."""
    if _SAFE_IDENT.match(name) and name not in NON_UNRESERVED_KEYWORDS:
        return name
    return qi(name)


def sql_string(value: str) -> str:
    """A standard-conforming SQL string literal: ``it's`` -> ``'it''s'``. Backslashes are
    literal (``standard_conforming_strings`` is on by default since Postgres 9.1)."""
    if "\0" in value:
        raise ValueError("NUL bytes cannot appear in Postgres text")
    return "'" + value.replace("'", "''") + "'"


def template_text(sql: str) -> str:
    """``sql`` (a literal, an identifier: any text that may come from the user) spelled into the
    template of a ``schemac.pgsql.calls`` spelling, which the lowering fills with
    ``str.format``: its braces doubled, so ``to_str(d, 'YYYY{')`` or a format ``'{0}'`` stays
    the text it is and is never read as a placeholder."""
    return sql.replace("{", "{{").replace("}", "}}")


def snake_case(name: str) -> str:
    """``QueueStatus`` -> ``queue_status``, ``HTTPRequest`` -> ``http_request``,
    ``userID`` -> ``user_id``; already snake_case names are unchanged."""
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.replace("::", "_").lower()


def short_identifier(name: str) -> str:
    """``name`` when it fits Postgres' 63 bytes, else cut (at a character boundary) and suffixed
    with ``_`` and 8 hex digits of its SHA-256: unique and stable, where Postgres would silently
    truncate it (and two long names sharing their first 63 bytes would become one)."""
    raw = name.encode("utf-8")
    if len(raw) <= MAX_IDENTIFIER_BYTES:
        return name
    digest = hashlib.sha256(raw).hexdigest()[:8]
    cut = raw[: MAX_IDENTIFIER_BYTES - 9].decode("utf-8", "ignore")
    return f"{cut}_{digest}"


def object_name(prefix: str, table: str, columns: Iterable[str]) -> str:
    """Deterministic constraint/index name ``<prefix>_<table>_<col>_<col>``, e.g.
    ``uq_job_name_actor``. Names longer than Postgres' 63-byte limit are cut and suffixed with
    8 hex digits of their SHA-256 so they stay unique and stable."""
    return short_identifier("_".join([prefix, table, *columns]))


def global_setting(qualname: str) -> str:
    """The transaction-local setting (``set_config(name, value, true)``) through which a
    generated write statement hands the value of global ``qualname`` to the triggers that read
    it: ``schemac.g_default__current_user_id_<hash>`` (settings' names are case-insensitive; the
    hash of the exact name keeps two globals apart)."""
    key = re.sub(r"[^a-z0-9_]", "_", qualname.lower().replace("::", "__"))[:40]
    return f"schemac.g_{key}_{hashlib.sha256(qualname.encode()).hexdigest()[:8]}"
