"""How Postgres spells the functions of Gel's extensions (``ext::pgvector::cosine_distance(a,
b)``, ``ext::postgis::makepoint(x, y)``): each is the function or operator of the Postgres
extension of the same meaning. The checker (:func:`schemac.semantics.exprs._ext_func`) takes
their signatures from :mod:`schemac.semantics.extensions` and names the call by its Gel name
(``qir.Call.func``); the arguments are operands.

* pgvector: https://docs.geldata.com/reference/stdlib/pgvector
* pg_trgm: https://docs.geldata.com/reference/stdlib/pg_trgm
* pgcrypto: https://docs.geldata.com/reference/stdlib/pgcrypto
* fuzzystrmatch: https://docs.geldata.com/reference/stdlib/fuzzystrmatch
* pg_unaccent: https://docs.geldata.com/reference/stdlib/pg_unaccent
* postgis: https://docs.geldata.com/reference/stdlib/postgis (PostGIS's ``ST_`` name without
  its prefix)
"""

from __future__ import annotations

from typing import Dict, Tuple

from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir

#: Extension functions of a fixed arity (Gel name -> SQL template over ``{0}``...). An integer
#: argument is Postgres' ``integer``, cast from Gel's ``int64``.
_FIXED: Dict[str, str] = {
    "ext::pgvector::euclidean_distance": "({0} <-> {1})",
    "ext::pgvector::neg_inner_product": "({0} <#> {1})",
    "ext::pgvector::cosine_distance": "({0} <=> {1})",
    "ext::pgvector::euclidean_norm": "vector_norm({0})",
    "ext::pg_trgm::similarity": "similarity({0}, {1})",
    "ext::pg_trgm::similar": "({0} % {1})",
    "ext::pg_trgm::similarity_dist": "({0} <-> {1})",
    "ext::pg_trgm::word_similarity": "word_similarity({0}, {1})",
    "ext::pg_trgm::word_similar": "({0} <% {1})",
    "ext::pg_trgm::word_similarity_dist": "({0} <<-> {1})",
    "ext::pg_trgm::strict_word_similarity": "strict_word_similarity({0}, {1})",
    "ext::pg_trgm::strict_word_similar": "({0} <<% {1})",
    "ext::pg_trgm::strict_word_similarity_dist": "({0} <<<-> {1})",
    "ext::pgcrypto::digest": "digest({0}, {1})",
    "ext::pgcrypto::hmac": "hmac({0}, {1}, {2})",
    "ext::pgcrypto::crypt": "crypt({0}, {1})",
    "ext::fuzzystrmatch::soundex": "soundex({0})",
    "ext::fuzzystrmatch::difference": "difference({0}, {1})",
    "ext::fuzzystrmatch::levenshtein": "levenshtein({0}, {1})",
    "ext::fuzzystrmatch::levenshtein_less_equal": "levenshtein_less_equal({0}, {1}, CAST({2} AS integer))",
    "ext::fuzzystrmatch::metaphone": "metaphone({0}, CAST({1} AS integer))",
    "ext::fuzzystrmatch::dmetaphone": "dmetaphone({0})",
    "ext::fuzzystrmatch::dmetaphone_alt": "dmetaphone_alt({0})",
    "ext::pg_unaccent::unaccent": "unaccent({0})",
}

#: Extension functions whose spelling depends on the number of arguments (an optional last
#: one, PostGIS's overloads): Gel name -> arity -> template.
_BY_ARITY: Dict[str, Dict[int, str]] = {
    "ext::pgcrypto::gen_salt": {1: "gen_salt({0})", 2: "gen_salt({0}, CAST({1} AS integer))"},
    "ext::postgis::makepoint": {2: "ST_MakePoint({0}, {1})", 3: "ST_MakePoint({0}, {1}, {2})"},
    "ext::postgis::setsrid": {2: "ST_SetSRID({0}, CAST({1} AS integer))"},
    "ext::postgis::srid": {1: "CAST(ST_SRID({0}) AS bigint)"},
    "ext::postgis::x": {1: "ST_X({0})"},
    "ext::postgis::y": {1: "ST_Y({0})"},
    "ext::postgis::distance": {2: "ST_Distance({0}, {1})", 3: "ST_Distance({0}, {1}, {2})"},
    "ext::postgis::dwithin": {3: "ST_DWithin({0}, {1}, {2})"},
    "ext::postgis::area": {1: "ST_Area({0})"},
    "ext::postgis::length": {1: "ST_Length({0})"},
    "ext::postgis::intersects": {2: "ST_Intersects({0}, {1})"},
    "ext::postgis::contains": {2: "ST_Contains({0}, {1})"},
    "ext::postgis::within": {2: "ST_Within({0}, {1})"},
    "ext::postgis::astext": {1: "ST_AsText({0})"},
    "ext::postgis::asgeojson": {1: "ST_AsGeoJSON({0})"},
    "ext::postgis::geomfromtext": {1: "ST_GeomFromText({0})", 2: "ST_GeomFromText({0}, CAST({1} AS integer))"},
    "ext::postgis::to_geography": {1: "geography({0})"},
    "ext::postgis::to_geometry": {1: "geometry({0})"},
}


def _by_arity(templates: Dict[int, str]):
    """The spelling of a call by its number of arguments. ``consts`` are the Gel types of the
    overload the checker chose (PostGIS): an argument of a ``float64`` parameter that is
    another number is cast to ``double precision``."""

    def spell(node: qir.Call) -> Spelling:
        template = templates[len(node.args)]
        if node.consts:
            slots = [f"CAST({{{i}}} AS double precision)" if want == "float64" and a.type.scalar is not None
                     and a.type.scalar.name != "float64" else f"{{{i}}}"
                     for i, (want, a) in enumerate(zip(node.consts, node.args))]
            template = template.format(*slots)
        return Spelling(template, "o")

    return spell


CALLS_EXT: Dict[str, Entry] = {
    **{name: Spelling(template, "o") for name, template in _FIXED.items()},
    **{name: _by_arity(templates) for name, templates in _BY_ARITY.items()},
}

#: The Gel names of the extension functions spelled here.
EXT_NAMES: Tuple[str, ...] = tuple(_FIXED) + tuple(_BY_ARITY)
