"""The value types the expression checker names (``bool``, ``str``, ``int64``, ...),
read by its modules when they load.

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
from schemac.frozen import fast_init_all
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS, Scalar
from schemac.semantics.extensions import vector_scalar

BOOL = ValueType(scalar=SCALARS["bool"])
STR = ValueType(scalar=SCALARS["str"])
INT64 = ValueType(scalar=SCALARS["int64"])
FLOAT64 = ValueType(scalar=SCALARS["float64"])
FLOAT32 = ValueType(scalar=SCALARS["float32"])
#: A Postgres ``tsquery`` (:class:`schemac.semantics.qir.FtsQuery`): no Gel value has this type,
#: and no query returns it.
TSQUERY = ValueType(scalar=Scalar("fts::query", "tsquery", "never", "never", "", "", "", "fts::query", ""))
#: The weights a search ranks with (:class:`schemac.semantics.qir.FtsWeights`).
REAL_ARRAY = ValueType(element=FLOAT32)
DATETIME = ValueType(scalar=SCALARS["datetime"])
LOCAL_DATE = ValueType(scalar=SCALARS["cal::local_date"])
VECTOR_PARAM = ValueType(scalar=vector_scalar(None))
_UUID = ValueType(scalar=SCALARS["uuid"])
