"""User-defined functions and aliases, inlined where they are used.

**Functions** (https://docs.geldata.com/reference/datamodel/functions): ``function
slugify(s: str, sep: str = '-') -> str using (str_lower(...))`` is an EdgeQL expression with
parameters. schemac inlines it at each call: the arguments are checked against the parameter
types (missing ones take their defaults, ``named only`` ones are given as ``name := value``)
and the body is lowered with each parameter standing for its argument, so the call is plain SQL
in the statement (or the default, the constraint, the computed) that makes it; no SQL function
is created and migrations have nothing to do. A function nobody calls is not compiled; a
function whose body schemac cannot lower (a sub-query, ``with``, a statement, a set-returning or
object-returning signature) is accepted as a declaration and refused, with the reason, at each
call (``E0206``), never silently. A function returning objects whose body is a select of a type
or a write may be called by a query itself, ``select f(...) { shape }``: the query is then its
body (:func:`inline_query_call`). Gel itself accepts ``using sql`` only in its standard library
(user schemas may not use it), so it is refused at the declaration.

**Aliases** (https://docs.geldata.com/reference/datamodel/aliases): ``alias Name := expr`` is a
named expression; a scalar alias is inlined where ``Name`` is read, as a function without
parameters. An alias whose expression is a set of objects (``alias Admins := (select User
filter .admin)``) defines a view type queries would select from: it is accepted, and refused
where it is used.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.semantics.model import Schema, ValueType


def _service_why(mod: str) -> str:
    from schemac.semantics.exprs import GEL_STD_SERVICE_MODULES

    return GEL_STD_SERVICE_MODULES[mod]


def _service_module(name: str) -> Optional[str]:
    """The Gel server service module (``net::http``) a qualified type name belongs to, if any."""
    from schemac.semantics.exprs import GEL_STD_SERVICE_MODULES

    mod = name.rpartition("::")[0]
    mod = mod[5:] if mod.startswith("std::") else mod
    return mod if mod in GEL_STD_SERVICE_MODULES else None


@dataclass(frozen=True)
class Param:
    name: str
    type: Optional[ValueType]
    default: Optional[object]  # syntax
    named_only: bool
    span: Span
    #: An object parameter (``artist: Artist``): its type's name, as written (``type`` is ``None``).
    object_type: Optional[str] = None
    #: ``optional T``: the function is called when the argument is empty too.
    optional: bool = False


@dataclass(frozen=True)
class UserFunction:
    """A user function (or an alias: no parameters, ``alias`` set). ``reason``: why it cannot
    be inlined (``None`` when it can)."""

    name: str
    module: str
    params: Tuple[Param, ...]
    returns: Optional[ValueType]
    body: Optional[object] = field(compare=False, repr=False)
    span: Span
    reason: Optional[str] = None
    alias: bool = False
    #: A function returning objects (``-> Album``, ``-> set of Music``): their type's name as
    #: written, and the declared cardinality (``set of``, ``optional`` or ``None``). Such a call
    #: is inlined as the query itself (:func:`inline_query_call`), not as a value.
    returns_object: Optional[str] = None
    returns_qualifier: Optional[str] = None

    @property
    def qualname(self) -> str:
        return f"{self.module}::{self.name}"


def declare(schema: Schema, files, reporter: Reporter, type_ctx, is_object_type) -> None:
    """Record every function and alias of ``files`` in ``schema.functions`` (checking their
    signatures; ``type_ctx(module)`` is the resolver's context for type references,
    ``is_object_type(name, module)`` tells object types)."""
    from schemac.semantics.exprs import resolve_type_ref

    for f in files:
        for d in getattr(f, "definitions", ()):
            if isinstance(d, ast.FunctionDecl):
                key = f"{d.module}::{d.name}"
                if key in schema.functions:
                    first = schema.functions[key].span
                    reporter.error("E0200", f"function '{d.name}' is already defined at {first.file}:{first.line}:"
                                   f"{first.col}", d.name_span, "overloaded functions are not supported")
                    continue
                if d.language is not None:
                    reporter.error("E0206", f"'using {d.language}' functions are not supported", d.span,
                                   "Gel accepts them only in its standard library; write the body in EdgeQL: "
                                   "using (...)")
                    continue
                reason = None
                params: List[Param] = []
                for p in d.params:
                    ptype = None
                    if p.kind == "variadic":
                        reason = reason or f"its parameter '{p.name}' is variadic"
                    elif p.qualifier == "set of":
                        reason = reason or f"its parameter '{p.name}' is a set ('set of')"
                    elif is_object_type(p.type.name, d.module):
                        reason = reason or f"its parameter '{p.name}' is an object ({p.type})"
                        params.append(Param(p.name, None, p.default, p.kind == "named only", p.span,
                                            p.type.name, p.qualifier == "optional"))
                        continue
                    else:
                        ptype = resolve_type_ref(p.type, type_ctx(d.module))
                        if ptype is None:
                            continue  # reported
                    params.append(Param(p.name, ptype, p.default, p.kind == "named only", p.span,
                                        None, p.qualifier == "optional"))
                returns = None
                returns_object = d.returns.name if is_object_type(d.returns.name, d.module) else None
                if d.returns_qualifier == "set of":
                    reason = reason or "it returns a set ('set of')"
                elif is_object_type(d.returns.name, d.module):
                    reason = reason or f"it returns objects ({d.returns})"
                elif _service_module(d.returns.name) is not None:
                    # (`-> net::http::ScheduledRequest`: accepted, refused where it is called)
                    mod = _service_module(d.returns.name)
                    reason = reason or f"it returns '{d.returns.name}', of Gel's '{mod}' module, {_service_why(mod)}"
                else:
                    returns = resolve_type_ref(d.returns, type_ctx(d.module))
                    if returns is None:
                        continue
                schema.functions[key] = UserFunction(d.name, d.module, tuple(params), returns, d.body, d.span, reason,
                                                     returns_object=returns_object,
                                                     returns_qualifier=d.returns_qualifier)
            elif isinstance(d, ast.AliasDecl):
                key = f"{d.module}::{d.name}"
                if key in schema.functions:
                    reporter.error("E0200", f"'{d.name}' is already defined", d.name_span)
                    continue
                schema.functions[key] = UserFunction(d.name, d.module, (), None, d.expr, d.span, None, alias=True)


def call(expr, fn: UserFunction, ctx, expected: Optional[ValueType] = None):
    """Check a call of ``fn`` (a :class:`syntax.FuncCall`, or for an alias the name read): its
    body, each parameter bound to its argument (a ``with`` value written where it is read)."""
    from schemac.semantics import qir
    from schemac.semantics.exprs import check

    what = f"alias '{fn.name}'" if fn.alias else f"function '{fn.name}()'"
    if fn.reason is not None:
        ctx.reporter.error("E0206", f"{what} cannot be inlined: {fn.reason}", expr.span,
                           f"it is declared at {fn.span.file}:{fn.span.line}:{fn.span.col}")
        return None
    active = ctx.__dict__.get("_inlining", ())
    if fn.qualname in active:
        ctx.reporter.error("E0210", f"{what} calls itself: recursive functions cannot be inlined", expr.span)
        return None
    bound: Dict[str, object] = {}
    if not fn.alias:
        positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
        named = {a.name: a for a in expr.args if isinstance(a, ast.NamedArg)}
        pos_params = [p for p in fn.params if not p.named_only]
        if len(positional) > len(pos_params):
            ctx.reporter.error("E0304", f"{what} takes {len(pos_params)} positional argument"
                               f"{'s' if len(pos_params) != 1 else ''}, got {len(positional)}", expr.span)
            return None
        for n, a in named.items():
            if not any(p.name == n and p.named_only for p in fn.params):
                ctx.reporter.error("E0304", f"{what} has no named-only parameter '{n}'", a.span,
                                   did_you_mean(n, [p.name for p in fn.params if p.named_only]))
                return None
        for i, p in enumerate(fn.params):
            arg = positional[i] if not p.named_only and i < len(positional) else None
            if p.named_only and p.name in named:
                arg = named[p.name].value
            inner = ctx
            if arg is None:
                if p.default is None:
                    ctx.reporter.error("E0304", f"{what} needs the argument '{p.name}'", expr.span)
                    return None
                arg = p.default  # (written in the function's module, with no subject)
                inner = dataclasses.replace(ctx, subject=None, module=fn.module, subject_column=None, variables={},
                                            column_prefix=None, bound_statements={})
            node = check(arg, inner, p.type)
            if node is None:
                return None
            if p.type is not None and node.type.family != p.type.family:
                ctx.reporter.error("E0304", f"argument '{p.name}' of {what} is {p.type.name}, got {node.type.name}",
                                   arg.span)
                return None
            bound[p.name] = qir.WithValue(p.name, node, True)
    body_ctx = dataclasses.replace(ctx, subject=None, module=fn.module, subject_column=None, variables=bound,
                                   column_prefix=None, bound_statements={})
    body_ctx.__dict__["_inlining"] = active + (fn.qualname,)
    node = check(fn.body, body_ctx, fn.returns or expected)  # type: ignore[arg-type]
    if node is None:
        return None
    if fn.returns is not None and node.type.family != fn.returns.family:
        ctx.reporter.error("E0204", f"{what} returns {fn.returns.name}, but its body is {node.type.name}",
                           fn.body.span)  # type: ignore[union-attr]
        return None
    return node


#: What a call of a function returning objects may be followed by at the top of a query.
_TAILS = "select f(...), select f(...) { shape } or select f(...).property"


def _statement_of(body):
    """The function body as a query (``select (insert ...)`` is the insert itself; ``select
    Music filter ...`` a select of the type), or ``None``."""
    while isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None and not body.order \
            and body.offset is None and body.limit is None and isinstance(body.subject, ast.StatementExpr):
        body = body.subject
    if isinstance(body, ast.StatementExpr):
        return body.query
    if isinstance(body, ast.SubSelect):
        return ast.SelectQuery(body.type_name, body.type_span, None, body.filter, (), None, None, body.span)
    if isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and not body.subject.detached:
        return ast.SelectQuery(body.subject.name, body.subject.span, body.shape, body.filter, body.order,
                               body.offset, body.limit, body.span)
    return None


def _singleton_arg(arg) -> Tuple[bool, bool]:
    """``(simple, optional)``: whether an argument is a parameter or a literal (one value, or
    none for ``<optional T>$p``), which the call is inlined with."""
    if isinstance(arg, ast.Literal):
        return True, False
    if isinstance(arg, ast.Cast) and isinstance(arg.operand, (ast.Param, ast.Literal)):
        return True, arg.type.optional
    return False, False


def inline_query_call(q, schema: Schema, reporter: Reporter):
    """A query that calls a function returning objects, ``select upsert_artist(name :=
    <str>$name).id`` or ``select gen_playlist(...) { name }``: the function's body in its place,
    its parameters bound by ``with`` to the arguments (a function is its body with the
    parameters standing for the arguments, https://docs.geldata.com/reference/datamodel/functions).

    Gel calls a function once per combination of its arguments' elements; the arguments here
    are each one value (a parameter or a literal; ``<optional T>$p`` only for an ``optional``
    parameter, as Gel's modifying functions require), so the call is the body run once. An
    object parameter's argument ``<Artist>$artist`` is Gel's ``<Artist><uuid>$artist``
    (https://docs.geldata.com/reference/reference/edgeql/casts): the object with that id, bound
    as ``assert_exists((select Artist filter .id = <uuid>$artist))``, so the statement fails
    when there is none (Gel raises a CardinalityViolationError).

    Returns ``(query, function, step)``: ``q`` itself (and ``None``s) when it is no such call,
    else the rewritten query, the function and the ``.property`` step read after the call (the
    query then selects it as the shape ``{ value := .property }``); or ``None`` after reporting
    why the call cannot be inlined (``E0206``, ``E0304``)."""
    if not isinstance(q, ast.SelectValue) or q.filter is not None or q.order or q.offset is not None \
            or q.limit is not None:
        return q, None, None
    value, shape, step = q.value, None, None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    elif isinstance(value, ast.Step) and value.kind == ".":
        value, step = value.base, value
    if not isinstance(value, ast.FuncCall):
        return q, None, None
    fn = schema.find(value.name, "default", schema.functions)
    if not isinstance(fn, UserFunction) or fn.alias or fn.returns_object is None:
        return q, None, None
    what = f"function '{fn.name}()'"
    where = f"it is declared at {fn.span.file}:{fn.span.line}:{fn.span.col}"
    statement = _statement_of(fn.body)
    if statement is None or not isinstance(statement, (ast.SelectQuery, ast.InsertQuery, ast.UpdateQuery,
                                                       ast.DeleteQuery)):
        reporter.error("E0206", f"{what} cannot be inlined: its body is not a select of a type, an insert, an "
                       "update or a delete", value.span, where)
        return None
    # the arguments
    positional = [a for a in value.args if not isinstance(a, ast.NamedArg)]
    named = {a.name: a for a in value.args if isinstance(a, ast.NamedArg)}
    pos_params = [p for p in fn.params if not p.named_only]
    if len(positional) > len(pos_params):
        reporter.error("E0304", f"{what} takes {len(pos_params)} positional argument"
                       f"{'s' if len(pos_params) != 1 else ''}, got {len(positional)}", value.span)
        return None
    for n, a in named.items():
        if not any(p.name == n and p.named_only for p in fn.params):
            reporter.error("E0304", f"{what} has no named-only parameter '{n}'", a.span,
                           did_you_mean(n, [p.name for p in fn.params if p.named_only]))
            return None
    bindings = []
    for i, p in enumerate(fn.params):
        arg = positional[i] if not p.named_only and i < len(positional) else None
        if p.named_only and p.name in named:
            arg = named[p.name].value
        if arg is None:
            if p.default is None:
                reporter.error("E0304", f"{what} needs the argument '{p.name}'", value.span)
                return None
            arg = p.default
        simple, optional = _singleton_arg(arg)
        if not simple:
            reporter.error("E0206", f"argument '{p.name}' of {what}: an argument of a function returning objects "
                           "must be a parameter or a literal here", arg.span,
                           f"write {p.name} := <type>$p (the function is inlined into the query)")
            return None
        if optional and not p.optional:
            reporter.error("E0304", f"argument '{p.name}' of {what} may be empty, but the parameter is not "
                           "optional", arg.span, f"declare it '{p.name}: optional ...', or pass a required "
                           "parameter")
            return None
        if p.type is not None:
            from schemac.semantics.exprs import ExprContext, ParamTable, check

            scratch = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query")
            node = check(arg, scratch, p.type)
            if node is None:
                return None
            if node.type.family != p.type.family:
                reporter.error("E0304", f"argument '{p.name}' of {what} is {p.type.name}, got {node.type.name}",
                               arg.span)
                return None
        if p.object_type is not None:
            if not (isinstance(arg, ast.Cast) and isinstance(arg.operand, ast.Param)
                    and schema.find_type(arg.type.name, "default") is not None):
                reporter.error("E0304", f"argument '{p.name}' of {what} is an object: pass <{p.object_type}>$"
                               f"{p.name} (its id)", arg.span)
                return None
            target = schema.find_type(arg.type.name, "default")
            if target is not schema.find_type(p.object_type, fn.module):
                reporter.error("E0304", f"argument '{p.name}' of {what} is a {p.object_type}, got {arg.type.name}",
                               arg.span)
                return None
            if optional:
                reporter.error("E0206", f"an optional object argument ('{p.name} := <optional "
                               f"{p.object_type}>$...') of {what} is not supported yet", arg.span, where)
                return None
            # <Artist>$artist: the object of that id, which must exist
            uuid = ast.Cast(ast.TypeRef("uuid", (), arg.type.span), arg.operand, arg.span)
            sub = ast.SubSelect(arg.type.name, arg.type.span,
                                ast.BinOp("=", ast.Path(("id",), arg.span), uuid, arg.span), arg.span)
            arg = ast.FuncCall("assert_exists", (sub,), arg.span)
        bindings.append(ast.WithBinding(p.name, p.span, arg, arg.span))
    # the tail
    if step is not None:
        target = schema.find_type(fn.returns_object, fn.module)
        if target is None or step.name in target.links or step.name in target.poly_links \
                or step.name not in ({c.name for c in target.columns} | set(target.computeds)):
            reporter.error("E0206", f"'.{step.name}' after a call of {what}: only a property of the objects it "
                           "returns is supported here", step.span, f"select it with a shape: {fn.name}(...) "
                           f"{{ {step.name}: {{ ... }} }}")
            return None
        shape = (ast.ShapeElement("value", None, step.span, value=ast.Path((step.name,), step.span)),)
    if isinstance(statement, ast.SelectQuery):
        body = dataclasses.replace(statement, shape=shape) if shape is not None else statement
    else:
        body = ast.SelectDml(statement, shape, q.span)
    return ast.WithQuery(tuple(bindings), body, q.span), fn, step
