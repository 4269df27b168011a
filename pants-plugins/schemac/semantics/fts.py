"""Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts) on Postgres.

``index fts::index on (fts::with_options(.body, language := fts::Language.eng))`` (or a tuple
of such, each with an optional ``weight_category := fts::Weight.A``, ``A`` when omitted, as
Gel's ``fts::with_options`` declares it) declares the type's searchable document. It lowers to a
GIN index over the document's ``tsvector``::

    setweight(to_tsvector('english'::regconfig, COALESCE(body, '')), 'A')       -- one property
    setweight(to_tsvector(...), 'A') || setweight(to_tsvector(...), 'B')          -- several

``fts::search(Doc, q [, language := 'eng'] [, weights := [...]])`` is Gel's ``optional
tuple<object: Doc, score: float32>``: the object when its document matches the query, with
its relevance. ``exists fts::search(...)`` in a filter is ``<document> @@ <query>`` (the
indexed expression, so Postgres answers it from the index); ``res.score`` is
``ts_rank(<weights>, <document>, <query>)`` (a ``real``). The query is Gel's own syntax
(:func:`query_sql`), not Postgres': plain terms are ORed, ``"quoted phrases"``, ``-term`` and
``!term`` are required (present, or absent), and ``AND`` / ``OR`` between terms make them
required / optional.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from schemac.syntax import tree as ast
from schemac.semantics.sqlnames import sql_string

#: fts::Language members (ISO 639-3) -> the Postgres text search configuration of that language.
LANGUAGES = {
    "ara": "arabic", "hye": "armenian", "eus": "basque", "cat": "catalan", "dan": "danish", "nld": "dutch",
    "eng": "english", "fin": "finnish", "fra": "french", "deu": "german", "ell": "greek", "hin": "hindi",
    "hun": "hungarian", "ind": "indonesian", "gle": "irish", "ita": "italian", "lit": "lithuanian",
    "npi": "nepali", "nor": "norwegian", "por": "portuguese", "ron": "romanian", "rus": "russian",
    "srp": "serbian", "spa": "spanish", "swe": "swedish", "tam": "tamil", "tur": "turkish", "yid": "yiddish",
}

WEIGHTS = ("A", "B", "C", "D")


def regconfig(language: str) -> str:
    return f"{sql_string(LANGUAGES[language])}::regconfig"


def document_part(column_sql: str, language: str, weight: Optional[str]) -> str:
    """One property's share of the document: its words in weight category ``weight`` (``A``
    when ``fts::with_options`` names none: Gel's default ``weight_category``)."""
    vec = f"to_tsvector({regconfig(language)}, COALESCE({column_sql}, ''))"
    return f"setweight({vec}, '{weight or 'A'}')"


#: One part of a type's document: (the indexed value as written, the module it was written in,
#: its fts::Language member, its fts::Weight member or ``None``).
Part = Tuple[object, str, str, Optional[str]]

#: How the score of a search is spelled once :func:`desugar_search_bindings` has rewritten
#: ``res.score``: a function name no source text can spell.
SCORE_FUNC = "fts::search().score"

#: Gel's default weights of the categories A, B, C, D (https://docs.geldata.com/reference/stdlib/fts).
DEFAULT_WEIGHTS = (1.0, 0.5, 0.25, 0.125)


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


def enum_member(expr, enum: str) -> Optional[str]:
    """``fts::Language.eng`` -> ``eng`` (``expr`` an EnumRef of ``enum``), else ``None``."""
    if isinstance(expr, ast.EnumRef) and expr.enum in (enum, "std::" + enum):
        return expr.member
    return None


def with_options(expr) -> Optional[Tuple[object, List[ast.NamedArg]]]:
    """``fts::with_options(value, named...)`` -> (value, named arguments), else ``None``."""
    if isinstance(expr, ast.FuncCall) and expr.name in ("fts::with_options", "std::fts::with_options") \
            and expr.args and not isinstance(expr.args[0], ast.NamedArg):
        return expr.args[0], [a for a in expr.args[1:]]  # type: ignore[misc]
    return None


_SEARCH_NAMES = ("fts::search", "std::fts::search")
#: Nodes whose sub-expressions see another subject than the select around them.
_SCOPES = (ast.SelectExpr, ast.SubSelect, ast.ShapeExpr, ast.GroupExpr, ast.ForExpr, ast.WithExpr,
           ast.StatementExpr)


def _search_of(value):
    """``(select fts::search(T, q, ...) [filter f] [order by o] [offset n] [limit m])`` or
    ``fts::search(T, q, ...)`` -> (the call, the select or ``None``); else ``None``."""
    sel = None
    if isinstance(value, ast.SelectExpr) and value.shape is None:
        sel, value = value, value.subject
    if isinstance(value, ast.FuncCall) and value.name in _SEARCH_NAMES and value.args \
            and isinstance(value.args[0], ast.VarRef):
        return value, sel
    return None


def _scope_nodes(expr):
    """The nodes of ``expr`` in its own scope: not those of a nested select or shape."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.child_nodes(node))


def desugar_search_bindings(q: ast.WithQuery, reporter) -> Optional[ast.WithQuery]:
    """``with res := (select fts::search(T, q, ...) [filter/order by .score ...]) select
    res.object { ..., score := res.score } order by res.score desc`` as the selection it is:
    ``res`` the objects of ``T`` whose document matches (``select T filter exists
    fts::search(T, q, ...)``), ``res.object`` those objects, and ``res.score`` the score of the
    object in scope (:data:`SCORE_FUNC`). Gel's ``fts::search`` is an ``optional tuple<object:
    T, score: float32>`` (https://docs.geldata.com/reference/stdlib/fts): in a select of
    ``res.object`` both paths come from the same tuple, so the score is the match's own. The
    score is read only there (a select or shape of ``res.object``: its shape's values, filter
    and order) and in the binding's own clauses (``.score``); anywhere else, and ``res`` read
    other than through ``.object`` / ``.score``, is E0206. ``q`` unchanged when it binds no
    search; ``None`` after reporting."""
    searches = {}
    for b in q.bindings:
        found = _search_of(b.value)
        if found is not None:
            searches[b.name] = found[0]
    if not searches:
        return q
    allowed = set()

    def is_ref(n, member=None) -> bool:
        return isinstance(n, ast.EnumRef) and n.enum in searches and (member is None or n.member == member)

    def allow(clauses) -> None:
        for c in clauses:
            if c is None:
                continue
            for n in _scope_nodes(c):
                if is_ref(n, "score"):
                    allowed.add(id(n))

    roots = [b.value for b in q.bindings] + [q.body]
    # Selects of res.object: their filter, order and the values of their shape.
    stack = list(roots)
    while stack:
        n = stack.pop()
        subject, shape, clauses = None, None, []
        if isinstance(n, (ast.SelectValue, ast.SelectExpr)):
            subject = n.value if isinstance(n, ast.SelectValue) else n.subject
            clauses = [n.filter] + [o.expr for o in n.order]
            if isinstance(subject, ast.ShapeExpr):
                subject, shape = subject.base, subject.shape
            elif isinstance(n, ast.SelectExpr):
                shape = n.shape
        elif isinstance(n, ast.ShapeExpr):
            subject, shape = n.base, n.shape
        if is_ref(subject, "object"):
            allow(clauses + [el.value for el in shape or ()])
        stack.extend(ast.child_nodes(n))
    failed = []

    def rewrite(n):
        if is_ref(n, "object"):
            return ast.VarRef(n.enum, n.span)
        if is_ref(n, "score"):
            if id(n) not in allowed:
                failed.append(n)
                return n
            return ast.FuncCall(SCORE_FUNC, searches[n.enum].args, n.span)
        if is_ref(n) or (isinstance(n, ast.VarRef) and n.name in searches) \
                or (isinstance(getattr(n, "type_name", None), str) and n.type_name in searches):
            failed.append(n)  # (`select res`: the tuples)
        return n

    bindings = []
    for b in q.bindings:
        found = _search_of(b.value)
        if found is None:
            bindings.append(dataclasses.replace(b, value=ast.map_expr(b.value, rewrite)))
            continue
        call, sel = found
        target = call.args[0]

        def own(n, call=call):
            if isinstance(n, ast.Path) and n.steps == ("score",):
                return ast.FuncCall(SCORE_FUNC, call.args, n.span)
            if isinstance(n, ast.Path) and len(n.steps) > 1 and n.steps[0] == "object":
                return dataclasses.replace(n, steps=n.steps[1:])
            return n

        match = ast.UnaryOp("exists", call, call.span)
        filt, order, offset, limit = match, (), None, None
        if sel is not None:
            if sel.filter is not None:
                filt = ast.BinOp("and", match, ast.map_expr(sel.filter, own), sel.filter.span)
            order = tuple(dataclasses.replace(o, expr=ast.map_expr(o.expr, own)) for o in sel.order)
            offset, limit = sel.offset, sel.limit
        value = ast.SelectExpr(ast.VarRef(target.name, target.span), None, filt, order, offset, limit,
                               b.value.span)  # type: ignore[union-attr]
        bindings.append(dataclasses.replace(b, value=value))
    body = ast.map_expr(q.body, rewrite)
    value = getattr(body, "value", None)
    if isinstance(body, ast.SelectValue) and isinstance(value, ast.ShapeExpr) and isinstance(value.base, ast.VarRef) \
            and value.base.name in searches:
        # `select res.object { ... } order by res.score`: a select of the with name's objects
        body = ast.SelectQuery(value.base.name, value.base.span, value.shape, body.filter, body.order, body.offset,
                               body.limit, body.span)
    for n in failed:
        name = n.enum if isinstance(n, ast.EnumRef) else n.name if isinstance(n, ast.VarRef) else n.type_name
        what = f"'{name}.score' outside a select of '{name}.object'" if is_ref(n, "score") else \
            f"'{name}', a set of fts::search() results, other than as '{name}.object' or '{name}.score'"
        reporter.error("E0206", f"reading {what} is not supported", getattr(n, "type_span", n.span),
                       f"select {name}.object {{ ..., score := {name}.score }} [order by {name}.score desc]")
    if failed:
        return None
    return dataclasses.replace(q, bindings=tuple(bindings), body=body)
