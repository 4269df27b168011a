"""How Postgres spells Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts):
a type's document (``setweight(to_tsvector(...), 'A') || ...``, the expression of its GIN
index and of ``fts::search``), a Gel query as a ``tsquery`` (:func:`query_sql`), and the
weights ``ts_rank`` takes (:func:`weights_sql`). The checker's side --
:mod:`schemac.semantics.fts` -- reads the index's declaration and ``fts::search``'s arguments.
"""

from __future__ import annotations

from typing import Optional

from schemac.semantics.fts import DEFAULT_WEIGHTS, regconfig


def document_part(column_sql: str, language: str, weight: Optional[str]) -> str:
    """One property's share of the document: its words in weight category ``weight`` (``A``
    when ``fts::with_options`` names none: Gel's default ``weight_category``)."""
    vec = f"to_tsvector({regconfig(language)}, COALESCE({column_sql}, ''))"
    return f"setweight({vec}, '{weight or 'A'}')"


def query_sql(text_sql: str, config_sql: str) -> str:
    """The ``tsquery`` of a Gel full-text query ``text_sql`` (a SQL ``text`` expression), as
    Gel's docs describe its syntax (https://docs.geldata.com/reference/stdlib/fts):

    * the query is split into terms at white space; a term is a word or a ``"quoted phrase"``,
      optionally prefixed by ``-`` or ``!`` (the object must not contain it); an upper-case
      ``AND`` or ``OR`` between two terms is a keyword, not a term;
    * each term becomes ``phraseto_tsquery(config, term)`` (stemmed, stop words dropped; the
      words of a phrase in sequence), negated with ``!`` when prefixed;
    * a term next to an ``OR`` is optional; else a term next to an ``AND`` is required; else a
      phrase or an excluded term is required and a plain word optional;
    * the query is ``(opt1 | opt2 | ...) & req1 & req2 ...``: at least one optional term (when
      there are any) and every required one. A query without terms (or only stop words) matches
      nothing.

    One scalar sub-select over ``regexp_matches``; Postgres computes it once per statement."""
    return (
        "(SELECT concat_ws(' & ', '(' || string_agg(CASE WHEN NOT \"_t\".\"req\" THEN \"_t\".\"tq\" END, ' | ' "
        "ORDER BY \"_t\".\"n\") || ')', string_agg(CASE WHEN \"_t\".\"req\" THEN \"_t\".\"tq\" END, ' & ' "
        "ORDER BY \"_t\".\"n\"))::tsquery "
        "FROM (SELECT \"_u\".\"n\", CASE WHEN \"_u\".\"neg\" THEN '!(' ELSE '(' END || \"_u\".\"v\" || ')' AS \"tq\", "
        "CASE WHEN 'OR' IN (\"_u\".\"kb\", \"_u\".\"ka\") THEN false WHEN 'AND' IN (\"_u\".\"kb\", \"_u\".\"ka\") "
        "THEN true ELSE \"_u\".\"neg\" OR \"_u\".\"phrase\" END AS \"req\" "
        "FROM (SELECT \"_k\".\"n\", \"_k\".\"neg\", \"_k\".\"phrase\", \"_k\".\"kb\", "
        "lead(\"_k\".\"kb\") OVER (ORDER BY \"_k\".\"n\") AS \"ka\", "
        f"phraseto_tsquery({config_sql}, \"_k\".\"body\")::text AS \"v\" "
        "FROM (SELECT \"_m\".\"n\", \"_m\".\"neg\", \"_m\".\"phrase\", \"_m\".\"body\", \"_m\".\"kw\", "
        "CASE WHEN count(*) FILTER (WHERE NOT \"_m\".\"kw\") OVER (ORDER BY \"_m\".\"n\" ROWS BETWEEN UNBOUNDED "
        "PRECEDING AND 1 PRECEDING) > 0 THEN lag(CASE WHEN \"_m\".\"kw\" THEN \"_m\".\"body\" END) "
        "OVER (ORDER BY \"_m\".\"n\") END AS \"kb\" "
        "FROM (SELECT \"_r\".\"n\", \"_r\".\"m\"[1] <> '' AS \"neg\", \"_r\".\"m\"[2] IS NOT NULL AS \"phrase\", "
        "COALESCE(\"_r\".\"m\"[2], \"_r\".\"m\"[3]) AS \"body\", \"_r\".\"m\"[1] = '' AND \"_r\".\"m\"[3] IS NOT NULL "
        "AND \"_r\".\"m\"[3] IN ('AND', 'OR') AS \"kw\" "
        f"FROM regexp_matches({text_sql}, '([-!]?)(?:\"([^\"]*)\"|(\\S+))', 'g') WITH ORDINALITY "
        "AS \"_r\"(\"m\", \"n\")) AS \"_m\") AS \"_k\" WHERE NOT \"_k\".\"kw\") AS \"_u\" "
        "WHERE \"_u\".\"v\" <> '') AS \"_t\")")


def weights_sql(weights_sql_: Optional[str]) -> str:
    """The ``real[]`` ts_rank takes (categories D, C, B, A) for Gel's ``weights`` argument (an
    ``array<float64>`` of the weights of A, B, C, D, missing ones 0; empty: Gel's defaults
    1, 0.5, 0.25, 0.125); ``None``: the defaults."""
    if weights_sql_ is None:
        return "'{" + ",".join(str(w) for w in reversed(DEFAULT_WEIGHTS)) + "}'::real[]"
    default = "'{" + ",".join(str(w) for w in DEFAULT_WEIGHTS) + "}'"
    return ("(SELECT ARRAY[\"_w\".\"w\"[4], \"_w\".\"w\"[3], \"_w\".\"w\"[2], \"_w\".\"w\"[1]]::real[] FROM "
            f"(SELECT COALESCE(({weights_sql_})::float8[], {default}::float8[]) || '{{0,0,0,0}}'::float8[] AS \"w\") "
            "AS \"_w\")")
