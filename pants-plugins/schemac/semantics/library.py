"""The compiled library: the checked schema, the plans of its queries and the options it was
compiled with, as the pipeline hands it to the back ends (:func:`schemac.pipeline.check_library`
builds it). Plain data, already checked: a back end only formats it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple

from schemac.diagnostics import Diagnostic, Reporter
from schemac.semantics.migration_hints import Hints
from schemac.semantics.model import Schema
from schemac.semantics.queries import QueryPlan

if TYPE_CHECKING:
    from schemac.semantics.constraint_errors import ConstraintError
    from schemac.semantics.naming import Names


@dataclass(frozen=True)
class Options:
    """Compile options. ``library``: the library name (its directory name). ``go_package``:
    Go package name (default: ``library`` lower-cased, non-alphanumerics dropped).
    ``ts_module``: ``esm`` (relative imports end in ``.js``) or ``commonjs``. ``ts_int64``:
    ``string`` (results as node-postgres returns ``int8``) or ``bigint`` (the runner converts
    them with ``BigInt()``). ``go_driver``: ``pgx`` (pgx v5's native interface) or
    ``database/sql`` (for pgx's ``stdlib`` driver)."""

    library: str
    go_package: Optional[str] = None
    ts_module: str = "esm"
    ts_int64: str = "string"
    go_driver: str = "pgx"
    #: Schema files of the libraries this one depends on: ``(path, library name)``; ``path``
    #: is a key of the sources. Their types are linked to as ``<library>::Type``; their tables
    #: are not created (see :func:`schemac.semantics.resolve.build_schema`).
    externs: Tuple[Tuple[str, str], ...] = ()

    @property
    def go_package_name(self) -> str:
        """``go_package``, or one made of the library name: lower-cased, non-alphanumerics
        dropped, ``db`` appended to a Go keyword or ``main`` (library ``type`` -> ``typedb``)."""
        if self.go_package:
            return self.go_package
        from schemac.semantics.naming import GO_KEYWORDS

        name = re.sub(r"[^a-z0-9]", "", self.library.lower()) or "schema"
        return name + "db" if name in GO_KEYWORDS or name == "main" else name


@dataclass(frozen=True)
class Library:
    """A compiled library: the schema model and the plans of its queries (sorted by name)."""

    options: Options
    schema: Schema
    queries: List[QueryPlan]
    warnings: List[Diagnostic]
    #: The ``migration { ... }`` hints, resolved (see :mod:`schemac.semantics.migration_hints`).
    hints: Hints = field(default_factory=Hints)

    @functools.cached_property
    def constraint_errors(self) -> "List[ConstraintError]":
        """Every named constraint of the schema and how its violation is described (see
        :mod:`schemac.semantics.constraint_errors`), computed once: the TypeScript and Go back ends both
        read it. (A frozen dataclass: ``cached_property`` stores into the instance dict.)"""
        from schemac.semantics.constraint_errors import constraint_errors

        return constraint_errors(self.schema)

    @functools.cached_property
    def names(self) -> "Names":
        """Every identifier of the generated TypeScript and Go (see :mod:`schemac.semantics.naming`).
        :func:`check_library` has already reported its collisions."""
        from schemac.semantics.naming import build_names

        return build_names(self, Reporter())
