"""Schema semantic analysis: parsed files -> checked :class:`~schemac.model.Schema`.

Checks (each reported with its location, all in one run): duplicate enums/types/properties/
enum members, unknown types (with "did you mean"), an explicit ``id`` property (``id`` is
implicit), defaults whose type does not match the property, ``exclusive on`` naming missing
properties, filters that are not boolean, and object names that collide after snake_casing.

Lowering rules (see README "Language tour"):

* table = snake_case type name (types outside module ``default`` are prefixed with the
  snake_cased module name: ``billing::Invoice`` -> ``billing_invoice``);
* implicit ``id uuid PRIMARY KEY DEFAULT gen_random_uuid()``;
* enums -> ``text`` + ``CHECK (col IN (...))`` named ``ck_<table>_<col>_enum``;
* exclusive constraints -> ``UNIQUE`` (full) or a partial unique index (with ``filter``), named
  ``uq_<table>_<col>[_<col>...]``.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Set, Tuple

from schemac import syntax as ast
from schemac.diagnostics import Reporter, Span
from schemac.exprs import BOOL, ExprContext, lower, resolve_type_ref
from schemac.model import CheckConstraint, Column, EnumType, ExclusiveConstraint, ObjectType, Schema, ValueType
from schemac.sqlnames import object_name, quote_ident, snake_case, sql_string
from schemac.scalars import SCALARS

ID_COLUMN_DEFAULT = "gen_random_uuid()"


def table_name(module: str, type_name: str) -> str:
    """The table of ``module::type_name`` (see module docstring)."""
    base = snake_case(type_name)
    return base if module == "default" else f"{snake_case(module)}_{base}"


def build_schema(files: Sequence[ast.SchemaFile], reporter: Reporter) -> Schema:
    """Resolve and check all schema files of a library into one :class:`Schema`.

    Problems are reported to ``reporter``; the returned schema holds everything that resolved
    (callers should ``reporter.check()`` before using it for output)."""
    schema = Schema()
    modules: Set[str] = {"default"}
    for f in files:
        modules.update(name for name, _ in f.modules)
    schema.modules = tuple(sorted(modules))

    # Pass 1: names of enums and types (so declaration order does not matter).
    seen: Dict[str, Span] = {}
    for f in files:
        for e in f.enums:
            _declare(reporter, seen, f"{e.module}::{e.name}", e.span, "enum")
            members: List[str] = []
            member_seen: Dict[str, Span] = {}
            for m, mspan in e.members:
                if m in member_seen:
                    reporter.error("E0200", f"enum '{e.name}' lists '{m}' twice", mspan)
                    continue
                if m == "":
                    reporter.error("E0102", "enum members cannot be empty", mspan)
                    continue
                member_seen[m] = mspan
                members.append(m)
            schema.enums[f"{e.module}::{e.name}"] = EnumType(e.name, e.module, tuple(members), e.span)
        for t in f.types:
            _declare(reporter, seen, f"{t.module}::{t.name}", t.name_span, "type")

    # Pass 2: properties (types resolve now that all names are known).
    decls: List[Tuple[ast.TypeDecl, ObjectType]] = []
    for f in files:
        for t in f.types:
            obj = _object_type(schema, t, reporter)
            key = f"{t.module}::{t.name}"
            if key not in schema.types:
                schema.types[key] = obj
                decls.append((t, obj))

    # Pass 3: defaults and constraints (need all columns of the subject).
    for t, obj in decls:
        _constraints(schema, t, obj, reporter)

    _check_name_collisions(schema, reporter)
    return schema


def _declare(reporter: Reporter, seen: Dict[str, Span], key: str, span: Span, what: str) -> None:
    if key in seen:
        first = seen[key]
        reporter.error("E0200", f"{what} '{key.split('::')[-1]}' is already defined at {first.file}:{first.line}:{first.col}",
                       span)
    else:
        seen[key] = span


def _object_type(schema: Schema, t: ast.TypeDecl, reporter: Reporter) -> ObjectType:
    ctx = ExprContext(schema, None, t.module, reporter, where="a schema")
    table = table_name(t.module, t.name)
    columns: List[Column] = [Column("id", ValueType(scalar=SCALARS["uuid"]), True, ID_COLUMN_DEFAULT, t.name_span, is_id=True)]
    checks: List[CheckConstraint] = []
    names: Dict[str, Span] = {}
    for u in t.unsupported:
        reporter.error("E0206", f"{u.feature} is not supported yet", u.span,
                       "supported now: constraint exclusive (on a property, or on (.a, .b) with an optional filter)")
    for p in t.properties:
        if p.name == "id":
            reporter.error("E0200", "'id' is implicit on every type and cannot be declared", p.name_span,
                           "remove this property; every object gets 'id: uuid' with a generated default")
            continue
        if p.name in names:
            reporter.error("E0200", f"property '{p.name}' is already defined on '{t.name}'", p.name_span)
            continue
        names[p.name] = p.name_span
        vtype = resolve_type_ref(p.type, ctx)
        if vtype is None:
            continue
        columns.append(Column(p.name, vtype, p.required, None, p.span))
        if vtype.enum is not None:
            members = ", ".join(sql_string(m) for m in vtype.enum.members)
            checks.append(CheckConstraint(object_name("ck", table, [p.name, "enum"]),
                                          f"{quote_ident(p.name)} IN ({members})"))
    return ObjectType(t.name, t.module, table, columns, [], checks, t.span)


def _constraints(schema: Schema, t: ast.TypeDecl, obj: ObjectType, reporter: Reporter) -> None:
    ctx = ExprContext(schema, obj, t.module, reporter, where="a schema")
    # Defaults.
    for i, col in enumerate(obj.columns):
        decl = next((p for p in t.properties if p.name == col.name), None)
        if decl is None or decl.default is None:
            continue
        low = lower(decl.default, ctx, col.type)
        if low is None:
            continue
        if low.column is not None:
            reporter.error("E0204", "a default cannot refer to other properties", decl.default.span)
            continue
        if low.type.family != col.type.family:
            reporter.error("E0204", f"default of '{col.name}' is {low.type.name}, but the property is {col.type.name}",
                           decl.default.span)
            continue
        obj.columns[i] = Column(col.name, col.type, col.required, low.sql, col.span)
    # Exclusive constraints: property-level first (declaration order), then type-level.
    exclusives: List[ast.ExclusiveDecl] = [p.exclusive for p in t.properties if p.exclusive is not None]
    exclusives.extend(t.constraints)
    for ex in exclusives:
        cols: List[str] = []
        ok = True
        for path in ex.on:
            low = lower(path, ctx)
            if low is None or low.column is None:
                ok = False
                continue
            if low.column.name in cols:
                reporter.error("E0205", f"'{low.column.name}' appears twice in the exclusive constraint", path.span)
                ok = False
            cols.append(low.column.name)
        predicate = None
        if ex.filter is not None:
            low = lower(ex.filter, ctx, BOOL)
            if low is None:
                ok = False
            elif low.type.family != "bool":
                reporter.error("E0205", f"a constraint filter must be bool, got {low.type.name}", ex.filter.span)
                ok = False
            else:
                predicate = low.sql
        if ok:
            pred_cols = tuple(sorted(_paths_in(ex.filter))) if ex.filter is not None else ()
            obj.exclusives.append(ExclusiveConstraint(object_name("uq", obj.table, cols), tuple(cols), predicate,
                                                      ex.span, pred_cols))


def _paths_in(expr: ast.Expr) -> Set[str]:
    """Names of the properties an expression reads."""
    if isinstance(expr, ast.Path):
        return {expr.steps[0]}
    if isinstance(expr, ast.BinOp):
        return _paths_in(expr.left) | _paths_in(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _paths_in(expr.operand)
    if isinstance(expr, ast.FuncCall):
        return set().union(*(_paths_in(a) for a in expr.args)) if expr.args else set()
    return set()


def _check_name_collisions(schema: Schema, reporter: Reporter) -> None:
    """Tables, and constraint/index names (which share one namespace per Postgres schema)."""
    tables: Dict[str, ObjectType] = {}
    for obj in schema.all_types():
        other = tables.get(obj.table)
        if other is not None:
            reporter.error("E0207", f"'{obj.qualname}' and '{other.qualname}' both map to table '{obj.table}'",
                           obj.span, "rename one of the types")
        else:
            tables[obj.table] = obj
    names: Dict[str, Span] = {}
    for obj in schema.all_types():
        for ex in obj.exclusives:
            if ex.name in names:
                reporter.error("E0207", f"two exclusive constraints are both named '{ex.name}'", ex.span,
                               "remove the duplicate constraint")
            names[ex.name] = ex.span
