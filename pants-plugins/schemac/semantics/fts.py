"""Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts) on Postgres.

``index fts::index on (fts::with_options(.body, language := fts::Language.eng))`` (or a tuple
of such, each with an optional ``weight_category := fts::Weight.A``) declares the type's
searchable document. It lowers to a GIN index over the document's ``tsvector``::

    to_tsvector('english'::regconfig, COALESCE(body, ''))          -- one property
    setweight(to_tsvector(...), 'A') || setweight(to_tsvector(...), 'B')  -- several, weighted

and ``fts::search(Doc, <str>$q [, language := 'eng'])`` in a filter of ``select Doc`` (alone or
under ``exists``) lowers to ``<that document> @@ websearch_to_tsquery('english'::regconfig, $q)``
-- the same expression, so Postgres answers it from the index. Gel's query syntax (phrases in
quotes, ``OR``, ``-word``) is websearch_to_tsquery's. What is not lowered: the relevance score
(``fts::search(...).score``) and the ``weights`` argument (E0206).
"""

from __future__ import annotations

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
    """One property's share of the document."""
    vec = f"to_tsvector({regconfig(language)}, COALESCE({column_sql}, ''))"
    return f"setweight({vec}, '{weight}')" if weight else vec


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
