"""Schema semantic analysis: parsed files -> checked :class:`~schemac.semantics.model.Schema`.

Checks (each reported with its location, all in one run): duplicate definitions, unknown types
and modules (with "did you mean"), inheritance cycles, redefinitions without ``overloaded``,
defaults whose type does not match, constraints naming missing properties or taking arguments of
the wrong type, links to abstract types without one concrete target, and object names that
collide after snake_casing.

Lowering rules (README "Language tour" and ``docs/language.md``):

* table = snake_case type name (types outside module ``default`` are prefixed with the
  snake_cased module name: ``billing::Invoice`` -> ``billing_invoice``); abstract types get no
  table, their members are copied into every concrete descendant;
* implicit ``id uuid PRIMARY KEY DEFAULT gen_random_uuid()``;
* enums -> ``text`` + ``CHECK (col IN (...))`` named ``ck_<table>_<col>_enum``;
* single link ``author`` -> column ``author_id uuid`` + FK ``fk_<table>_author_id`` + index
  ``ix_<table>_author_id``; multi link -> join table ``<table>_<link>(source_id, target_id, link
  properties...)``; multi property / ``array<T>`` -> ``T[]`` column;
* exclusive constraints -> ``UNIQUE`` (full) or a partial unique index (``filter``/``except``),
  named ``uq_<table>_<col>[_<col>...]``; value constraints -> ``CHECK`` named
  ``ck_<table>_<col>_<constraint>``; indexes -> ``ix_<table>_<cols>``;
* annotations -> ``COMMENT ON TABLE/COLUMN``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from schemac.semantics import computed_sql, fts, gel_auth, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.semantics.computed_sql import filter_pins_one as _filter_pins_one, link_select, single_subselect
from schemac.semantics.exprs import ExprContext, ParamTable, assignment_cast, check, ext_needs, lower, resolve_type_ref
from schemac.semantics.e_types import BOOL
from schemac.semantics.lowering import cond_sql, document_part, emit, empty_link_props_trigger
from schemac.semantics.extensions import (EXT_INDEXES, GEL_SERVICES, NOT_YET, PG_EXTENSIONS, extension_of,
                                          known_extension)
from schemac.semantics.model import (AccessPolicy, CheckConstraint, Column, CustomScalar, EnumType,
                                     ExclusiveConstraint, Computed, ForeignKey, Global, Index, Link,
                                     ObjectType, PolyLink, Schema, Trigger, ValueType, backlink_link,
                                     name_candidates)
from schemac.semantics.scalars import SCALARS
from schemac.semantics.definitions import abstract_pointers, expand_types
from schemac.semantics.functions import declare as declare_functions
from schemac.semantics.triggers import build_triggers, target_delete_source
from schemac.semantics.sqlnames import (MAX_IDENTIFIER_BYTES, object_name, qi, quote_ident, short_identifier,
                                        snake_case, sql_string)

ID_COLUMN_DEFAULT = "gen_random_uuid()"
UUID = ValueType(scalar=SCALARS["uuid"])

#: ``on target delete`` -> SQL for a single link's FK (Gel's default is ``restrict``).
SINGLE_LINK_ON_DELETE = {
    "restrict": "RESTRICT",
    "delete source": "CASCADE",
    "allow": "SET NULL",
    "deferred restrict": "NO ACTION DEFERRABLE INITIALLY DEFERRED",
}
#: ``on target delete`` -> SQL for the target FK of a multi link's join table: ``allow``
#: removes the link row; ``delete source`` removes it too, and a trigger of the join table
#: deletes the source object (see :func:`schemac.semantics.triggers.target_delete_source`).
MULTI_LINK_ON_DELETE = {
    "restrict": "RESTRICT",
    "allow": "CASCADE",
    "delete source": "CASCADE",
    "deferred restrict": "NO ACTION DEFERRABLE INITIALLY DEFERRED",
}
#: Index kinds with a Postgres access method.
INDEX_METHODS = {"pg::btree": "btree", "pg::hash": "hash", "pg::gin": "gin", "pg::gist": "gist",
                 "pg::brin": "brin", "pg::spgist": "spgist"}
#: Value constraints -> (arity, argument kind, CHECK template over ``{c}`` and ``{0}``...).
VALUE_CONSTRAINTS = {
    "max_len_value": (1, "int", "char_length({c}) <= {0}"),
    "min_len_value": (1, "int", "char_length({c}) >= {0}"),
    "min_value": (1, "same", "{c} >= {0}"),
    "max_value": (1, "same", "{c} <= {0}"),
    "min_ex_value": (1, "same", "{c} > {0}"),
    "max_ex_value": (1, "same", "{c} < {0}"),
    "regexp": (1, "str", "{c} ~ {0}"),
    "one_of": (-1, "same", "{c} IN ({args})"),
}


#: A value constraint over every element of an array column (a multi property), where a CHECK
#: may hold no sub-query: ``<bound> op ALL (col)`` -- the bound on the left, so the operator is
#: mirrored.
_ALL_ELEMENTS = {"min_value": "<=", "max_value": ">=", "min_ex_value": "<", "max_ex_value": ">"}


def _each_element_check(name: str, col: str, args_sql: List[str], args: Sequence[ast.Expr]) -> Optional[str]:
    """The CHECK of value constraint ``name`` on a multi property (https://docs.geldata.com/
    reference/datamodel/constraints: a constraint on a multi property holds for each of its
    values), stored as the array ``col``. An empty array passes, as an empty multi property
    does. Lengths count characters through a SQL/JSON path regular expression: no element
    matches ``^.{N+1}`` (max_len_value) / every element matches ``^.{N}`` (min_len_value);
    repetition counts above 255 (the regular expression engine's limit) are split. ``None``
    when a length is not an integer literal."""
    if name in _ALL_ELEMENTS:
        return f"{args_sql[0]} {_ALL_ELEMENTS[name]} ALL ({col})"
    if name == "one_of":
        return f"{col} <@ ARRAY[{', '.join(args_sql)}]"
    if not (isinstance(args[0], ast.Literal) and args[0].kind == "int"):
        return None
    length = int(args[0].value)  # type: ignore[arg-type]
    at_least = length + 1 if name == "max_len_value" else length
    parts = []
    if at_least >= 255:
        parts.append(f"(.{{255}}){{{at_least // 255}}}")
    if at_least % 255:
        parts.append(f".{{{at_least % 255}}}")
    pattern = "^" + "".join(parts)
    test = f'@ like_regex "{pattern}" flag "s"'
    if name == "max_len_value":
        return f"NOT jsonb_path_exists(to_jsonb({col}), '$[*] ? ({test})')"
    return f"NOT jsonb_path_exists(to_jsonb({col}), '$[*] ? (!({test}))')"


def table_name(module: str, type_name: str) -> str:
    """The table of ``module::type_name`` (see module docstring); shortened with a digest when
    longer than Postgres' 63 bytes (:func:`schemac.semantics.sqlnames.short_identifier`)."""
    base = snake_case(type_name)
    return short_identifier(base if module == "default" else f"{snake_case(module)}_{base}")


@dataclass
class _Pointer:
    """A pointer as seen by one concrete type: its declaration merged with overloads."""

    decl: ast.PointerDecl
    module: str  # module of the declaring type (names in the declaration resolve there)
    owner: str  # qualname of the declaring type
    type: Optional[ast.TypeRef]
    required: bool
    default: Optional[ast.Expr]
    default_module: str
    readonly: bool
    constraints: List[Tuple[ast.ConstraintDecl, str]] = field(default_factory=list)
    annotations: List[Tuple[str, str]] = field(default_factory=list)
    #: Mutation rewrites (with the module they are written in), an overload's replacing the
    #: inherited one of the same kind; ``on source delete`` (policy, where it is written).
    rewrites: List[Tuple[ast.RewriteDecl, str]] = field(default_factory=list)
    on_source_delete: Optional[Tuple[str, Span]] = None


#: Units a Gel duration type must not hold, checked per column (``CHECK``; Postgres' one
#: ``interval`` type holds them all): ``duration`` is exact time, without days, months or
#: years; ``cal::date_duration`` is days, months and years only
#: (https://docs.geldata.com/reference/stdlib/datetime). Scalar name -> (constraint name
#: suffix, interval fields that must be 0).
_UNIT_CHECKS = {
    "duration": ("duration", ("year", "month", "day")),
    "cal::date_duration": ("date_duration", ("hour", "minute", "second")),
}


def _gel_server_index(ix: ast.IndexDecl) -> bool:
    """An index of a Gel server service (``ext::ai::index``): a deferred one is accepted with a
    warning and creates nothing (:meth:`_Resolver._refuse_unlowered`); any other is refused by
    :meth:`_Resolver._index`."""
    return (ix.kind or "").startswith("ext::ai::")


def _ai_index(ix: ast.IndexDecl) -> bool:
    """``deferred index ext::ai::index(...) on (...)``
    (https://docs.geldata.com/reference/ai/extai): Gel's AI service computes embeddings
    into it, and only ``ext::ai::search`` reads it. It changes no result of an ordinary query, so
    it is accepted with warning W0007 and nothing is created (``ext::ai::search`` stays E0206)."""
    return ix.deferred and ix.kind in ("ext::ai::index", "std::ext::ai::index")


class _Resolver:
    def __init__(self, files: Sequence[ast.SchemaFile], reporter: Reporter,
                 external: Sequence[Tuple[str, ast.SchemaFile]] = ()):
        self.extern_modules: Dict[str, Tuple[str, str]] = {}
        ext_files = [extern_file(f, lib, self.extern_modules) for lib, f in external]
        self.external_files = ext_files
        self.files = list(files) + ext_files
        if any(e.name == "auth" for f in files for e in f.extensions):
            # The data model of Gel's auth extension: the types the schema names (gel_auth).
            auth = gel_auth.data_model(gel_auth.referenced_names(files))
            if auth is not None:
                self.files.insert(0, auth)  # first: the application's globals read its globals
        self.reporter = reporter
        self.schema = Schema(module_library={m: lib for m, (lib, _) in self.extern_modules.items()})
        self.decls: Dict[str, ast.TypeDecl] = {}
        self.mro: Dict[str, List[str]] = {}
        self._type_keys: Dict[Tuple[str, str], Optional[str]] = {}
        self._type_contexts: Dict[str, ExprContext] = {}
        self._custom_scalars: Dict[Tuple[str, str], Optional[CustomScalar]] = {}
        self._long_links: Set[Span] = set()
        self.global_decls: Dict[str, ast.GlobalDecl] = {}
        self._global_pins: List[Tuple[str, ast.GlobalDecl, ast.SubSelect, ObjectType]] = []
        #: The links' defaults that insert: (target, insert, module) (see _insert_default).
        self._insert_defaults: List[Tuple[ObjectType, ast.InsertQuery, str]] = []
        #: (table, name) of the checks a column got from its custom scalar's constraints.
        self._scalar_checks: Set[Tuple[str, str]] = set()
        self._set_computeds: List[Tuple[ObjectType, str, str]] = []

    # ---------------------------------------------------------------- names
    def declare_names(self) -> None:
        modules: Set[str] = {"default"}
        for f in self.files:
            modules.update(name for name, _ in f.modules)
            for d in f.diagnostics:
                self.reporter.diagnostics.append(d)  # type: ignore[arg-type]
        self.schema.modules = tuple(sorted(modules))
        self._declare_extensions()
        self._refuse_unlowered()
        seen: Dict[str, Span] = {}
        for f in self.files:
            for e in f.enums:
                key = f"{e.module}::{e.name}"
                if self._declare(seen, key, e.span, "enum"):
                    self.schema.enums[key] = EnumType(e.name, e.module, self._enum_members(e), e.span)
            for sc in f.scalars:
                self._declare(seen, f"{sc.module}::{sc.name}", sc.name_span, "scalar type")
            for t in f.types:
                key = f"{t.module}::{t.name}"
                if self._declare(seen, key, t.name_span, "type"):
                    self.decls[key] = t
                for p in t.pointers:
                    self._check_length(p.name, p.name_span, "property or link")
                    for lp in p.link_props:
                        self._check_length(lp.name, lp.name_span, "link property")
            for g in f.globals:
                if self._declare(seen, f"{g.module}::{g.name}", g.name_span, "global"):
                    self.global_decls[f"{g.module}::{g.name}"] = g
        # Custom scalars (after enums, so a scalar may extend an enum-like base later).
        for f in self.files:
            for sc in f.scalars:
                self._custom_scalar(sc)
        # Functions and aliases (inlined where they are called).
        declare_functions(self.schema, self.files, self.reporter, self._type_context,
                          lambda name, module: self._type_key(name, module) is not None)

    def _check_length(self, name: str, span: Span, what: str, extra: int = 0) -> bool:
        """A name that is a column as it is must fit Postgres' 63 bytes (with ``extra`` more:
        a single link's ``_id``), as Gel limits names to 63 characters: E0214."""
        if len(name.encode("utf-8")) + extra <= MAX_IDENTIFIER_BYTES:
            return True
        column = f"column '{name}_id'" if extra else "its column"
        self.reporter.error("E0214", f"{what} name '{name}' is too long: {column} would exceed Postgres' "
                            f"{MAX_IDENTIFIER_BYTES}-byte identifier limit", span,
                            f"use at most {MAX_IDENTIFIER_BYTES - extra} characters")
        return False

    def _refuse_unlowered(self) -> None:
        """Declarations the grammar accepts that are not lowered yet: one E0206 each, at the
        declaration, naming the feature (``using future`` is a warning: ignoring it is
        harmless). The grammar reads all of Gel's schema language
        (https://docs.geldata.com/reference/datamodel), so valid Gel never meets a syntax
        error; what schemac cannot faithfully lower yet is refused here."""
        hint = "remove it, or keep it in a schema that is not compiled by schemac"
        for f in self.files:
            for d in f.definitions:
                if isinstance(d, ast.FutureDecl):
                    self.reporter.warning("W0001", "'using future' is ignored", d.span)
                elif isinstance(d, ast.AbstractDecl) and d.kind not in ("link", "property"):
                    self.reporter.error("E0206", f"abstract {d.kind} definitions are not supported yet", d.span, hint)
                elif isinstance(d, ast.PermissionDecl):
                    self.reporter.error("E0206", "permissions are not supported yet", d.span, hint)
            for t in f.types:
                for c in t.constraints:
                    self._refuse_constraint(c, hint)
                for ix in t.indexes:
                    if _ai_index(ix) and "ai" in self.schema.extensions:
                        self.reporter.warning("W0007", "deferred index ext::ai::index is not created: only "
                                              "ext::ai::search reads it, a service of the Gel server", ix.span,
                                              "ordinary queries return the same rows without it; compute embeddings "
                                              "in the application into an ext::pgvector::vector property for a "
                                              "similarity search")
                    elif ix.deferred and not _gel_server_index(ix):
                        self.reporter.error("E0206", "deferred indexes are not supported yet", ix.span, hint)
                for p in t.pointers:
                    self._refuse_pointer_parts(p, hint)
                    for lp in p.link_props:
                        if lp.computed is not None:
                            self.reporter.error("E0206", "computed link properties are not supported yet",
                                                lp.span, hint)
                        self._refuse_pointer_parts(lp, hint)
                        for ix in lp.indexes:
                            self.reporter.error("E0206", "indexes in a link property's body are not supported",
                                                ix.span, "declare it in the link's body: index on (@name)")

    def _refuse_constraint(self, c: ast.ConstraintDecl, hint: str) -> None:
        """(Delegated constraints are lowered: each concrete type's table gets its own.)"""

    def _refuse_pointer_parts(self, p: ast.PointerDecl, hint: str) -> None:
        """The parts of a property or link declaration that are not lowered yet."""
        if p.union and p.computed is not None:
            self.reporter.error("E0206", f"computed pointers of a union of types ('{' | '.join(str(u) for u in p.union)}') "
                                "are not supported yet", p.span)
        for c in p.constraints:
            self._refuse_constraint(c, hint)

    def _declare_extensions(self) -> None:
        """``using extension X;``: Postgres-backed extensions are recorded (the migrations
        create them), Gel server services are accepted with a warning (W0001), anything else is
        refused where it is declared. A dependency library's extensions are known (its types
        can be read) but created by that library's migrations."""
        seen: Dict[str, Span] = {}
        for f in self.files:
            external = any(f is e for e in self.external_files)
            for ext in f.extensions:
                first = seen.get(ext.name)
                if first is not None:
                    if not external:
                        self.reporter.error("E0200", f"extension '{ext.name}' is already used at "
                                            f"{first.file}:{first.line}:{first.col}", ext.span)
                    continue
                known = known_extension(ext.name)
                if known is None:
                    if ext.name in NOT_YET:
                        self.reporter.error("E0206", f"extension '{ext.name}' is not supported yet", ext.span,
                                            f"its types and functions are not mapped to Postgres ({NOT_YET[ext.name]})")
                    else:
                        names = sorted(set(PG_EXTENSIONS) | set(GEL_SERVICES))
                        self.reporter.error("E0206", f"unknown extension '{ext.name}'", ext.span,
                                            did_you_mean(ext.name, names) or f"schemac knows: {', '.join(names)}")
                    continue
                seen[ext.name] = ext.span
                if ext.name == "auth" and not external:
                    self.reporter.warning("W0001", "extension 'auth': the ext::auth types the schema names become "
                                          "tables; its service (sign-in flows, tokens) is not provided", ext.span,
                                          "the application supplies the signed-in identity's id as the global "
                                          f"ext::auth::identity_id ({known.doc})")
                elif known.pg is None and not external:
                    self.reporter.warning("W0001", f"extension '{ext.name}' is a service of the Gel server: accepted, "
                                          "nothing is created in Postgres", ext.span,
                                          f"a reference to its types or index kinds is refused ({known.doc})")
                if external and known.pg is not None:
                    known = dataclasses.replace(known, pg=None)  # created by the dependency's migrations
                self.schema.extensions[ext.name] = known

    def _declare(self, seen: Dict[str, Span], key: str, span: Span, what: str) -> bool:
        if key in seen:
            first = seen[key]
            self.reporter.error("E0200", f"{what} '{key.split('::')[-1]}' is already defined at "
                                f"{first.file}:{first.line}:{first.col}", span)
            return False
        seen[key] = span
        return True

    def _enum_members(self, e: ast.EnumDecl) -> Tuple[str, ...]:
        members: List[str] = []
        for m, mspan in e.members:
            if m in members:
                self.reporter.error("E0200", f"enum '{e.name}' lists '{m}' twice", mspan)
            elif m == "":
                self.reporter.error("E0102", "enum members cannot be empty", mspan)
            elif "\0" in m:
                self.reporter.error("E0102", "enum members cannot contain NUL characters", mspan)
            else:
                members.append(m)
        return tuple(members)

    def _custom_scalar(self, sc: ast.ScalarDecl) -> None:
        ctx = ExprContext(self.schema, None, sc.module, self.reporter, where="a scalar type")
        if sc.abstract:
            self.reporter.error("E0206", "abstract scalar types are not supported", sc.span)
            return
        base_custom = self.schema.find(sc.base.name, sc.module, self.schema.scalars) if not sc.base.args else None
        if sc.base.name in ("sequence", "std::sequence") or getattr(base_custom, "sequence", None):
            # https://docs.geldata.com/reference/stdlib/sequence: an int64 whose properties
            # take the next value of the type's own sequence when none is given.
            if sc.constraints:
                self.reporter.error("E0206", "constraints on a sequence scalar are not supported", sc.span)
                return
            library, module = self.extern_modules.get(sc.module, (None, sc.module))
            seq = object_name("seq", table_name(module, sc.name), [])
            self.schema.scalars[f"{sc.module}::{sc.name}"] = CustomScalar(
                sc.name, sc.module, ValueType(scalar=SCALARS["int64"]), (), sc.span, sequence=seq)
            return
        base = resolve_type_ref(sc.base, ctx)
        if base is None:
            return
        if sc.annotations:
            self.reporter.warning("W0004", f"annotations of scalar type '{sc.name}' are not stored (Postgres has "
                                  "no place for them: the columns are plain base-type columns)", sc.span,
                                  "annotate the properties that use it instead")
        self.schema.scalars[f"{sc.module}::{sc.name}"] = CustomScalar(sc.name, sc.module, base, sc.constraints, sc.span)

    # ---------------------------------------------------------------- inheritance
    def linearize(self) -> None:
        """Method resolution order of every type: bases depth-first, left to right, each once,
        then the type itself. Reports unknown bases and cycles.

        A depth-first walk with an explicit stack (a chain of thousands of types is deeper than
        Python's recursion limit), merging each base's order through a set: linear in the size
        of the orders it builds."""
        state: Dict[str, str] = {}
        for root in self.decls:
            if root in self.mro:
                continue
            state[root] = "active"
            stack: List[Tuple[str, int]] = [(root, 0)]
            while stack:
                key, i = stack[-1]
                t = self.decls[key]
                if i < len(t.extends):
                    stack[-1] = (key, i + 1)
                    base_name, base_span = t.extends[i]
                    base_key = self._type_key(base_name, t.module)
                    if base_key is None:
                        self.reporter.error("E0201", f"unknown base type '{base_name}'", base_span,
                                            did_you_mean(base_name.split("::")[-1],
                                                         [d.name for d in self.decls.values()]))
                    elif state.get(base_key) == "active":
                        keys = [k for k, _ in stack]
                        chain = keys[keys.index(base_key):] + [base_key]
                        cycle = " -> ".join(k.split("::")[-1] for k in chain)
                        self.reporter.error("E0210", f"inheritance cycle: {cycle}", self.decls[base_key].name_span,
                                            "a type cannot extend itself, directly or through its bases")
                    elif base_key not in self.mro:
                        state[base_key] = "active"
                        stack.append((base_key, 0))
                    continue
                if len(t.extends) == 1:  # the usual case: the base's order, then the type
                    base_key = self._type_key(t.extends[0][0], t.module)
                    self.mro[key] = (list(self.mro.get(base_key, ())) if base_key is not None else []) + [key]
                    state[key] = "done"
                    stack.pop()
                    continue
                order: List[str] = []
                seen: Set[str] = set()
                for base_name, _ in t.extends:
                    base_key = self._type_key(base_name, t.module)
                    for k in self.mro.get(base_key, ()) if base_key is not None else ():
                        if k not in seen:
                            seen.add(k)
                            order.append(k)
                order.append(key)
                state[key] = "done"
                self.mro[key] = order
                stack.pop()

    def _concrete_descendants(self) -> Dict[str, List[str]]:
        """Type -> the concrete types whose resolution order holds it (itself included when
        concrete), in the order of :attr:`mro`; computed once, after :meth:`linearize`."""
        out = self.__dict__.get("_descendants")
        if out is None:
            out = {}
            for k, order in self.mro.items():
                if not self.decls[k].abstract:
                    for a in order:
                        out.setdefault(a, []).append(k)
            self.__dict__["_descendants"] = out
        return out

    def _type_context(self, module: str) -> ExprContext:
        """The context type references of ``module`` resolve in (one per module:
        :func:`resolve_type_ref` only reads it)."""
        ctx = self._type_contexts.get(module)
        if ctx is None:
            ctx = self._type_contexts[module] = ExprContext(self.schema, None, module, self.reporter)
        return ctx

    def _custom_scalar_of(self, name: str, module: str) -> Optional[CustomScalar]:
        """The custom scalar ``name`` means in ``module`` (remembered per (name, module):
        custom scalars are all declared before the first pointer is resolved)."""
        cache_key = (name, module)
        try:
            return self._custom_scalars[cache_key]
        except KeyError:
            pass
        found = self.schema.find(name, module, self.schema.scalars)
        self._custom_scalars[cache_key] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def _type_key(self, name: str, module: str) -> Optional[str]:
        # Asked once per pointer, mostly for the same few scalar names: remembered per
        # (name, module). ``decls`` is complete before the first call (declare_names).
        cache_key = (name, module)
        try:
            return self._type_keys[cache_key]
        except KeyError:
            pass
        found = None
        for key in name_candidates(name, module, self.schema.module_library):
            if key in self.decls:
                found = key
                break
        self._type_keys[cache_key] = found
        return found

    def _same_type(self, a: ast.TypeRef, a_module: str, b: ast.TypeRef, b_module: str) -> bool:
        """Whether ``a`` written in ``a_module`` and ``b`` written in ``b_module`` name the same type:
        ``Context`` in module ``Project`` is ``Project::Context`` written elsewhere (Gel resolves a
        name in the module it is written in, https://docs.geldata.com/reference/datamodel/modules).
        Names of nothing declared here (``str``, ``array<...>``) are the same when spelled the same."""
        if a.args or b.args:
            return str(a) == str(b)
        for find in (self._type_key, lambda n, m: self.schema.find(n, m, self.schema.enums),
                     self._custom_scalar_of):
            x, y = find(a.name, a_module), find(b.name, b_module)
            if x is not None or y is not None:
                return x is not None and x is y if not isinstance(x, str) else x == y
        return str(a) == str(b)

    def pointers_of(self, key: str) -> Dict[str, _Pointer]:
        """The effective pointers of a type: inherited ones in MRO order, then its own;
        ``overloaded`` refines an inherited pointer."""
        out: Dict[str, _Pointer] = {}
        for k in self.mro.get(key, [key]):
            t = self.decls[k]
            for p in t.pointers:
                if p.computed is not None:
                    continue
                if p.name == "id":
                    if k == key:
                        self.reporter.error("E0200", "'id' is implicit on every type and cannot be declared",
                                            p.name_span, "remove this property; every object gets 'id: uuid' "
                                            "with a generated default")
                    continue
                existing = out.get(p.name)
                if existing is None:
                    if p.overloaded:
                        if k == key:
                            self.reporter.error("E0211", f"'{p.name}' is marked overloaded but no base of "
                                                f"'{t.name}' defines it", p.name_span, "remove 'overloaded'")
                        continue
                    if p.type is None:
                        if k == key:
                            self.reporter.error("E0201", f"'{p.name}' has no type", p.name_span,
                                                f"write {p.name}: <type>")
                        continue
                    out[p.name] = _Pointer(p, t.module, k, p.type, bool(p.required), p.default, t.module,
                                           bool(p.readonly), [(c, t.module) for c in p.constraints],
                                           list(p.annotations), [(r, t.module) for r in p.rewrites],
                                           (p.on_source_delete, p.on_source_delete_span or p.span)
                                           if p.on_source_delete else None)
                    continue
                if existing.owner == k:
                    if k == key:
                        self.reporter.error("E0200", f"property '{p.name}' is already defined on '{t.name}'",
                                            p.name_span)
                    continue
                if not p.overloaded:
                    if existing.decl is p:
                        continue  # the same declaration reached twice (diamond)
                    same = p.type is not None and existing.type is not None and \
                        self._same_type(p.type, t.module, existing.type, existing.module)
                    if k == key or not same:
                        where = existing.owner.split("::")[-1]
                        self.reporter.error("E0200", f"'{p.name}' is already defined in base type '{where}'",
                                            p.name_span, "mark it 'overloaded' to refine the inherited definition")
                    continue
                # overloaded: refine the inherited pointer
                if p.type is not None and existing.type is not None and \
                        not self._same_type(p.type, t.module, existing.type, existing.module):
                    was, now = str(existing.type), str(p.type)
                    if was == now:  # (the same name, resolved in two modules)
                        was, now = f"{existing.module}::{was}", f"{t.module}::{now}"
                    self.reporter.error("E0204", f"overloaded '{p.name}' changes its type from {was} "
                                        f"to {now}", p.type.span, "an overload may only refine defaults, "
                                        "constraints, readonly, required and annotations")
                    continue
                decl = existing.decl
                if p.link_props:
                    # `overloaded link owner { property since: datetime; }`: the inherited link
                    # properties and the overload's (its own replacing one of the same name)
                    own = {lp.name for lp in p.link_props}
                    decl = dataclasses.replace(decl, link_props=tuple(
                        lp for lp in decl.link_props if lp.name not in own) + tuple(p.link_props))
                if p.splat_strategy is not None:
                    decl = dataclasses.replace(decl, splat_strategy=p.splat_strategy,
                                               splat_strategy_span=p.splat_strategy_span)
                refined = _Pointer(decl, existing.module, k, existing.type,
                                   existing.required if p.required is None else p.required,
                                   p.default if p.default is not None else existing.default,
                                   t.module if p.default is not None else existing.default_module,
                                   existing.readonly if p.readonly is None else p.readonly,
                                   existing.constraints + [(c, t.module) for c in p.constraints],
                                   existing.annotations + list(p.annotations),
                                   [(r, m) for r, m in existing.rewrites
                                    if not set(r.kinds) & {k for x in p.rewrites for k in x.kinds}]
                                   + [(r, t.module) for r in p.rewrites],
                                   (p.on_source_delete, p.on_source_delete_span or p.span)
                                   if p.on_source_delete else existing.on_source_delete)
                refined.owner = existing.owner
                out[p.name] = refined
        return out

    # ---------------------------------------------------------------- types
    def build(self) -> Schema:
        self.declare_names()
        # Pointers extending abstract links and properties get their members.
        expand_types(self.decls, abstract_pointers(self.files, self.reporter, self.schema.module_library),
                     self.reporter, self.schema.module_library)
        self.linearize()
        concrete = [k for k, t in self.decls.items() if not t.abstract]
        self.schema.abstract_types.update((k, t.name) for k, t in self.decls.items() if t.abstract)
        self.schema.descendants.update((k, tuple(v)) for k, v in self._concrete_descendants().items())
        # Pass 1: tables and scalar columns of every concrete type (links need all tables).
        pointers: Dict[str, Dict[str, _Pointer]] = {}
        for key in concrete:
            t = self.decls[key]
            library, table_module = self.extern_modules.get(t.module, (None, t.module))
            obj = ObjectType(t.name, t.module, table_name(table_module, t.name),
                             [Column("id", UUID, True, ID_COLUMN_DEFAULT, t.name_span, is_id=True)], [], [], t.span,
                             comment=_comment(t.annotations), library=library)
            self.schema.types[key] = obj
            pointers[key] = self.pointers_of(key)
        # Pass 2: columns and links.
        for key in concrete:
            for ptr in pointers[key].values():
                self._pointer(self.schema.types[key], ptr)
            self._check_column_count(self.schema.types[key], key)
        # Computed pointers are declared (typed after pass 3: they may read each other), globals
        # resolved (computed ones may read any column), then pass 3: defaults, constraints,
        # indexes (they may read any column).
        computeds = {key: self.computeds_of(key, pointers[key]) for key in concrete}
        for key in concrete:
            obj = self.schema.types[key]
            for name, (decl, module) in computeds[key].items():
                obj.computeds[name] = Computed(name, decl.computed, module, decl.span)
            decls = [p.decl for p in pointers[key].values()] + [d for d, _ in computeds[key].values()]
            self._splat_strategies(obj, decls)
        self._globals()
        for key in concrete:
            self._members(key, self.schema.types[key], pointers[key])
        # Computeds are typed once every exclusive constraint is known (a sub-select that pins
        # one object is a single link); computed links first: a computed property may count or
        # test one.
        for links_first in (True, False):
            for key in concrete:
                for name, (decl, module) in computeds[key].items():
                    is_link = isinstance(decl.computed, ast.Backlink) or single_subselect(decl.computed)[0] is not None \
                        or link_select(decl.computed) is not None or computed_sql.is_set_expr(decl.computed)
                    if is_link == links_first:
                        self._computed(self.schema.types[key], decl, module)
        self._check_set_computeds()
        # Access policies (their expressions may read computeds and globals).
        for key in concrete:
            self._policies(key, self.schema.types[key])
        self._check_global_pins()
        # Mutation rewrites and deletion policies: triggers (they may read any column).
        build_triggers(self.schema, {key: (self.schema.types[key], pointers[key]) for key in concrete},
                       self.reporter, {key: self._triggers_of(key) for key in concrete})
        self._check_insert_defaults()
        # Abstract types get no table, but their members are checked (even without a concrete
        # descendant): on a scratch table whose join tables are dropped again. A type with a
        # descendant is checked as part of it (a descendant's table holds every inherited
        # member), so only abstract types nothing extends need one: checking each type of a
        # long chain on its own would check the chain's members a quadratic number of times.
        extended = {self._type_key(b, t.module) for t in self.decls.values() for b, _ in t.extends}
        for key, t in self.decls.items():
            if t.abstract and key not in extended:
                scratch = ObjectType(t.name, t.module, table_name(t.module, t.name),
                                     [Column("id", UUID, True, ID_COLUMN_DEFAULT, t.name_span, is_id=True)], [], [],
                                     t.span)
                ptrs = self.pointers_of(key)
                joins = len(self.schema.join_tables)
                for ptr in ptrs.values():
                    self._pointer(scratch, ptr)
                self._members(key, scratch, ptrs)
                del self.schema.join_tables[joins:]
        self._shared_exclusives()
        self._check_name_collisions()
        self.schema.complete = True
        return self.schema

    def _check_column_count(self, obj: ObjectType, key: str) -> None:
        """A table has at most 1,600 columns in Postgres ("tables can have at most 1600
        columns", https://www.postgresql.org/docs/15/limits.html): a type whose properties and
        single links (its own and inherited) need more is refused where it is declared, instead
        of a migration Postgres refuses."""
        if len(obj.columns) > PG_MAX_COLUMNS:
            decl = self.decls[key]
            self.reporter.error("E0206", f"type '{obj.name}' needs {len(obj.columns)} columns (its properties, "
                                f"single links and id), more than a Postgres table can have ({PG_MAX_COLUMNS})",
                                decl.name_span, "move groups of properties to other types, linked from this one")

    def _triggers_of(self, key: str) -> List[Tuple[ast.TriggerDecl, str]]:
        """The Gel triggers of a type, inherited ones first (one per name)."""
        out: Dict[str, Tuple[ast.TriggerDecl, str]] = {}
        for k in self.mro.get(key, [key]):
            t = self.decls[k]
            for trig in t.triggers:
                if trig.name in out and out[trig.name][0] is not trig:
                    if k == key:
                        self.reporter.error("E0200", f"trigger '{trig.name}' is already defined", trig.name_span)
                    continue
                out[trig.name] = (trig, t.module)
        return list(out.values())

    # ---------------------------------------------------------------- computeds
    def computeds_of(self, key: str, stored: Dict[str, "_Pointer"]) -> Dict[str, Tuple[ast.PointerDecl, str]]:
        """The computed pointers of a type, inherited ones first: name -> (declaration, module
        its expression is written in). ``overloaded`` replaces an inherited computed; a computed
        may not reuse the name of a stored pointer."""
        out: Dict[str, Tuple[ast.PointerDecl, str]] = {}
        for k in self.mro.get(key, [key]):
            t = self.decls[k]
            for p in t.pointers:
                if p.computed is None:
                    continue
                if p.name in stored or p.name == "id":
                    if k == key:
                        self.reporter.error("E0200", f"computed '{p.name}' has the name of a stored property or link",
                                            p.name_span, "rename one of them")
                    continue
                if p.name in out and not p.overloaded and out[p.name][0] is not p:
                    if k == key:
                        self.reporter.error("E0200", f"'{p.name}' is already defined", p.name_span,
                                            "mark it 'overloaded' to replace the inherited computed")
                    continue
                out[p.name] = (p, t.module)
        return out

    def _computed(self, obj: ObjectType, decl: ast.PointerDecl, module: str) -> None:
        """Type a computed pointer of ``obj`` (https://docs.geldata.com/reference/datamodel/computeds):
        a backlink ``.<link[is T]`` or a sub-select ``(select T filter ...)`` is a computed link
        to ``T``; anything else a computed property, typed by checking its expression once.
        Nothing is stored. Parameters are refused; globals may be read."""
        expr = decl.computed
        comp = obj.computeds[decl.name]
        for n in ast.iter_nodes(expr):
            if isinstance(n, ast.Param):
                self.reporter.error("E0206", "a computed cannot read query parameters", n.span,
                                    "read a global instead: global name")
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
        if isinstance(expr, ast.Backlink) and self._poly_backlink(obj, decl, expr, module):
            return
        if isinstance(expr, ast.Backlink):
            found = self._backlink_source(obj, expr, module)
            if found is None:
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
            source, link = found
            new = dataclasses.replace(comp, target=source, multi=True, required=False, backlink=link)
        elif (link_select(expr) is None or _selects_computed(obj, expr)) \
                and computed_sql.set_target(expr, obj, self.schema, module) is not None:
            # A path through links or a union (checked once every computed is typed: it may
            # read computed links of other types).
            target = computed_sql.set_target(expr, obj, self.schema, module)
            # (a path through single links is at most one object, as Gel infers it, unless the
            # computed is declared multi)
            single = computed_sql.single_set(expr) or self._coalesce_at_most_one(obj, expr, module) or (
                not decl.multi and computed_sql.single_path(expr, obj, self.schema, module))
            new = dataclasses.replace(comp, target=target, multi=not single, required=False, set_expr=True)
            self._set_computeds.append((obj, decl.name, module))
        elif link_select(expr) is not None:
            new = self._link_select(obj, decl, comp, module)
            if new is None:
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
        elif single_subselect(expr)[0] is not None:
            expr, asserted = single_subselect(expr)
            target_key = self._type_key(expr.type_name, module)
            target = self.schema.types.get(target_key) if target_key else None
            if target is None:
                self.reporter.error("E0201", f"unknown type '{expr.type_name}'", expr.type_span,
                                    did_you_mean(expr.type_name.split("::")[-1], [d.name for d in self.decls.values()]))
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
            ctx = ExprContext(self.schema, target, module, self.reporter, params=ParamTable(), where="a computed",
                              outer=(obj, qi(obj.table)))
            low = lower(expr.filter, ctx, BOOL)
            if low is None:
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
            if low.type.family != "bool":
                self.reporter.error("E0304", f"a filter must be bool, got {low.type.name}", expr.filter.span)
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
            new = dataclasses.replace(comp, target=target,
                                      multi=not asserted and not _filter_pins_one(expr.filter, target))
        else:
            ctx = ExprContext(self.schema, obj, module, self.reporter, params=ParamTable(), where="a computed")
            node = check(ast.Path((decl.name,), decl.name_span), ctx)
            if node is None:
                obj.computeds[decl.name] = dataclasses.replace(comp, broken=True)
                return
            # a set of values (`.linkedTags.name`, read as their array): multi, maybe empty
            values = computed_sql.is_value_set(node)
            new = dataclasses.replace(comp, type=node.type, required=not node.nullable and not values, multi=values)
        if decl.type is not None:
            self._check_declared_type(decl, new, module)
        filt = (link_select(decl.computed) or (None, None))[1]
        pinned = filt is not None and new.target is not None and _filter_pins_one(filt, new.target)  # type: ignore[arg-type]
        # A backlink through a link with an exclusive constraint reaches at most one object
        # (each target is linked once: School.classes { constraint exclusive } gives a Class
        # one school), as Gel's cardinality inference has it.
        pinned = pinned or (new.backlink is not None and new.target is not None
                            and self._exclusive_link(new.target, new.backlink))
        if new.target is not None and (pinned or not new.multi):
            new = dataclasses.replace(new, at_most_one=True)
        if decl.single and new.multi and not pinned:
            # Gel refuses the schema: "possibly more than one element returned by an expression
            # for a computed link explicitly declared as 'single'"
            # (https://docs.geldata.com/reference/datamodel/computeds).
            self.reporter.error("E0204", f"computed '{decl.name}' is declared single, but its expression may "
                                "select more than one object", decl.span,
                                "declare it multi, or filter on .id or on an exclusive property")
            new = dataclasses.replace(new, broken=True)
        if decl.required and not new.required and new.target is None:
            self.reporter.warning("W0006", f"required computed '{decl.name}' may be empty: not enforced",
                                  decl.name_span)
        if decl.kind == "link" and new.target is None:
            self.reporter.error("E0201", f"computed link '{decl.name}' must select objects "
                                "(a backlink .<link[is Type] or (select Type filter ...))", decl.span)
        elif decl.kind == "property" and new.target is not None:
            self.reporter.error("E0201", f"computed property '{decl.name}' selects objects: declare it a link",
                                decl.span)
        obj.computeds[decl.name] = new

    def _check_set_computeds(self) -> None:
        """Check the computed links made of paths and unions (``multi link characters :=
        (.items[is Media].edges.character union ...)``) once every computed is typed."""
        for obj, name, module in self._set_computeds:
            comp = obj.computeds[name]
            ctx = ExprContext(self.schema, obj, module, self.reporter, params=ParamTable(), where="a computed")
            if computed_sql.expr_object_set(comp.expr, ctx, qi("_s"), comp.span) is None:
                obj.computeds[name] = dataclasses.replace(comp, broken=True)

    def _coalesce_at_most_one(self, obj: ObjectType, expr, module: str) -> bool:
        """``.<gold[is Country] ?? .<food[is Country]``: each operand a backlink through an
        exclusive link, so at most one object, and so is the first that holds any (Gel's
        cardinality inference)."""
        parts = computed_sql.coalesce_parts(expr)
        if parts is None or not all(isinstance(p, ast.Backlink) and p.type_name is not None for p in parts):
            return False
        for p in parts:
            key = self._type_key(p.type_name, module)  # type: ignore[attr-defined]
            source = self.schema.types.get(key) if key else None
            if source is None or not self._exclusive_link(source, p.link):  # type: ignore[attr-defined]
                return False
        return True

    def _exclusive_link(self, source: ObjectType, link: str) -> bool:
        """Whether ``source``'s link ``link`` (declared on it or inherited) is ``constraint exclusive``."""
        key = self._type_key(source.name, source.module)
        for k in self.mro.get(key, [key]) if key else []:
            for p in self.decls[k].pointers:
                if p.name == link and any(c.name == "exclusive" for c in p.constraints):
                    return True
        return False

    def _link_select(self, obj: ObjectType, decl: ast.PointerDecl, comp: Computed, module: str) -> Optional[Computed]:
        """``multi link published := (select .<author[is Post] filter .published)`` / ``(select
        .tags filter .active)``: some of the objects of a backlink or of a stored link of the
        object (https://docs.geldata.com/reference/datamodel/computeds), a computed link to
        their type; multi when the backlink or link is. Its filter is checked over the target
        (``Type.prop`` of the object's own type reads the object)."""
        base, filt = link_select(decl.computed)  # type: ignore[misc]
        if isinstance(base, ast.Backlink):
            found = self._backlink_source(obj, base, module)
            if found is None:
                return None
            target, link_name = found
            new = dataclasses.replace(comp, target=target, multi=True, required=False, backlink=link_name,
                                      filter=filt)
        else:
            name = base.steps[0]  # type: ignore[attr-defined]
            link = obj.links.get(name)
            if link is None:
                span = base.span  # type: ignore[attr-defined]
                if name in obj.computeds:
                    self.reporter.error("E0206", f"a sub-select of the computed '{name}' is not supported in a "
                                        "computed yet", span, "select from the backlink or link it is made of")
                else:
                    self.reporter.error("E0202", f"type '{obj.name}' has no link '{name}'", span,
                                        did_you_mean(name, list(obj.links)))
                return None
            new = dataclasses.replace(comp, target=link.target, multi=link.multi, required=False, forward=name,
                                      filter=filt)
        if filt is not None:
            ctx = ExprContext(self.schema, new.target, module, self.reporter, params=ParamTable(), where="a computed",
                              outer=(obj, qi(obj.table)))
            low = lower(filt, ctx, BOOL)  # type: ignore[arg-type]
            if low is None:
                return None
            if low.type.family != "bool":
                self.reporter.error("E0304", f"a filter must be bool, got {low.type.name}",
                                    filt.span)  # type: ignore[attr-defined]
                return None
        return new

    def _check_declared_type(self, decl: ast.PointerDecl, comp: Computed, module: str) -> None:
        ref = decl.type
        assert ref is not None
        if comp.target is not None:
            key = self._type_key(ref.name, module)
            if key is None or self.schema.types.get(key) is not comp.target:
                self.reporter.error("E0204", f"computed '{decl.name}' is declared {ref}, but selects "
                                    f"{comp.target.name}", ref.span)
            return
        vtype = resolve_type_ref(ref, self._type_context(module))
        if vtype is not None and comp.type is not None and vtype.family != comp.type.family:
            self.reporter.error("E0204", f"computed '{decl.name}' is declared {vtype.name}, but its expression is "
                                f"{comp.type.name}", ref.span)

    def _poly_backlink(self, obj: ObjectType, decl: ast.PointerDecl, expr: ast.Backlink, module: str) -> bool:
        """A computed backlink whose objects are of several types: ``.<actors[is Content]`` with
        ``Content`` abstract (its concrete subtypes' links), or ``.<tags`` that several types'
        links reach (https://docs.geldata.com/reference/datamodel/links#backlinks). The schema
        may declare it (nothing is stored); a query reading it gets a located E0206
        (:attr:`schemac.semantics.model.Computed.refused`). ``True`` when it is one (recorded)."""
        sources: List[str] = []
        poly: Dict[str, object] = {}
        if expr.type_name is not None:
            key = self._type_key(expr.type_name, module)
            if key is None or key not in self.decls or not self.decls[key].abstract:
                return False
            subs = [self.schema.types[k] for k in self._concrete_descendants().get(key, []) if k in self.schema.types]
            sources = [t.name for t in subs if backlink_link(t, expr.link, obj) is not None]
            if not sources:
                return False
            poly = {"poly_type": key, "backlink": expr.link,
                    "poly_sources": tuple(t for t in subs if backlink_link(t, expr.link, obj) is not None)}
        else:
            sources = [t.name for t in self.schema.types.values() if backlink_link(t, expr.link, obj) is not None]
            if len(sources) < 2:
                return False
        comp = obj.computeds[decl.name]
        msg = (f"'{decl.name}' is a backlink to several types ({', '.join(sources)}): reading a polymorphic "
               "backlink in a query is not supported yet")
        obj.computeds[decl.name] = dataclasses.replace(comp, multi=True, refused=msg, **poly)  # type: ignore[arg-type]
        return True

    def _backlink_source(self, obj: ObjectType, expr: ast.Backlink, module: str):
        """(source type, link name) of ``.<link[is T]``: the type ``T`` whose link ``link``
        points at ``obj`` (https://docs.geldata.com/reference/datamodel/links#backlinks). Without
        ``[is T]`` exactly one type may have such a link."""
        candidates = [t for t in self.schema.types.values() if backlink_link(t, expr.link, obj) is not None]
        if expr.type_name is not None:
            key = self._type_key(expr.type_name, module)
            source = self.schema.types.get(key) if key else None
            if source is None and key in self.decls and self.decls[key].abstract:
                # An abstract type none of whose subtypes has a readable link here: its link was
                # refused where it is declared (reported there: nothing more), or none declares it.
                subs = [self.schema.types[k] for k in self._concrete_descendants().get(key, [])
                        if k in self.schema.types]
                if any(expr.link in t.refused_pointers for t in subs):
                    return None
                self.reporter.error("E0202", f"no concrete subtype of abstract type '{expr.type_name}' has a link "
                                    f"'{expr.link}' to '{obj.name}'", expr.type_span or expr.span)
                return None
            if source is None:
                self.reporter.error("E0201", f"unknown type '{expr.type_name}'", expr.type_span or expr.span,
                                    did_you_mean(expr.type_name.split("::")[-1], [d.name for d in self.decls.values()]))
                return None
            if source not in candidates:
                self.reporter.error("E0202", f"type '{source.name}' has no link '{expr.link}' to '{obj.name}'",
                                    expr.span, did_you_mean(expr.link, [n for n, l in source.links.items()
                                                                        if l.target is obj]))
                return None
            return source, expr.link
        if len(candidates) == 1:
            return candidates[0], expr.link
        if not candidates:
            self.reporter.error("E0202", f"no type has a link '{expr.link}' to '{obj.name}'", expr.span)
        else:
            names = ", ".join(t.name for t in candidates)
            self.reporter.error("E0206", f"'.<{expr.link}' reaches several types ({names}): polymorphic backlinks "
                                "are not supported", expr.span, f"name one: .<{expr.link}[is {candidates[0].name}]")
        return None

    # ---------------------------------------------------------------- access policies
    def _policies(self, key: str, obj: ObjectType) -> None:
        """The access policies of a type, inherited ones first
        (https://docs.geldata.com/reference/datamodel/access_policies): each ``when`` and
        ``using`` is checked once here (a bool over the object; globals may be read, parameters
        not)."""
        seen: Set[str] = set()
        for k in self.mro.get(key, [key]):
            t = self.decls[k]
            for pol in t.policies:
                if pol.name in seen:
                    if k == key:
                        self.reporter.error("E0200", f"access policy '{pol.name}' is already defined", pol.name_span)
                    continue
                seen.add(pol.name)
                ok = True
                for expr in (pol.when, pol.using):
                    if expr is None:
                        continue
                    if any(isinstance(n, ast.Param) for n in ast.iter_nodes(expr)):
                        self.reporter.error("E0206", "an access policy cannot read query parameters", expr.span,
                                            "read a global instead: global name")
                        ok = False
                        continue
                    ctx = ExprContext(self.schema, obj, t.module, self.reporter, params=ParamTable(),
                                      where="an access policy")
                    low = lower(expr, ctx, BOOL)
                    if low is None:
                        ok = False
                    elif low.type.family != "bool":
                        self.reporter.error("E0304", f"an access policy condition must be bool, got {low.type.name}",
                                            expr.span)
                        ok = False
                if not pol.kinds:
                    ok = False
                if ok:
                    obj.policies.append(AccessPolicy(pol.name, pol.allow, pol.kinds, pol.when, pol.using,
                                                     pol.errmessage, t.module, pol.span))

    # ---------------------------------------------------------------- globals
    def _globals(self) -> None:
        """Resolve every global (https://docs.geldata.com/reference/datamodel/globals): its type,
        its default (a constant expression, lowered to SQL), or for a computed global its
        expression's type (checked once here, inlined where it is read)."""
        cyclic = self._global_cycles()
        for key, g in self.global_decls.items():
            if key in cyclic:
                continue
            ctx = ExprContext(self.schema, None, g.module, self.reporter, where="a global's default")
            if g.multi:
                self.reporter.error("E0206", "multi globals are not supported yet", g.span,
                                    "declare a single global, e.g. an array: global ids: array<uuid>;")
                continue
            if g.computed is not None:
                self._computed_global(key, g)
                continue
            if g.type is None:
                self.reporter.error("E0201", f"global '{g.name}' has no type", g.name_span,
                                    f"write global {g.name}: <type>;")
                continue
            if self._type_key(g.type.name, g.module) is not None and not g.type.args:
                self.reporter.error("E0206", f"global '{g.name}' of object type '{g.type.name}' is not supported",
                                    g.type.span, f"store the object's id: global {g.name}_id: uuid; and, if "
                                    f"needed, global {g.name} := (select {g.type.name} filter .id = global "
                                    f"{g.name}_id);")
                continue
            vtype = resolve_type_ref(g.type, ctx)
            if vtype is None:
                continue
            default_sql = None
            if g.default is not None:
                low = lower(g.default, ctx, vtype)
                if low is None:
                    continue
                if low.type.family != vtype.family:
                    self.reporter.error("E0204", f"default of global '{g.name}' is {low.type.name}, but the global is "
                                        f"{vtype.name}", g.default.span)
                    continue
                default_sql = low.sql
            self.schema.globals[key] = Global(g.name, g.module, vtype, g.required, default_sql, g.span)
        for key, g in self.global_decls.items():
            if key not in self.schema.globals:
                self.schema.refused_globals[key] = g.span

    def _check_global_pins(self) -> None:
        """A computed global of object type holds at most one object: its filter must pin one
        (``.id``, or every property of a full exclusive constraint, with ``=``) unless it is
        wrapped in ``assert_single(...)`` (then the statement checks it)."""
        for key, g, sub, target in self._global_pins:
            if key in self.schema.globals and not _filter_pins_one(sub.filter, target):
                self.reporter.error("E0205", f"computed global '{g.name}' may hold several '{target.name}' objects",
                                    sub.filter.span, "filter on .id (or every property of an exclusive constraint) "
                                    "with '=', or wrap it in assert_single(...): multi globals are not supported")

    def _computed_global(self, key: str, g: ast.GlobalDecl) -> None:
        """A computed global: ``global current_user := (select User filter .id = global
        current_user_id)`` (an object, by its id) or a scalar expression. Its expression is
        lowered once here for its type (a sub-select must pin at most one object)."""
        if g.type is not None or g.default is not None:
            self.reporter.error("E0205", f"computed global '{g.name}' takes neither a type nor a default", g.span)
            return
        expr = g.computed
        target = None
        sub, asserted = single_subselect(expr)
        if sub is not None:
            expr = sub
        if isinstance(expr, ast.SubSelect):
            target_key = self._type_key(expr.type_name, g.module)
            target = self.schema.types.get(target_key) if target_key else None
            if target is None:
                self.reporter.error("E0201", f"unknown type '{expr.type_name}'", expr.type_span,
                                    did_you_mean(expr.type_name.split("::")[-1], [d.name for d in self.decls.values()]))
                return
            if not asserted:
                # Checked once every exclusive constraint is known (see _check_global_pins).
                self._global_pins.append((key, g, expr, target))
        provisional = Global(g.name, g.module, None, g.required, None, g.span, expr, target)
        self.schema.globals[key] = provisional
        ctx = ExprContext(self.schema, None, g.module, self.reporter, params=ParamTable(), where="a computed global")
        low = lower(ast.GlobalRef(key, g.name_span), ctx)
        if low is None:
            del self.schema.globals[key]
            return
        self.schema.globals[key] = Global(g.name, g.module, low.type, g.required, None, g.span, expr, target)

    def _global_cycles(self) -> Set[str]:
        """Computed globals that read themselves, directly or through others (reported)."""
        reads: Dict[str, List[Tuple[str, Span]]] = {}
        for key, g in self.global_decls.items():
            if g.computed is None:
                continue
            refs = []
            for n in ast.iter_nodes(g.computed):
                if isinstance(n, ast.SubSelect):
                    refs += [(m.name, m.span) for m in ast.iter_nodes(n.filter) if isinstance(m, ast.GlobalRef)]
                elif isinstance(n, ast.GlobalRef):
                    refs.append((n.name, n.span))
            resolved = []
            for name, span in refs:
                for cand in name_candidates(name, g.module, self.schema.module_library):
                    if cand in self.global_decls:
                        resolved.append((cand, span))
                        break
            reads[key] = resolved
        cyclic: Set[str] = set()
        for start in reads:
            stack = [(start, [start])]
            seen: Set[str] = set()
            while stack:
                key, path = stack.pop()
                for ref, _ in reads.get(key, ()):
                    if ref == start:
                        cyclic.add(start)
                        g = self.global_decls[start]
                        chain = " -> ".join(k.split("::")[-1] for k in path + [start])
                        self.reporter.error("E0210", f"computed global cycle: {chain}", g.name_span,
                                            "a computed global cannot read itself")
                        stack = []
                        break
                    if ref not in seen:
                        seen.add(ref)
                        stack.append((ref, path + [ref]))
        return cyclic

    def _shared_exclusives(self) -> None:
        """An exclusive constraint declared on a type holds across the objects of that type,
        those of its subtypes included (Gel: "the set of values ... does not intersect with any
        other such set in any other object of this type",
        https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive; a
        ``delegated constraint`` is per subtype, https://docs.geldata.com/reference/datamodel/constraints).
        Each concrete type is a table with the constraint's own ``UNIQUE`` (which holds within the
        table); across the tables of the declaring type and its concrete descendants, a ``BEFORE
        INSERT OR UPDATE`` trigger on each (:func:`_across_tables_trigger`) refuses a value another
        of them holds, as the constraint's own unique violation. A partial exclusive or one on
        expressions stays per table, with the warning W0002."""
        for key, t in self.decls.items():
            if t.module == gel_auth.MODULE:  # (documented for ext::auth::Factor)
                continue
            subs = [self.schema.types[k] for k in self._concrete_descendants().get(key, []) if k in self.schema.types]
            if len(subs) < 2:
                continue
            declared = [c.span for c in t.constraints if c.name == "exclusive" and not c.delegated]
            declared += [c.span for p in t.pointers for c in p.constraints if c.name == "exclusive" and not c.delegated]
            for span in declared:
                found = [(sub, next((ex for ex in sub.exclusives if ex.span == span), None)) for sub in subs]
                if any(ex is None for _, ex in found):
                    continue  # (refused, reported)
                if any(ex.partial or ex.keys_sql for _, ex in found):  # type: ignore[union-attr]
                    names = ", ".join(sub.name for sub in subs)
                    self.reporter.warning("W0002", f"exclusive constraint of type '{t.name}' is enforced per table "
                                          f"({names}), not across them (a partial exclusive or one on "
                                          "expressions)", span)
                    continue
                for sub, ex in found:
                    others = [(o, oex) for o, oex in found if o is not sub]
                    sub.triggers.append(_across_tables_trigger(sub, ex, others, found[0][1].name))  # type: ignore[arg-type]

    def _resolve_pointer_type(self, ptr: _Pointer):
        """(kind, value) where kind is 'value' (a ValueType + custom scalar or None) or 'link'."""
        ref = ptr.type
        assert ref is not None
        key = self._type_key(ref.name, ptr.module) if not ref.args else None
        if key is not None:
            return "link", key
        custom = self._custom_scalar_of(ref.name, ptr.module) if not ref.args else None
        vtype = resolve_type_ref(ref, self._type_context(ptr.module), allow_tuple=True)
        if vtype is None:
            return None
        return "value", (vtype, custom)

    def _pointer(self, obj: ObjectType, ptr: _Pointer) -> None:
        decl = ptr.decl
        resolved = self._resolve_pointer_type(ptr)
        if resolved is None:
            obj.refused_pointers.add(decl.name)
            return
        kind, value = resolved
        if kind == "link":
            self._link(obj, ptr, value)
            return
        if decl.kind == "link":
            self.reporter.error("E0201", f"link '{decl.name}' must point to an object type, not {ptr.type}",
                                ptr.type.span if ptr.type else decl.name_span)  # type: ignore[union-attr]
            return
        if decl.link_props:
            self.reporter.error("E0205", "only links can have link properties", decl.link_props[0].span)
        if decl.on_target_delete:
            self.reporter.error("E0205", "'on target delete' only applies to links", decl.name_span)
        vtype, custom = value
        default_sql = None
        required = ptr.required
        if decl.multi:
            if vtype.element is not None:
                self.reporter.error("E0206", "a multi property of arrays is not supported", decl.name_span)
                return
            vtype = ValueType(element=vtype)
            default_sql = "'{}'"
            required = True  # an empty set is stored as an empty array
        if custom is not None and custom.sequence and not decl.multi:  # type: ignore[attr-defined]
            default_sql = f"nextval('{qi(custom.sequence)}')"  # type: ignore[attr-defined]
        col = Column(decl.name, vtype, required, default_sql, decl.span, readonly=ptr.readonly,
                     comment=_comment(ptr.annotations), multi=decl.multi)
        taken = obj.column(decl.name)
        if taken is not None and taken.link is not None:
            # (the other order, a property before the link, is caught in _link)
            self.reporter.error("E0207", f"property '{decl.name}' needs column '{decl.name}', which link "
                                f"'{taken.link}' already uses", decl.name_span,
                                f"rename the property or the link (a single link '{taken.link}' is stored in "
                                f"column '{taken.link}_id')")
            return
        obj.columns.append(col)
        if decl.multi and ptr.required:
            obj.checks.append(CheckConstraint(object_name("ck", obj.table, [decl.name, "required"]),
                                              f"cardinality({quote_ident(decl.name)}) > 0"))
        if vtype.enum is not None or (vtype.element is not None and vtype.element.enum is not None):
            enum = vtype.enum or vtype.element.enum  # type: ignore[union-attr]
            members = ", ".join(sql_string(m) for m in enum.members)
            if vtype.element is None:
                expr = f"{quote_ident(decl.name)} IN ({members})"
            else:
                expr = f"{quote_ident(decl.name)} <@ ARRAY[{members}]::text[]"
            obj.checks.append(CheckConstraint(object_name("ck", obj.table, [decl.name, "enum"]), expr))
        unit_check = _UNIT_CHECKS.get(vtype.scalar.name) if vtype.scalar is not None else None
        if unit_check is not None:
            kind, fields = unit_check
            col_sql = quote_ident(decl.name)
            obj.checks.append(CheckConstraint(object_name("ck", obj.table, [decl.name, kind]), " AND ".join(
                f"date_part('{f}', {col_sql}) = 0" for f in fields)))
        if custom is not None:
            checks = len(obj.checks)
            for c in custom.constraints:  # type: ignore[attr-defined]
                self._value_constraint(obj, col, c, custom.module, multi=decl.multi)  # type: ignore[attr-defined]
            self._scalar_checks.update((obj.table, ck.name) for ck in obj.checks[checks:])

    def _union_targets(self, ptr: _Pointer) -> Optional[List[str]]:
        """The concrete types a link to a union of types reaches, ``multi references: File | URL
        | Publication`` (https://docs.geldata.com/reference/datamodel/links; geldata/gel
        tests/schemas/issues.esdl): each member, or an abstract member's concrete subtypes, each
        once; ``None`` after an error (a member that is not an object type)."""
        keys: List[str] = []
        for u in ptr.decl.union:
            key = self._type_key(u.name, ptr.module) if not u.args else None
            if key is None:
                self.reporter.error("E0201", f"link '{ptr.decl.name}' must point to object types, not {u}", u.span)
                return None
            subs = self._concrete_descendants().get(key, []) if self.decls[key].abstract else [key]
            keys += [k for k in subs if k not in keys]
        return keys

    def _link(self, obj: ObjectType, ptr: _Pointer, target_key: str) -> None:
        decl = ptr.decl
        if decl.union:
            keys = self._union_targets(ptr)
            if keys is None:
                return
            if len(keys) != 1:
                label = f"{ptr.module}::{' | '.join(str(u) for u in decl.union)}"
                self._poly_link(obj, ptr, label, [self.schema.types[k] for k in keys])
                return
            target_key = keys[0]
        target_decl = self.decls[target_key]
        if target_decl.abstract:
            subs = self._concrete_descendants().get(target_key, [])
            if len(subs) != 1:
                if not subs:
                    msg = f"link '{decl.name}' points to abstract type '{target_decl.name}', which has no concrete subtype"
                    hint = f"link to a concrete type, or add a type extending {target_decl.name}"
                    self.reporter.error("E0212", msg, ptr.type.span if ptr.type else decl.name_span, hint)  # type: ignore[union-attr]
                    return
                self._poly_link(obj, ptr, target_key, [self.schema.types[k] for k in subs])
                return
            target_key = subs[0]
        target = self.schema.types[target_key]
        action = ptr.decl.on_target_delete or "restrict"
        if decl.multi:
            self._multi_link(obj, ptr, target, action)
            return
        if action == "allow" and ptr.required:
            # Gel accepts it, and refuses the deletion of a target still linked (it would leave
            # the required link empty: https://github.com/geldata/gel/issues/8417): restrict.
            action = "restrict"
        column = f"{decl.name}_id"
        size = len(decl.name.encode("utf-8"))
        if size + 3 > MAX_IDENTIFIER_BYTES:
            # (a name over 63 bytes was refused by declare_names; each declaration is reported
            # once, not once per type that inherits it)
            if size <= MAX_IDENTIFIER_BYTES and decl.name_span not in self._long_links:
                self._long_links.add(decl.name_span)
                self._check_length(decl.name, decl.name_span, "link", extra=3)
            return
        if obj.column(column) is not None:
            self.reporter.error("E0207", f"link '{decl.name}' needs column '{column}', which a property already uses",
                                decl.name_span)
            return
        obj.columns.append(Column(column, UUID, ptr.required, None, decl.span, readonly=ptr.readonly,
                                  comment=_comment(ptr.annotations), link=decl.name))
        obj.foreign_keys.append(ForeignKey(object_name("fk", obj.table, [column]), column, target.table,
                                           SINGLE_LINK_ON_DELETE[action]))
        obj.indexes.append(Index(object_name("ix", obj.table, [column]), (qi(column),), "btree", None, None))
        obj.links[decl.name] = Link(decl.name, target, False, ptr.required, column, None)
        self._single_link_props(obj, ptr)

    def _splat_strategies(self, obj: ObjectType, decls: List[ast.PointerDecl]) -> None:
        """``splat_strategy := 'Explicit'`` in a pointer's body (Gel 7,
        https://github.com/geldata/gel/pull/8757; geldata/gel tests/schemas/issues.esdl): a splat
        leaves the pointer out (``*`` a property, ``**`` a link); ``'Implicit'``: ``*`` selects
        the link too; ``'Default'``: as without it."""
        for decl in decls:
            strategy = decl.splat_strategy
            if strategy is None:
                continue
            if strategy not in ("Default", "Implicit", "Explicit"):
                self.reporter.error("E0205", f"unknown splat_strategy '{strategy}'",
                                    decl.splat_strategy_span or decl.name_span,
                                    "expected 'Default', 'Implicit' or 'Explicit'")
                continue
            if strategy != "Default":
                obj.splat_strategies[decl.name] = strategy

    def _single_link_props(self, obj: ObjectType, ptr: _Pointer) -> None:
        """The link properties of a single link (``owner: User { note: str }``,
        https://docs.geldata.com/reference/datamodel/linkprops): a single link is at most one
        object, so each property is a nullable column ``<link>@<prop>`` of the source table, next
        to the link's FK column (a name no property can take; Gel keeps them in a link table,
        the same facts). Its ``default`` is the column's; it is empty when the link is (an optional
        link's trigger, :func:`schemac.semantics.lowering.empty_link_props_trigger`). Refused
        (E0206): a ``required`` link property (the link may be empty) and ``constraint
        exclusive`` on one."""
        decl = ptr.decl
        ctx = ExprContext(self.schema, None, ptr.module, self.reporter)
        cols: List[Column] = []
        for lp in decl.link_props:
            if lp.type is None or lp.computed is not None:
                continue
            if lp.required:
                self.reporter.error("E0206", f"a required link property ('{lp.name}') on the single link "
                                    f"'{decl.name}' is not supported yet", lp.span,
                                    "make it optional, or make the link 'multi'")
                continue
            vtype = resolve_type_ref(lp.type, ctx)
            if vtype is None:
                continue
            name = f"{decl.name}@{lp.name}"
            if len(name.encode("utf-8")) > MAX_IDENTIFIER_BYTES:
                self._check_length(name, lp.name_span, "link property")
                continue
            default_sql = None
            if lp.default is not None:
                low = lower(lp.default, ExprContext(self.schema, None, ptr.module, self.reporter), vtype)
                if low is not None and low.type.family == vtype.family:
                    default_sql = low.sql
            lcol = Column(name, vtype, False, default_sql, lp.span, comment=_comment(lp.annotations),
                          pointer=name, link_prop=decl.name, link_optional=not ptr.required)
            obj.columns.append(lcol)
            cols.append(lcol)
            for c in lp.constraints:
                if c.name in ("exclusive", "std::exclusive"):
                    self.reporter.error("E0206", f"constraint exclusive on a link property of the single link "
                                        f"'{decl.name}' is not supported yet", c.name_span)
                    continue
                self._value_constraint(obj, lcol, c, ptr.module)
        if cols and not ptr.required:
            obj.triggers.append(empty_link_props_trigger(obj.table, decl.name, f"{decl.name}_id", cols))

    def _poly_link(self, obj: ObjectType, ptr: _Pointer, abstract_key: str, subs: List[ObjectType]) -> None:
        """A link to an abstract type with several concrete subtypes
        (https://docs.geldata.com/reference/datamodel/inheritance, https://docs.geldata.com/reference/datamodel/links): one nullable FK
        column per concrete subtype, each with the link's ``on target delete`` policy, and a
        CHECK that at most one (a required single link: exactly one) is set. A multi link's join
        table has those columns plus ``target_id`` (whichever is set), its primary key with
        ``source_id``. See :class:`schemac.semantics.model.PolyLink`."""
        decl = ptr.decl
        action = decl.on_target_delete or "restrict"
        if decl.multi and action not in MULTI_LINK_ON_DELETE:
            self.reporter.error("E0206", f"'on target delete {action}' on a multi link is not supported",
                                decl.name_span, "use 'restrict' or 'allow' (allow removes the link)")
            return
        if decl.multi and action == "delete source":
            self.reporter.error("E0206", "'on target delete delete source' on a polymorphic multi link is not "
                                "supported yet", decl.name_span, "use 'restrict' or 'allow'")
            return
        if not decl.multi and decl.link_props:
            self.reporter.error("E0206", "link properties on a polymorphic single link are not supported yet",
                                decl.link_props[0].span, "make the link 'multi', or move the property to the type")
        if action == "allow" and ptr.required and not decl.multi:
            action = "restrict"  # (as for a link to one type, above)
        plain_exclusive = all(c.name == "exclusive" and not c.args and not c.on and c.filter is None
                              and c.except_ is None for c, _ in ptr.constraints)
        for what, present in (("a default", ptr.default is not None),
                              ("constraints other than a plain 'constraint exclusive'",
                               bool(ptr.constraints) and not plain_exclusive),
                              ("rewrites", bool(ptr.rewrites))):
            if present:
                self.reporter.error("E0206", f"{what} on a polymorphic link ('{decl.name}' to abstract type "
                                    f"'{abstract_key.split('::')[-1]}') is not supported yet", decl.name_span)
                obj.refused_pointers.add(decl.name)  # (reading it reports nothing more)
                return
        if decl.multi:
            table = short_identifier(f"{obj.table}_{snake_case(decl.name)}")
            host_name = f"{obj.name}.{decl.name}"
            cols = [Column("source_id", UUID, True, None, decl.span), Column("target_id", UUID, True, None, decl.span)]
            host = ObjectType(host_name, obj.module, table, cols, [], [], decl.span, comment=_comment(ptr.annotations),
                              primary_key=("source_id", "target_id"), join_of=(obj.qualname, decl.name),
                              library=obj.library)
            ctx = ExprContext(self.schema, None, ptr.module, self.reporter)
            for lp in decl.link_props:
                if lp.type is None or lp.computed is not None:
                    continue
                if lp.name in ("source_id", "target_id", "source", "target") or lp.name.startswith("target_"):
                    self.reporter.error("E0200", f"link property '{lp.name}' clashes with the join table's own "
                                        "columns", lp.name_span)
                    continue
                vtype = resolve_type_ref(lp.type, ctx)
                if vtype is None:
                    continue
                if lp.default is not None:
                    self.reporter.error("E0206", "defaults of link properties of a polymorphic link are not "
                                        "supported yet", lp.default.span)
                lcol = Column(lp.name, vtype, bool(lp.required), None, lp.span, comment=_comment(lp.annotations))
                host.columns.append(lcol)
                for c in lp.constraints:
                    self._value_constraint(host, lcol, c, ptr.module)
            prefix, on_delete = "target", MULTI_LINK_ON_DELETE[action]
        else:
            host, table, prefix, on_delete = obj, obj.table, decl.name, SINGLE_LINK_ON_DELETE[action]
        targets: List[Tuple[ObjectType, str]] = []
        for sub in subs:
            column = short_identifier(f"{prefix}_{sub.table}_id")
            if host.column(column) is not None:
                self.reporter.error("E0207", f"link '{decl.name}' needs column '{column}', which a property "
                                    "already uses", decl.name_span)
                return
            targets.append((sub, column))
        for sub, column in targets:
            host.columns.append(Column(column, UUID, False, None, decl.span, readonly=ptr.readonly,
                                       comment=None if decl.multi else _comment(ptr.annotations), link=decl.name,
                                       pointer=f"{'target' if decl.multi else decl.name}[is {sub.qualname}]"))
            host.foreign_keys.append(ForeignKey(object_name("fk", table, [column]), column, sub.table, on_delete))
            host.indexes.append(Index(object_name("ix", table, [column]), (qi(column),), "btree", None, None))
        if ptr.constraints:
            # constraint exclusive: an object is the target of at most one link (ids are unique
            # across tables, so one UNIQUE per subtype column says it; a multi link: its
            # join table's target_id)
            for column in ([c for _, c in targets] if not decl.multi else ["target_id"]):
                host.exclusives.append(ExclusiveConstraint(object_name("uq", table, [column]), (column,), None,
                                                           ptr.constraints[0][0].span))
        listed = ", ".join(quote_ident(c) for _, c in targets)
        if decl.multi:
            check = f"num_nonnulls({listed}) = 1 AND \"target_id\" = COALESCE({listed})"
        else:
            check = f"num_nonnulls({listed}) {'=' if ptr.required else '<='} 1"
        host.checks.append(CheckConstraint(object_name("ck", table, [snake_case(decl.name), "one_target"]), check))
        if decl.multi:
            host.foreign_keys.insert(0, ForeignKey(object_name("fk", table, ["source_id"]), "source_id", obj.table,
                                                   "CASCADE"))
            host.indexes.insert(0, Index(object_name("ix", table, ["target_id"]), (qi("target_id"),), "btree",
                                         None, None))
            self.schema.join_tables.append(host)
        obj.poly_links[decl.name] = PolyLink(decl.name, abstract_key, tuple(targets), decl.multi, ptr.required,
                                             table if decl.multi else None)

    def _multi_link(self, obj: ObjectType, ptr: _Pointer, target: ObjectType, action: str) -> None:
        decl = ptr.decl
        if action not in MULTI_LINK_ON_DELETE:
            self.reporter.error("E0206", f"'on target delete {action}' on a multi link is not supported",
                                decl.name_span, "use 'restrict' or 'allow' (allow removes the link)")
            return
        if ptr.required:
            self.reporter.warning("W0003", f"required multi link '{decl.name}': 'at least one' is not enforced "
                                  "by the database", decl.name_span)
        table = short_identifier(f"{obj.table}_{snake_case(decl.name)}")
        cols = [Column("source_id", UUID, True, None, decl.span), Column("target_id", UUID, True, None, decl.span)]
        join = ObjectType(f"{obj.name}.{decl.name}", obj.module, table, cols, [], [], decl.span,
                          comment=_comment(ptr.annotations), primary_key=("source_id", "target_id"),
                          join_of=(obj.qualname, decl.name), library=obj.library)
        ctx = ExprContext(self.schema, None, ptr.module, self.reporter)
        for lp in decl.link_props:
            if lp.type is None or lp.computed is not None:
                continue
            if lp.name in ("source_id", "target_id", "source", "target"):
                self.reporter.error("E0200", f"link property '{lp.name}' clashes with the join table's own columns",
                                    lp.name_span)
                continue
            vtype = resolve_type_ref(lp.type, ctx)
            if vtype is None:
                continue
            default_sql = None
            if lp.default is not None:
                low = lower(lp.default, ExprContext(self.schema, None, ptr.module, self.reporter), vtype)
                if low is not None and low.type.family == vtype.family:
                    default_sql = low.sql
            lcol = Column(lp.name, vtype, bool(lp.required), default_sql, lp.span, comment=_comment(lp.annotations))
            join.columns.append(lcol)
            for c in lp.constraints:
                self._value_constraint(join, lcol, c, ptr.module)
        join.foreign_keys.append(ForeignKey(object_name("fk", table, ["source_id"]), "source_id", obj.table, "CASCADE"))
        join.foreign_keys.append(ForeignKey(object_name("fk", table, ["target_id"]), "target_id", target.table,
                                            MULTI_LINK_ON_DELETE[action]))
        join.indexes.append(Index(object_name("ix", table, ["target_id"]), (qi("target_id"),), "btree", None, None))
        if action == "delete source":
            join.triggers.append(target_delete_source(join, obj, target))
        self.schema.join_tables.append(join)
        obj.links[decl.name] = Link(decl.name, target, True, ptr.required, None, table)

    # ---------------------------------------------------------------- members
    def _members(self, key: str, obj: ObjectType, pointers: Dict[str, _Pointer]) -> None:
        # Defaults, pointer-level constraints and indexes.
        for ptr in pointers.values():
            decl = ptr.decl
            for ix in decl.indexes:
                self._pointer_index(obj, ptr, ix)
            col = obj.column(decl.name) or (obj.column(f"{decl.name}_id") if decl.name in obj.links else None)
            if col is None:
                link = obj.links.get(decl.name)
                if link is not None and link.multi:
                    for c, module in ptr.constraints:
                        self._multi_link_constraint(obj, decl.name, c, module)
                continue
            if ptr.default is not None:
                self._default(obj, col, ptr)
            for c, module in ptr.constraints:
                self._value_constraint(obj, col, c, module, multi=decl.multi)
        # Type-level constraints and indexes, inherited ones first. Of the fts::index
        # declarations, the type's own (else its nearest base's) apply: Gel's "if a type inherits
        # this index from a parent and also declares its own, only the new index applies"
        # (https://docs.geldata.com/reference/stdlib/fts).
        order = self.mro.get(key, [key])
        fts_owner = next((k for k in reversed(order) if any(ix.kind in ("fts::index", "std::fts::index")
                                                             for ix in self.decls[k].indexes)), None)
        for k in order:
            t = self.decls[k]
            for c in t.constraints:
                self._type_constraint(obj, c, t.module)
            for ix in t.indexes:
                if ix.kind in ("fts::index", "std::fts::index") and k != fts_owner:
                    continue
                if not ix.deferred or _gel_server_index(ix):  # (ext::ai::index: refused by _index)
                    self._index(obj, ix, t.module)

    def _multi_link_constraint(self, obj: ObjectType, name: str, c: ast.ConstraintDecl, module: str) -> None:
        """A constraint on a multi link. ``constraint exclusive``: "the set of values held by a
        link ... does not intersect with any other such set in any other object"
        (https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive), so an
        object is the target of at most one such link (two users cannot hold one award): a
        ``UNIQUE (target_id)`` of the link's join table, a typed ExclusiveViolation like any
        other. Other constraints are refused, never dropped."""
        join = next(t for t in self.schema.join_tables if t.join_of == (obj.qualname, name))
        if c.name not in ("exclusive", "std::exclusive"):
            self.reporter.error("E0206", f"constraint '{c.name}' on a multi link ('{name}') is not supported",
                                c.name_span, "a multi link supports constraint exclusive")
            return
        if c.args or c.on:
            self.reporter.error("E0205", "a link's 'constraint exclusive' takes no arguments or 'on'", c.span)
            return
        ctx = ExprContext(self.schema, join, module, self.reporter, where="a constraint")
        self._exclusive(join, ["target_id"], c, ctx)

    def _pointer_index(self, obj: ObjectType, ptr: _Pointer, ix: ast.IndexDecl) -> None:
        """``index on (...)`` in a pointer's body. In a multi link's (or in an abstract link's
        it extends), Gel indexes the link's properties (``index on (__subject__@weight)``,
        https://docs.geldata.com/reference/datamodel/indexes and /links#link-properties): an
        index of the link's join table over those columns. In the body of a property (Gel reads
        a pointer declared without ``property``/``link`` and with a block as a link's
        declaration, indexes included, then types it), the index reads the object
        (``required status: str { index on (.status); }``, ``__subject__`` the property
        itself): an index of the object's table, as if declared on the type."""
        decl = ptr.decl
        link = obj.links.get(decl.name)
        if decl.name in obj.poly_links or (link is not None and not link.multi) or \
                (link is None and obj.column(decl.name) is None):
            if decl.name in obj.refused_pointers:
                return  # its declaration was refused, and reported
            what = "a polymorphic link" if decl.name in obj.poly_links else "a single link" if link is not None \
                else "this pointer"
            self.reporter.error("E0206", f"an index in the body of {what} ('{decl.name}') is not supported", ix.span,
                                "declare the index on the type: index on (.link)")
            return
        if link is None:
            subject = ast.Path((decl.name,), ix.span)
            self._index(obj, _map_expr_decl(ix, lambda n: subject if isinstance(n, ast.Path)
                                            and n.steps == ("__subject__",) else n), ptr.module)
            return
        join = next(t for t in self.schema.join_tables if t.join_of == (obj.qualname, decl.name))
        bad: List[Span] = []

        def link_prop(n):
            if isinstance(n, ast.LinkPropRef):
                return ast.Path((n.name,), n.span)
            if isinstance(n, ast.Step) and n.kind == "@" and isinstance(n.base, ast.Path) \
                    and n.base.steps == ("__subject__",):
                return ast.Path((n.name,), n.span)
            if isinstance(n, (ast.Path, ast.Step, ast.Backlink)):
                bad.append(n.span)
            return n

        mapped = _map_expr_decl(ix, link_prop)
        if bad:
            self.reporter.error("E0206", f"an index of the link '{decl.name}' may read its link properties only "
                                "(@name)", bad[0], "index the target's properties on the target type")
            return
        self._index(join, mapped, ptr.module)

    def _default(self, obj: ObjectType, col: Column, ptr: _Pointer) -> None:
        ctx = ExprContext(self.schema, obj, ptr.default_module, self.reporter, where="a default")
        default = ptr.default
        assert default is not None
        if any(isinstance(n, ast.GlobalRef) for n in ast.iter_nodes(default)) \
                or (col.link is not None and isinstance(default, ast.SubSelect)):
            self._query_default(obj, col, ptr)
            return
        if col.link is not None and _inserts(default):
            self._insert_default(obj, col, ptr)
            return
        if col.link is not None:
            self.reporter.error("E0206", "this default of a link is not supported", default.span,
                                "a link's default may be an object global (default := global current_user), a "
                                "sub-select of one object: default := (select User filter .name = 'admin'), or an "
                                "insert of one: default := (insert User { name := 'new' })")
            return
        if any(isinstance(n, ast.Path) for n in ast.iter_nodes(default)):
            self._row_default(obj, col, ptr)
            return
        low = lower(assignment_cast(default, col.type), ctx, col.type)
        if low is None:
            return
        if low.column is not None:
            self.reporter.error("E0204", "a default cannot refer to other properties", default.span)
            return
        if low.type.family != col.type.family:
            self.reporter.error("E0204", f"default of '{col.name}' is {low.type.name}, but the property is "
                                f"{col.type.name}", default.span)
            return
        # The column itself (not an equal one: comparing dataclasses field by field is slow).
        i = next(i for i, c in enumerate(obj.columns) if c is col)
        obj.columns[i] = Column(col.name, col.type, col.required, low.sql, col.span, col.is_id, col.readonly,
                                col.comment, col.link)

    def _insert_default(self, obj: ObjectType, col: Column, ptr: _Pointer) -> None:
        """A single link's default that inserts its object, ``gold: Material { default := (insert
        Material { kind := Kind.Gold }) }`` (https://docs.geldata.com/reference/datamodel/links:
        a default is any expression; an insert makes a new object for each object inserted
        without the link): written by each generated insert that leaves the link out, as a
        nested insert (:func:`schemac.semantics.queries.link_insert_defaults`); its statement is
        checked once the schema is complete (:meth:`_check_insert_defaults`)."""
        default = ptr.default
        link = obj.links[col.link]  # type: ignore[index]
        ins = default.query  # type: ignore[union-attr]
        target = self.schema.find_type(ins.type_name, ptr.default_module)
        if target is not None and target is not link.target:
            self.reporter.error("E0204", f"the default of link '{col.link}' inserts {ins.type_name}, but the link "
                                f"points to {link.target.name}", ins.type_span)
            return
        if target is None:
            self.reporter.error("E0301", f"unknown type '{ins.type_name}'", ins.type_span)
            return
        if ins.unless_conflict is not None:
            self.reporter.error("E0206", "a link's default that inserts with 'unless conflict' is not supported",
                                ins.unless_conflict.span)
            return
        self._insert_defaults.append((target, ins, ptr.default_module))
        i = next(i for i, c in enumerate(obj.columns) if c is col)
        obj.columns[i] = dataclasses.replace(col, query_default=default, query_default_module=ptr.default_module)

    def _check_insert_defaults(self) -> None:
        """The statements of the links' defaults that insert (:meth:`_insert_default`), checked
        as an insert query would be (their values, required properties, constraints); they may
        not read parameters."""
        from schemac.semantics import q_dml, queries

        for target, ins, module in self._insert_defaults:
            ctx = ExprContext(self.schema, target, module, self.reporter, params=ParamTable(),
                              where="a default", nested=[])
            q_dml.check_insert(ins, target, ctx)
            if ctx.params.params:  # type: ignore[union-attr]
                p = next(iter(ctx.params.params.values()))  # type: ignore[union-attr]
                self.reporter.error("E0204", "a default cannot read parameters", p.span)

    def _row_default(self, obj: ObjectType, col: Column, ptr: _Pointer) -> None:
        """A default that reads other properties of the object, ``default := ('PUBLIC' if .public
        else 'PRIVATE')`` (Gel evaluates it for the object being inserted): a Postgres column
        default cannot read the row, so a BEFORE INSERT trigger of the table sets the column from
        the row as the insert wrote it (``NEW``) when the insert left it empty
        (:func:`schemac.semantics.triggers.build_triggers`). Only for a required property: for an
        optional one Postgres cannot tell an insert that leaves it out (the default applies)
        from one that gives it empty (it stays empty)."""
        default = ptr.default
        assert default is not None
        if not col.required:
            self.reporter.error("E0206", "a default that reads other properties of an optional property is not "
                                "supported", default.span,
                                "Postgres cannot tell an insert that leaves it out from one that gives it empty: "
                                "make the property required, or compute it with 'rewrite insert using (...)'")
            return
        ctx = ExprContext(self.schema, obj, ptr.default_module, self.reporter, where="a default",
                          column_prefix="NEW")
        low = lower(assignment_cast(default, col.type), ctx, col.type)
        if low is None:
            return
        if low.type.family != col.type.family or (low.type.enum is not None and low.type.enum is not col.type.enum):
            self.reporter.error("E0204", f"default of '{col.name}' is {low.type.name}, but the property is "
                                f"{col.type.name}", default.span)
            return
        i = next(i for i, c in enumerate(obj.columns) if c is col)
        obj.columns[i] = dataclasses.replace(col, row_default_sql=low.sql)

    def _query_default(self, obj: ObjectType, col: Column, ptr: _Pointer) -> None:
        """A default that reads a global (``created_by: User { default := global current_user }``,
        common in Gel schemas), or a link's default that selects its object (``default :=
        (select User filter .name = 'admin')``): checked here, written by each generated insert
        that leaves the column out (the database cannot know the request's globals, and a
        Postgres column default cannot hold a sub-query)."""
        default = ptr.default
        ctx = ExprContext(self.schema, obj, ptr.default_module, self.reporter, params=ParamTable(), where="a default")
        if col.link is not None and isinstance(default, ast.SubSelect):
            # (select T filter ...) of one object (https://docs.geldata.com/reference/datamodel/links#default-values):
            # Postgres cannot hold a sub-query in a column default, so each generated insert that
            # leaves the link out writes it (the link's target id, or NULL when none matches).
            link = obj.links[col.link]
            target = self.schema.find_type(default.type_name, ptr.default_module)
            if target is not None and target is not link.target:
                self.reporter.error("E0204", f"the default of link '{col.link}' selects {target.name}, but the "
                                    f"link points to {link.target.name}", default.type_span)
                return
            if lower(default, ctx, col.type) is None:
                return
        elif col.link is not None:
            link = obj.links[col.link]
            g = self.schema.find(default.name, ptr.default_module, self.schema.globals) \
                if isinstance(default, ast.GlobalRef) else None  # type: ignore[union-attr]
            if g is None and isinstance(default, ast.GlobalRef) and \
                    self.schema.find(default.name, ptr.default_module, self.schema.refused_globals) is not None:
                return  # the global's declaration was refused, and reported
            if g is None or g.target is not link.target:  # type: ignore[attr-defined]
                self.reporter.error("E0206", f"the default of link '{col.link}' must be a global holding a "
                                    f"{link.target.name}", default.span,  # type: ignore[union-attr]
                                    f"e.g. global current_user := (select {link.target.name} filter .id = global "
                                    "current_user_id); then default := global current_user")
                return
        else:
            low = lower(default, ctx, col.type)  # type: ignore[arg-type]
            if low is None:
                return
            if low.column is not None or any(isinstance(n, ast.Path) for n in ast.iter_nodes(default)):  # type: ignore[arg-type]
                self.reporter.error("E0204", "a default cannot refer to other properties", default.span)  # type: ignore[union-attr]
                return
            if low.type.family != col.type.family:
                self.reporter.error("E0204", f"default of '{col.name}' is {low.type.name}, but the property is "
                                    f"{col.type.name}", default.span)  # type: ignore[union-attr]
                return
        i = next(i for i, c in enumerate(obj.columns) if c is col)
        obj.columns[i] = dataclasses.replace(col, query_default=default, query_default_module=ptr.default_module)

    def _value_constraint(self, obj: ObjectType, col: Column, c: ast.ConstraintDecl, module: str,
                          multi: bool = False) -> None:
        """A constraint declared on a property (or inherited from its custom scalar); on a
        ``multi`` property it holds for each value."""
        ctx = ExprContext(self.schema, obj, module, self.reporter, where="a constraint", subject_column=col)
        if c.name == "exclusive":
            if c.args or c.on:
                self.reporter.error("E0205", "a property's 'constraint exclusive' takes no arguments or 'on'",
                                    c.span, "use a type-level constraint exclusive on (...)")
                return
            if multi:
                # Gel: no value of one object's set is in another's
                # (https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive);
                # a UNIQUE of the array the values are stored in compares whole arrays (issue 25)
                self.reporter.error("E0206", f"constraint exclusive on a multi property ('{col.name}') is not "
                                    "supported yet: its values are stored as one array", c.span,
                                    "store the values as objects: a multi link to a type with an exclusive property")
                return
            self._exclusive(obj, [col.name], c, ctx)
            return
        if c.name == "expression":
            if len(c.on) != 1:
                self.reporter.error("E0205", "constraint expression needs 'on (<bool expression>)'", c.span)
                return
            self._check(obj, [col.name, "expression"], c.on[0], ctx, c)
            return
        spec = VALUE_CONSTRAINTS.get(c.name)
        if spec is None:
            self.reporter.error("E0206", f"constraint '{c.name}' is not supported", c.name_span,
                                did_you_mean(c.name, list(VALUE_CONSTRAINTS) + ["exclusive", "expression"]))
            return
        arity, arg_kind, template = spec
        if (arity >= 0 and len(c.args) != arity) or (arity < 0 and not c.args):
            self.reporter.error("E0205", f"constraint {c.name} takes {arity if arity >= 0 else 'one or more'} "
                                f"argument{'s' if arity != 1 else ''}", c.span)
            return
        if col.link is not None:
            self.reporter.error("E0205", f"constraint {c.name} applies to properties only", c.span)
            return
        elem_type = col.type.element
        if elem_type is not None and not multi:
            # An array<T> property: Gel's len() of an array is its length.
            if c.name not in ("max_len_value", "min_len_value"):
                self.reporter.error("E0206", f"constraint {c.name} on an array is not supported yet", c.span,
                                    "use a multi property (each value is constrained)")
                return
            elem_type = None
        if elem_type is not None and c.name == "regexp":
            self.reporter.error("E0206", "constraint regexp on a multi property or an array is not supported yet",
                                c.span, "constrain a scalar property, or check the values in the application")
            return
        value_type = elem_type if elem_type is not None else col.type
        expected = {"int": ValueType(scalar=SCALARS["int64"]), "str": ValueType(scalar=SCALARS["str"]),
                    "same": value_type}[arg_kind]
        args_sql: List[str] = []
        for a in c.args:
            low = lower(a, ctx, expected)
            if low is None:
                return
            if low.column is not None or low.is_param:
                self.reporter.error("E0205", f"arguments of {c.name} must be constants", a.span)
                return
            if low.type.family != expected.family:
                self.reporter.error("E0205", f"{c.name} needs a {expected.name} argument, got {low.type.name}", a.span)
                return
            args_sql.append(low.sql)
        if arg_kind == "int" and col.type.element is not None and not multi:
            op = "<=" if c.name == "max_len_value" else ">="
            self._add_check(obj, object_name("ck", obj.table, [col.name, c.name]),
                            f"cardinality({quote_ident(col.name)}) {op} {args_sql[0]}", c.span)
            return
        if arg_kind == "int" and value_type.family != "str":
            self.reporter.error("E0205", f"{c.name} applies to str properties, not {col.type.name}", c.span)
            return
        if c.name == "regexp" and value_type.family != "str":
            self.reporter.error("E0205", f"regexp applies to str properties, not {col.type.name}", c.span)
            return
        if c.name.endswith("value") and arg_kind == "same" and value_type.family not in ("num", "datetime", "str"):
            self.reporter.error("E0205", f"{c.name} needs an ordered type, not {col.type.name}", c.span)
            return
        if elem_type is not None:
            sql = _each_element_check(c.name, quote_ident(col.name), args_sql, [a for a in c.args])
            if sql is None:
                self.reporter.error("E0206", f"{c.name} on a multi property needs an integer literal", c.args[0].span)
                return
        else:
            sql = template.format(*args_sql, c=quote_ident(col.name), args=", ".join(args_sql))
        self._add_check(obj, object_name("ck", obj.table, [col.name, c.name]), sql, c.span)

    def _type_constraint(self, obj: ObjectType, c: ast.ConstraintDecl, module: str) -> None:
        ctx = ExprContext(self.schema, obj, module, self.reporter, where="a constraint")
        if c.name == "exclusive":
            if c.args:
                self.reporter.error("E0205", "constraint exclusive takes no arguments", c.span)
                return
            if not c.on:
                self.reporter.error("E0205", "a type-level 'constraint exclusive' needs 'on (.prop, ...)'", c.span,
                                    "write e.g. constraint exclusive on (.name, .actor);")
                return
            cols: List[str] = []
            keys: List[str] = []
            key_nodes: List[qir.Expr] = []
            expressions = False
            # A polymorphic single link's element is one of its columns (one per concrete
            # subtype, see _poly_link): the constraint is one per combination of them, as ids
            # are unique across the tables and exactly the set column's one applies to a row (a
            # NULL column never conflicts) -- (.creator, .slug) with creator: Team | User is
            # UNIQUE (creator_team_id, slug) and UNIQUE (creator_user_id, slug).
            poly_cols: Dict[str, List[str]] = {}
            for path in c.on:
                poly = (obj.poly_links.get(path.steps[0]) if isinstance(path, ast.Path) and len(path.steps) == 1
                        else None)
                if poly is not None and not poly.multi:
                    if poly.name in poly_cols:
                        self.reporter.error("E0205", f"'{poly.name}' appears twice in the exclusive constraint",
                                            path.span)
                        return
                    poly_cols[poly.name] = [col for _, col in poly.targets]
                    cols.append(f"\0{poly.name}")  # (replaced by each of its columns below)
                    keys.append(f"\0{poly.name}")
                    continue
                node = check(path, ctx)
                if node is None:
                    return
                key_nodes.append(node)
                column = node.column if type(node) in (qir.ColumnRef, qir.SubjectRef) else None  # type: ignore[attr-defined]
                if column is not None and isinstance(path, ast.Path):
                    if column.name in cols:
                        self.reporter.error("E0205", f"'{column.name}' appears twice in the exclusive constraint",
                                            path.span)
                        return
                    cols.append(column.name)
                    keys.append(qi(column.name))
                    continue
                # An expression (https://docs.geldata.com/reference/datamodel/constraints):
                # ``on (str_lower(.name))``, ``on ((.a, str_lower(.b)))``, ``on (true)``: a
                # unique index on the expressions, which may read only the object's own columns.
                bad = next((n for n in qir.walk(node) if type(n) not in _ROW_LOCAL), None)
                if bad is not None:
                    self.reporter.error("E0206", "an exclusive constraint on an expression that reads other objects, "
                                        "links, globals or parameters is not supported", path.span,
                                        "Postgres indexes an expression of the row's own columns only: use "
                                        "properties, or a trigger in the application")
                    return
                expressions = True
                keys.append(f"({emit(node).sql})")
                for n in qir.walk(node):
                    if type(n) is qir.ColumnRef and n.column.name not in cols:  # type: ignore[attr-defined]
                        cols.append(n.column.name)  # type: ignore[attr-defined]
            if poly_cols and expressions:
                self.reporter.error("E0206", "an exclusive constraint on an expression and a polymorphic link is not "
                                    "supported yet", c.span)
                return
            names = list(poly_cols)
            for choice in itertools.product(*(poly_cols[n] for n in names)):
                picked = dict(zip([f"\0{n}" for n in names], choice))
                self._exclusive(obj, [picked.get(col, col) for col in cols], c, ctx,
                                tuple(keys) if expressions else (), tuple(key_nodes) if expressions else ())
            return
        if c.name == "expression":
            if len(c.on) != 1:
                self.reporter.error("E0205", "constraint expression needs 'on (<bool expression>)'", c.span)
                return
            names = sorted(_paths_in(c.on[0])) or ["expression"]
            self._check(obj, names + ["check"], c.on[0], ctx, c)
            return
        self.reporter.error("E0205", f"constraint '{c.name}' on a type needs to be on a property "
                            f"(only exclusive and expression are type-level)", c.name_span)

    def _partial_predicate(self, c, ctx: ExprContext) -> Tuple[bool, Optional[str], Tuple[str, ...],
                                                               Optional[qir.Expr]]:
        """(ok, predicate SQL, columns read, the checked ``P`` / ``Q``) for ``filter P`` / ``except Q``.

        ``filter P`` constrains rows where P is true; ``except Q`` (Gel) exempts rows where Q is
        true, so it constrains rows where ``(Q) IS NOT TRUE`` -- including rows where Q is NULL."""
        if c.filter is not None and c.except_ is not None:
            self.reporter.error("E0205", "use either 'filter' or 'except', not both", c.span)
            return False, None, (), None
        expr = c.filter if c.filter is not None else c.except_
        if expr is None:
            return True, None, (), None
        node = check(expr, ctx, BOOL)
        if node is None:
            return False, None, (), None
        if node.type.family != "bool":
            self.reporter.error("E0205", f"a constraint filter must be bool, got {node.type.name}", expr.span)
            return False, None, (), None
        # (NULL and false alike leave a row out of a partial index, and are both NOT TRUE:
        # a condition, :func:`cond_sql`.)
        sql = cond_sql(node) if c.filter is not None else f"({cond_sql(node)}) IS NOT TRUE"
        return True, sql, tuple(sorted(_paths_in(expr))), node

    def _exclusive(self, obj: ObjectType, cols: List[str], c, ctx: ExprContext, keys: Tuple[str, ...] = (),
                   key_nodes: Tuple[qir.Expr, ...] = ()) -> None:
        """An exclusive constraint on ``cols``, or on the expressions ``key_nodes`` (``keys``
        their SQL; ``cols`` are then the columns they read, and its name ends in ``expr``:
        ``uq_handle_realm_name_expr``). A duplicate is one with the same checked predicate and
        keys (:func:`qir.same`: the same expressions, wherever written)."""
        ok, predicate, pred_cols, pred_node = self._partial_predicate(c, ctx)
        if not ok:
            return
        excepted = c.filter is None and pred_node is not None
        parts = list(cols) + (["expr"] if keys else [])
        name = object_name("uq", obj.table, parts)
        same_name = [ex for ex in obj.exclusives if ex.name == name]
        if any(ex.predicate_except == excepted and qir.same(ex.predicate, pred_node) and qir.same(ex.keys, key_nodes)
               for ex in same_name):
            self.reporter.error("E0200", f"duplicate exclusive constraint on ({', '.join(keys or cols)})", c.span,
                                "remove the duplicate constraint")
            return
        if same_name:
            # Several partial constraints on the same columns (or constraints on expressions of
            # them): the later ones are told apart by a digest of their predicate and keys (the
            # first keeps the plain name).
            digest = hashlib.sha256("|".join([predicate or "", *keys]).encode()).hexdigest()[:8]
            name = object_name("uq", obj.table, parts + [digest])
        obj.exclusives.append(ExclusiveConstraint(name, tuple(cols), predicate, c.span, pred_cols, keys, pred_node,
                                                  excepted, key_nodes))

    def _check(self, obj: ObjectType, name_parts: List[str], expr: ast.Expr, ctx: ExprContext, c) -> None:
        low = lower(expr, ctx, BOOL)
        if low is None:
            return
        if low.type.family != "bool":
            self.reporter.error("E0205", f"constraint expression must be bool, got {low.type.name}", expr.span)
            return
        self._add_check(obj, object_name("ck", obj.table, name_parts), low.sql, c.span)

    def _add_check(self, obj: ObjectType, name: str, sql: str, span: Span) -> None:
        if (obj.table, name) in self._scalar_checks and any(ck.name == name for ck in obj.checks):
            # The property's own constraint of the same kind as one of its custom scalar's
            # (bounded_str { constraint min_len_value(1) } and name: bounded_str { constraint
            # min_len_value(0) }): both hold, as in Gel; the property's is told apart by a digest
            # of its check (the scalar's keeps the plain name).
            name = short_identifier(f"{name}_{hashlib.sha256(sql.encode()).hexdigest()[:8]}")
        if any(ck.name == name for ck in obj.checks):
            self.reporter.error("E0207", f"two constraints are both named '{name}'", span,
                                "remove the duplicate constraint")
            return
        obj.checks.append(CheckConstraint(name, sql))

    def _index(self, obj: ObjectType, ix: ast.IndexDecl, module: str) -> None:
        ctx = ExprContext(self.schema, obj, module, self.reporter, where="an index")
        if _ai_index(ix) and "ai" in self.schema.extensions:
            return  # nothing to create (warned once, at the declaration: _refuse_unlowered)
        method = "btree"
        ext_kind = None
        if ix.kind is not None and ix.kind.startswith("ext::"):
            # Extension index kinds: https://docs.geldata.com/reference/stdlib/pgvector,
            # https://docs.geldata.com/reference/stdlib/pg_trgm
            if not ext_needs(ix.kind, ix.span, ctx):
                return
            ext_kind = EXT_INDEXES.get(ix.kind)
            if ext_kind is None:
                ext = extension_of(ix.kind)
                self.reporter.error("E0206", f"index kind '{ix.kind}' is not supported", ix.span,
                                    did_you_mean(ix.kind, [k for k in EXT_INDEXES if extension_of(k) == ext]))
                return
            method = ext_kind.method
        if ix.kind in ("fts::index", "std::fts::index"):
            self._fts_index(obj, ix, ctx)
            return
        with_sql = None
        if ix.args and ext_kind is None:
            self.reporter.error("E0206", f"index kind '{ix.kind or 'btree'}' takes no arguments", ix.args[0][2])
            return
        if ext_kind is not None:
            with_sql = self._index_args(ix, ext_kind, ctx)
            if with_sql is False:
                return
        if ix.kind is not None and ext_kind is None:
            method = INDEX_METHODS.get(ix.kind, "")
            if not method:
                self.reporter.error("E0206", f"index kind '{ix.kind}' is not supported", ix.span,
                                    did_you_mean(ix.kind, INDEX_METHODS))
                return
        keys: List[str] = []
        parts: List[str] = []
        simple = True
        if ext_kind is not None and ext_kind.value == "vector" and len(ix.on) != 1:
            self.reporter.error("E0206", f"index kind '{ix.kind}' indexes one vector property", ix.span,
                                "declare one index per vector property")
            return
        for e in ix.on:
            low = lower(e, ctx)
            if low is None:
                return
            if ext_kind is not None:
                family = "vector" if ext_kind.value == "vector" else "str"
                if low.type.family != family or low.type.element is not None:
                    what = "an ext::pgvector::vector" if family == "vector" else "a str"
                    self.reporter.error("E0304", f"index kind '{ix.kind}' indexes {what} value, got {low.type.name}",
                                        e.span)
                    return
                if family == "vector" and low.type.scalar.pg == "vector":  # type: ignore[union-attr]
                    self.reporter.error("E0206", f"index kind '{ix.kind}' needs vectors of a fixed length", e.span,
                                        "declare the property as ext::pgvector::vector<N>")
                    return
            if low.column is not None and isinstance(e, ast.Path):
                keys.append(qi(low.column.name))
                parts.append(low.column.name)
            else:
                keys.append(f"({low.sql})")
                parts.extend(sorted(_paths_in(e)))
                simple = False
            if ext_kind is not None:
                keys[-1] += f" {ext_kind.opclass}"
        ok, predicate, _, _ = self._partial_predicate(ix, ctx)
        if not ok:
            return
        if not simple or predicate is not None or method != "btree":
            digest = hashlib.sha256("|".join([method, *keys, predicate or ""] + ([with_sql] if with_sql else []))
                                    .encode()).hexdigest()[:8]
            parts = parts + [digest]
        name = object_name("ix", obj.table, parts)
        existing = next((i for i in obj.indexes if i.name == name), None)
        if existing is not None:
            if existing.span is None:
                return  # the index a single link gets anyway (`index on (.author)` adds nothing)
            self.reporter.error("E0200", f"duplicate index on ({', '.join(keys)})", ix.span)
            return
        obj.indexes.append(Index(name, tuple(keys), method, predicate, ix.span, _comment(ix.annotations),
                                 with_sql or None))

    def _fts_index(self, obj: ObjectType, ix: ast.IndexDecl, ctx: ExprContext) -> None:
        """``index fts::index on (fts::with_options(.body, language := fts::Language.eng))``
        (several: a tuple, each with an optional ``weight_category``): a GIN index over the
        document's tsvector, kept as the type's searchable document (:mod:`schemac.semantics.fts`)."""
        if ix.args:
            self.reporter.error("E0206", "index kind 'fts::index' takes no arguments", ix.args[0][2])
            return
        if obj.fts_document is not None:
            self.reporter.error("E0200", f"type '{obj.name}' has two fts::index declarations", ix.span,
                                "declare one, over all the properties to search (a tuple of fts::with_options)")
            return
        parts: List[str] = []
        written: List[fts.Part] = []
        columns: List[str] = []
        for e in ix.on:
            opts = fts.with_options(e)
            if opts is None:
                self.reporter.error("E0304", "an fts::index indexes fts::with_options(<property>, language := "
                                    "fts::Language.<lang>) values", getattr(e, "span", ix.span),
                                    "write e.g. index fts::index on (fts::with_options(.body, language := "
                                    "fts::Language.eng))")
                return
            value, named = opts
            language, weight = None, None
            for arg in named:
                if not isinstance(arg, ast.NamedArg) or arg.name not in ("language", "weight_category"):
                    what = f"'{arg.name}'" if isinstance(arg, ast.NamedArg) else "a positional argument"
                    self.reporter.error("E0304", f"fts::with_options() takes no {what}", arg.span,
                                        "its arguments: language := fts::Language.<lang>, "
                                        "weight_category := fts::Weight.<A-D>")
                    return
                if arg.name == "language":
                    language = fts.enum_member(arg.value, "fts::Language")
                    if language not in fts.LANGUAGES:
                        self.reporter.error("E0304", "language must be an fts::Language member Postgres has a "
                                            "configuration for", arg.value.span,  # type: ignore[union-attr]
                                            did_you_mean(language or "", list(fts.LANGUAGES))
                                            or f"one of: {', '.join(fts.LANGUAGES)}")
                        return
                else:
                    weight = fts.enum_member(arg.value, "fts::Weight")
                    if weight not in fts.WEIGHTS:
                        self.reporter.error("E0304", "weight_category must be fts::Weight.A, B, C or D",
                                            arg.value.span)  # type: ignore[union-attr]
                        return
            if language is None:
                self.reporter.error("E0304", "fts::with_options() needs language := fts::Language.<lang>",
                                    e.span)  # type: ignore[union-attr]
                return
            low = lower(value, ctx)  # type: ignore[arg-type]
            if low is None:
                return
            if low.type.family != "str" or low.type.element is not None:
                self.reporter.error("E0304", f"an fts::index indexes str values, got {low.type.name}",
                                    value.span)  # type: ignore[union-attr]
                return
            parts.append(document_part(low.sql, language, weight))
            written.append((value, ctx.module, language, weight))
            columns.extend(sorted(_paths_in(value)))  # type: ignore[arg-type]
        document = " || ".join(parts)
        obj.fts_document = document
        obj.fts_parts = tuple(written)
        keys = (f"({document})",)
        digest = hashlib.sha256("|".join(["gin", *keys]).encode()).hexdigest()[:8]
        name = object_name("ix", obj.table, columns + ["fts", digest])
        obj.indexes.append(Index(name, keys, "gin", None, ix.span, _comment(ix.annotations)))

    def _index_args(self, ix: ast.IndexDecl, kind, ctx: ExprContext):
        """The storage parameters (``lists = 100, m = 16``) of an extension index, from its
        named arguments (integer literals, each known to its kind, required ones present); an
        empty string when it has none; ``False`` after reporting."""
        allowed = dict(kind.args)
        given: Dict[str, str] = {}
        for name, value, span in ix.args:
            if name not in allowed:
                self.reporter.error("E0304", f"index kind '{ix.kind}' has no argument '{name}'", span,
                                    did_you_mean(name, list(allowed)) or
                                    (f"its arguments: {', '.join(allowed)}" if allowed else "it takes no arguments"))
                return False
            if name in given:
                self.reporter.error("E0309", f"argument '{name}' is given twice", span)
                return False
            if not (isinstance(value, ast.Literal) and value.kind == "int" and int(value.value) > 0):  # type: ignore[arg-type]
                self.reporter.error("E0304", f"argument '{name}' must be a positive integer literal", span)
                return False
            given[name] = str(value.value)
        missing = [n for n, required in kind.args if required and n not in given]
        if missing:
            self.reporter.error("E0304", f"index kind '{ix.kind}' needs the argument '{missing[0]}'", ix.span,
                                f"write e.g. index {ix.kind}({missing[0]} := 100) on (...)")
            return False
        return ", ".join(f"{n} = {given[n]}" for n, _ in kind.args if n in given)

    # ---------------------------------------------------------------- names
    def _check_name_collisions(self) -> None:
        """Tables and relation-level names (indexes, unique constraints) share one namespace
        per Postgres schema; enums share one namespace in generated code."""
        code_names: Dict[str, EnumType] = {}
        for e in self.schema.all_enums():
            other = code_names.get(e.code_name)
            if other is not None:
                self.reporter.error("E0207", f"enums '{e.qualname}' and '{other.qualname}' would both be named "
                                    f"'{e.code_name}' in generated code", e.span, "rename one of them")
            else:
                code_names[e.code_name] = e
        seen: Dict[str, str] = {}
        for obj in self.schema.every_table():
            if obj.table in seen:
                self.reporter.error("E0207", f"'{obj.name}' and '{seen[obj.table]}' both map to table '{obj.table}'",
                                    obj.span, "rename one of them")
            else:
                seen[obj.table] = obj.name
        for obj in self.schema.all_tables():
            for name, span in [(ex.name, ex.span) for ex in obj.exclusives] + [(i.name, i.span) for i in obj.indexes]:
                if name in seen:
                    self.reporter.error("E0207", f"the name '{name}' is used twice after snake_casing", span,
                                        "rename one of the types or properties")
                else:
                    seen[name] = obj.name


def _selects_computed(obj: ObjectType, expr) -> bool:
    """``(select .archive filter ...)`` where ``archive`` is a computed of ``obj``."""
    found = link_select(expr)
    return found is not None and isinstance(found[0], ast.Path) and found[0].steps[0] in obj.computeds


def _comment(annotations) -> Optional[str]:
    """``COMMENT ON`` text of annotations: one annotation's text, or ``name: text`` lines."""
    annotations = list(annotations)
    if not annotations:
        return None
    if len(annotations) == 1:
        return annotations[0][1]
    return "\n".join(f"{name.split('::')[-1]}: {text}" for name, text in annotations)


#: The IR nodes an expression of an exclusive constraint may hold: it becomes a unique index
#: on the row's own columns, so nothing that reads another row, a link, a global or a
#: parameter (each of those would be a subquery or a per-query value).
_ROW_LOCAL = frozenset({qir.Literal, qir.EnumMember, qir.ColumnRef, qir.ComputedRef, qir.Call,
                        qir.Unary, qir.Binary, qir.InSet, qir.InArray, qir.Cast, qir.JsonCast,
                        qir.JsonIndex})


def _inserts(expr) -> bool:
    """``(insert T { ... })``: a statement inserting an object."""
    return isinstance(expr, ast.StatementExpr) and isinstance(expr.query, ast.InsertQuery)


def _map_expr_decl(ix: ast.IndexDecl, f) -> ast.IndexDecl:
    """An index declaration whose expressions (``on``, ``except``, ``filter``, arguments) are
    mapped by :func:`schemac.syntax.tree.map_expr`."""
    return dataclasses.replace(
        ix, on=tuple(ast.map_expr(e, f) for e in ix.on),
        except_=None if ix.except_ is None else ast.map_expr(ix.except_, f),
        filter=None if ix.filter is None else ast.map_expr(ix.filter, f))


def _paths_in(expr: ast.Expr) -> Set[str]:
    """Names of the properties an expression reads."""
    return {n.steps[0] for n in ast.iter_nodes(expr)
            if isinstance(n, ast.Path) and n.steps != ("__subject__",)}


def extern_file(f: ast.SchemaFile, library: str, modules: Dict[str, Tuple[str, str]]) -> ast.SchemaFile:
    """A schema file of dependency library ``library``, its modules moved under the library's
    name: ``default`` becomes ``<library>`` and ``m`` becomes ``<library>::m`` (so this library
    links to ``accounts::User``), recorded in ``modules`` as new module -> (library, original
    module). Its migration hints belong to its own library and are dropped."""
    def move(module: str) -> str:
        new = library if module == "default" else f"{library}::{module}"
        modules[new] = (library, module)
        return new

    return dataclasses.replace(
        f,
        enums=tuple(dataclasses.replace(e, module=move(e.module)) for e in f.enums),
        scalars=tuple(dataclasses.replace(s, module=move(s.module)) for s in f.scalars),
        types=tuple(dataclasses.replace(t, module=move(t.module)) for t in f.types),
        modules=tuple((move(name), span) for name, span in f.modules) + ((move("default"), Span.point(f.path, 1, 1)),),
        globals=tuple(dataclasses.replace(g, module=move(g.module)) for g in f.globals),
        hints=(),
    )


def _across_tables_trigger(table: ObjectType, ex: ExclusiveConstraint,
                           others: List[Tuple[ObjectType, ExclusiveConstraint]], group: str) -> Trigger:
    """The trigger that holds ``ex`` of ``table`` across the ``others`` tables of its type's
    hierarchy (see ``_Resolver._shared_exclusives``): before a row gets values for the
    constraint's columns (none empty: an empty value is never a duplicate, as in a ``UNIQUE``),
    it takes a transaction-scoped advisory lock on the values (the same key in every table of
    the group), then refuses them when another table holds them, raising ``unique_violation``
    (23505) with the constraint's name (the runners' typed ExclusiveViolation of ``ex``).

    Concurrency: two transactions writing the same values to two tables take the same lock, so
    the second waits until the first ends, and its check (a new snapshot per statement under READ
    COMMITTED, Postgres' default) sees the first's row; under SERIALIZABLE the read conflicts and
    one fails with a serialization error. (Under REPEATABLE READ the second's snapshot predates
    the first's commit: that level can let a duplicate through, as for any check by trigger.)"""
    cols = list(ex.columns)
    present = " AND ".join(f"NEW.{qi(c)} IS NOT NULL" for c in cols)
    values = ", ".join(f"NEW.{qi(c)}" for c in cols)
    taken = "\n     OR ".join(
        f"EXISTS (SELECT 1 FROM {qi(o.table)} WHERE "
        + " AND ".join(f"{qi(oc)} = NEW.{qi(c)}" for oc, c in zip(oex.columns, cols)) + ")"
        for o, oex in others)
    detail = ", ".join(cols)
    body = (f"IF {present} THEN\n"
            f"  PERFORM pg_advisory_xact_lock(hashtext({sql_string(group)}), hashtext(ROW({values})::text));\n"
            f"  IF {taken} THEN\n"
            f"    RAISE EXCEPTION 'duplicate key value violates unique constraint \"{ex.name}\"'\n"
            f"      USING ERRCODE = 'unique_violation', CONSTRAINT = {sql_string(ex.name)}, "
            f"TABLE = {sql_string(table.table)},\n"
            f"      DETAIL = format('Key ({detail})=(%s) already exists in another table of the type.', "
            f"ROW({values})::text);\n"
            f"  END IF;\n"
            f"END IF;\n"
            f"RETURN NEW;")
    name = short_identifier(f"{ex.name}_all")
    events = ("INSERT", "UPDATE OF " + ", ".join(qi(c) for c in cols))
    return Trigger(name, name, "BEFORE", events, "ROW", body)


#: Postgres' limit on the columns of a table (https://www.postgresql.org/docs/15/limits.html).
PG_MAX_COLUMNS = 1600


def build_schema(files: Sequence[ast.SchemaFile], reporter: Reporter,
                 external: Sequence[Tuple[str, ast.SchemaFile]] = ()) -> Schema:
    """Resolve and check all schema files of a library into one :class:`Schema`.

    ``external``: ``(library, file)`` schema files of the libraries this one depends on; their
    types and enums resolve as ``<library>::Name`` and their tables are marked
    ``ObjectType.library`` (not created by this library). Problems are reported to
    ``reporter``; the returned schema holds everything that resolved (callers should
    ``reporter.check()`` before using it for output)."""
    return _Resolver(files, reporter, external).build()
