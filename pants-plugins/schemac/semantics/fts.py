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
(:func:`schemac.pgsql.fts.query_sql`), not Postgres': plain terms are ORed, ``"quoted
phrases"``, ``-term`` and ``!term`` are required (present, or absent), and ``AND`` / ``OR``
between terms make them required / optional.

This module is the checker's side: the index's declaration, ``fts::search``'s arguments; the
SQL of the document, the query and the weights is :mod:`schemac.pgsql.fts`'s.
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
    """``'english'::regconfig`` of ``eng``. (Still the checker's: ``exprs.py`` gives
    ``qir.FtsQuery`` the configuration's SQL; it moves to :mod:`schemac.pgsql.fts` when the node
    holds the language.)"""
    return f"{sql_string(LANGUAGES[language])}::regconfig"


#: One part of a type's document: (the indexed value as written, the module it was written in,
#: its fts::Language member, its fts::Weight member or ``None``).
Part = Tuple[object, str, str, Optional[str]]

#: How the score of a search is spelled once :func:`desugar_search_bindings` has rewritten
#: ``res.score``: a function name no source text can spell.
SCORE_FUNC = "fts::search().score"

#: Gel's default weights of the categories A, B, C, D (https://docs.geldata.com/reference/stdlib/fts).
DEFAULT_WEIGHTS = (1.0, 0.5, 0.25, 0.125)


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
