"""Gel extensions (``using extension NAME;``) and what they lower to in Postgres.

Gel's extensions (https://docs.geldata.com/reference/datamodel/extensions) are of two kinds:

* wrappers of a Postgres extension -- ``pgvector`` (https://docs.geldata.com/reference/stdlib/pgvector),
  ``pg_trgm`` (https://docs.geldata.com/reference/stdlib/pg_trgm), ``pgcrypto``
  (https://docs.geldata.com/reference/stdlib/pgcrypto), ``fuzzystrmatch``
  (https://docs.geldata.com/reference/stdlib/fuzzystrmatch) and ``pg_unaccent``. The migration creates the Postgres
  extension (``CREATE EXTENSION IF NOT EXISTS``) before the tables, and their types, functions
  and index kinds lower to it (:data:`EXT_FUNCTIONS`, :data:`EXT_INDEXES`,
  :func:`vector_scalar`; the functions' SQL is in :mod:`schemac.pgsql.calls_ext`);
* services of the Gel server -- ``auth``, ``ai``, ``graphql``, ``edgeql_http`` and the others of
  :data:`GEL_SERVICES`. Postgres has nothing to create for them: the declaration is accepted with
  a warning (a schema that declares them still compiles), and a reference to one of their types,
  functions or index kinds (``ext::ai::search``, ``ext::ai::index``) is a located E0206, except
  the data model of ``auth`` (``ext::auth::Identity`` and its relatives become tables, see
  :mod:`schemac.semantics.gel_auth`) and a ``deferred index ext::ai::index`` (warning W0007, nothing
  created: only ``ext::ai::search`` reads it).

The compiler core does not import Pants (this module is plain data and small helpers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from schemac.semantics.scalars import Scalar


@dataclass(frozen=True)
class Extension:
    """A Gel extension schemac knows: ``pg`` is the Postgres extension it needs (``None`` for a
    Gel server service), ``doc`` Gel's documentation page."""

    name: str
    pg: Optional[str]
    doc: str


_DOCS = "https://docs.geldata.com/reference/stdlib/"

#: Gel extensions with a Postgres counterpart, by Gel name.
PG_EXTENSIONS: Dict[str, Extension] = {
    e.name: e for e in [
        Extension("pgvector", "vector", _DOCS + "pgvector"),
        Extension("pg_trgm", "pg_trgm", _DOCS + "pg_trgm"),
        Extension("pgcrypto", "pgcrypto", _DOCS + "pgcrypto"),
        Extension("fuzzystrmatch", "fuzzystrmatch", _DOCS + "fuzzystrmatch"),
        Extension("pg_unaccent", "unaccent", _DOCS + "pg_unaccent"),
        Extension("postgis", "postgis", _DOCS + "postgis"),
    ]
}

#: Gel extensions that are services of the Gel server (HTTP endpoints, an auth service, AI
#: indexes computed by the server): nothing exists for them in Postgres.
GEL_SERVICES: Dict[str, Extension] = {
    e.name: e for e in [
        Extension("auth", None, "https://docs.geldata.com/reference/auth"),
        Extension("ai", None, "https://docs.geldata.com/reference/ai"),
        Extension("graphql", None, "https://docs.geldata.com/reference/using/graphql"),
        Extension("edgeql_http", None, "https://docs.geldata.com/reference/using/http"),
        Extension("notebook", None, "https://docs.geldata.com/reference/using/http"),
    ]
}


def known_extension(name: str) -> Optional[Extension]:
    """The :class:`Extension` named ``name``, or ``None``."""
    return PG_EXTENSIONS.get(name) or GEL_SERVICES.get(name)


#: Gel extensions with a Postgres counterpart that schemac does not lower yet: declaring one
#: is a located E0206 (name -> Gel's documentation page).
NOT_YET: Dict[str, str] = {}


# ------------------------------------------------------------------------------- pgvector
VECTOR = "ext::pgvector::vector"


def vector_scalar(dims: Optional[int]) -> Scalar:
    """The scalar ``ext::pgvector::vector<dims>`` (``vector(dims)``; ``dims`` ``None``:
    ``vector``, e.g. a query parameter). TypeScript: ``number[]`` (node-postgres returns the
    extension's text ``[1,2,3]``, which the runner parses); Go: the generated ``Vector``
    (``[]float32`` with ``sql.Scanner``/``driver.Valuer`` for that text form; nil is NULL)."""
    got = _VECTORS.get(dims)
    if got is None:
        name = VECTOR if dims is None else f"{VECTOR}<{dims}>"
        pg = "vector" if dims is None else f"vector({dims})"
        got = _VECTORS[dims] = Scalar(name, pg, "number[]", "readonly number[]", "Vector", "Vector", "", "vector",
                                      "Vector")
    return got


_VECTORS: Dict[Optional[int], Scalar] = {}

#: pgvector's largest dimension count for a ``vector`` column.
MAX_VECTOR_DIMS = 16000


def is_vector(scalar: Optional[Scalar]) -> bool:
    return scalar is not None and scalar.sql_family == "vector"


# ------------------------------------------------------------------------------- postgis
#: PostGIS's types as Gel's ``ext::postgis`` names them
#: (https://docs.geldata.com/reference/stdlib/postgis): each is the PostGIS type of the same
#: name. In TypeScript and Go a value is a ``string`` in PostGIS's text form, as node-postgres
#: and pgx return it with no type registered (a geometry or geography: hex-encoded EWKB,
#: ``0101000020E6...``; a box: ``BOX(1 2,3 4)``), and a parameter is any text PostGIS reads:
#: WKT, EWKT (``SRID=4326;POINT(1 2)``) or hex (E)WKB. Inside a nested shape (JSON) the same
#: text (PostGIS's own cast to json would give GeoJSON, another form).
POSTGIS_SCALARS: Dict[str, Scalar] = {
    f"ext::postgis::{name}": Scalar(f"ext::postgis::{name}", name, "string", "string", "string", "*string", "",
                                    name, "sql.NullString")
    for name in ("geometry", "geography", "box2d", "box3d")
}

_G, _GG = "ext::postgis::geometry", "ext::postgis::geography"

#: PostGIS functions as Gel exposes them: PostGIS's ``ST_`` name without its prefix, in
#: ``ext::postgis`` (https://docs.geldata.com/reference/stdlib/postgis); name -> overloads
#: (argument types, result type), the first whose arguments fit is taken; ``srid`` is
#: ``int64``. How Postgres spells each: :mod:`schemac.pgsql.calls_ext`.
POSTGIS_FUNCTIONS: Dict[str, Tuple[Tuple[Tuple[str, ...], str], ...]] = {
    "ext::postgis::makepoint": ((("float64", "float64"), _G),
                                (("float64", "float64", "float64"), _G)),
    "ext::postgis::setsrid": (((_G, "int64"), _G),
                              ((_GG, "int64"), _GG)),
    "ext::postgis::srid": (((_G,), "int64"),
                           ((_GG,), "int64")),
    "ext::postgis::x": (((_G,), "float64"),),
    "ext::postgis::y": (((_G,), "float64"),),
    "ext::postgis::distance": (((_G, _G), "float64"),
                               ((_GG, _GG), "float64"),
                               ((_GG, _GG, "bool"), "float64")),
    "ext::postgis::dwithin": (((_G, _G, "float64"), "bool"),
                              ((_GG, _GG, "float64"), "bool")),
    "ext::postgis::area": (((_G,), "float64"), ((_GG,), "float64")),
    "ext::postgis::length": (((_G,), "float64"), ((_GG,), "float64")),
    "ext::postgis::intersects": (((_G, _G), "bool"),
                                 ((_GG, _GG), "bool")),
    "ext::postgis::contains": (((_G, _G), "bool"),),
    "ext::postgis::within": (((_G, _G), "bool"),),
    "ext::postgis::astext": (((_G,), "str"), ((_GG,), "str")),
    "ext::postgis::asgeojson": (((_G,), "str"), ((_GG,), "str")),
    "ext::postgis::geomfromtext": ((("str",), _G),
                                   (("str", "int64"), _G)),
    "ext::postgis::to_geography": (((_G,), _GG),),
    "ext::postgis::to_geometry": (((_GG,), _G),),
}


# ------------------------------------------------------------------------------- functions
#: Extension functions: Gel name -> (argument kinds, result scalar name). Argument kinds:
#: ``str``, ``bytes_or_str``, ``vector``, ``int``. Each is the Postgres function or operator of
#: the same meaning (:mod:`schemac.pgsql.calls_ext` spells it).
EXT_FUNCTIONS: Dict[str, Tuple[Tuple[str, ...], str]] = {
    # pgvector: https://docs.geldata.com/reference/stdlib/pgvector
    "ext::pgvector::euclidean_distance": (("vector", "vector"), "float64"),
    "ext::pgvector::neg_inner_product": (("vector", "vector"), "float64"),
    "ext::pgvector::cosine_distance": (("vector", "vector"), "float64"),
    "ext::pgvector::euclidean_norm": (("vector",), "float64"),
    # pg_trgm: https://docs.geldata.com/reference/stdlib/pg_trgm
    "ext::pg_trgm::similarity": (("str", "str"), "float32"),
    "ext::pg_trgm::similar": (("str", "str"), "bool"),
    "ext::pg_trgm::similarity_dist": (("str", "str"), "float32"),
    "ext::pg_trgm::word_similarity": (("str", "str"), "float32"),
    "ext::pg_trgm::word_similar": (("str", "str"), "bool"),
    "ext::pg_trgm::word_similarity_dist": (("str", "str"), "float32"),
    "ext::pg_trgm::strict_word_similarity": (("str", "str"), "float32"),
    "ext::pg_trgm::strict_word_similar": (("str", "str"), "bool"),
    "ext::pg_trgm::strict_word_similarity_dist": (("str", "str"), "float32"),
    # pgcrypto: https://docs.geldata.com/reference/stdlib/pgcrypto
    "ext::pgcrypto::digest": (("bytes_or_str", "str"), "bytes"),
    "ext::pgcrypto::hmac": (("bytes_or_str", "bytes_or_str", "str"), "bytes"),
    "ext::pgcrypto::gen_salt": (("str",), "str"),
    "ext::pgcrypto::crypt": (("str", "str"), "str"),
    # fuzzystrmatch: https://docs.geldata.com/reference/stdlib/fuzzystrmatch
    "ext::fuzzystrmatch::soundex": (("str",), "str"),
    "ext::fuzzystrmatch::difference": (("str", "str"), "int32"),
    "ext::fuzzystrmatch::levenshtein": (("str", "str"), "int32"),
    "ext::fuzzystrmatch::levenshtein_less_equal": (("str", "str", "int"), "int32"),
    "ext::fuzzystrmatch::metaphone": (("str", "int"), "str"),
    "ext::fuzzystrmatch::dmetaphone": (("str",), "str"),
    "ext::fuzzystrmatch::dmetaphone_alt": (("str",), "str"),
    # pg_unaccent: https://docs.geldata.com/reference/stdlib/pg_unaccent
    "ext::pg_unaccent::unaccent": (("str",), "str"),
}

#: Functions with an optional last argument: name -> its kind.
EXT_FUNCTION_OPTIONAL_LAST = {
    "ext::pgcrypto::gen_salt": "int",
}


# ------------------------------------------------------------------------------- index kinds
@dataclass(frozen=True)
class IndexKind:
    """An extension index kind: the Postgres access method, the operator class of its key
    column, the value kind it indexes (``vector``/``str``), and its named arguments
    (name -> required) written as storage parameters (``WITH (lists = 100)``)."""

    method: str
    opclass: str
    value: str
    args: Tuple[Tuple[str, bool], ...] = ()


_IVF = (("lists", True),)
_HNSW = (("m", False), ("ef_construction", False))

#: Gel extension index kinds -> how Postgres builds them.
EXT_INDEXES: Dict[str, IndexKind] = {
    "ext::pgvector::ivfflat_euclidean": IndexKind("ivfflat", "vector_l2_ops", "vector", _IVF),
    "ext::pgvector::ivfflat_ip": IndexKind("ivfflat", "vector_ip_ops", "vector", _IVF),
    "ext::pgvector::ivfflat_cosine": IndexKind("ivfflat", "vector_cosine_ops", "vector", _IVF),
    "ext::pgvector::hnsw_euclidean": IndexKind("hnsw", "vector_l2_ops", "vector", _HNSW),
    "ext::pgvector::hnsw_ip": IndexKind("hnsw", "vector_ip_ops", "vector", _HNSW),
    "ext::pgvector::hnsw_cosine": IndexKind("hnsw", "vector_cosine_ops", "vector", _HNSW),
    "ext::pg_trgm::gin": IndexKind("gin", "gin_trgm_ops", "str"),
    "ext::pg_trgm::gist": IndexKind("gist", "gist_trgm_ops", "str"),
}


def extension_of(qualname: str) -> Optional[str]:
    """``pgvector`` for ``ext::pgvector::vector``; ``None`` for a name outside ``ext::``."""
    parts = qualname.split("::")
    if len(parts) >= 3 and parts[0] == "ext":
        return parts[1]
    return None
