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
call (``E0206``), never silently. Gel itself accepts ``using sql`` only in its standard library
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
                    else:
                        ptype = resolve_type_ref(p.type, type_ctx(d.module))
                        if ptype is None:
                            continue  # reported
                    params.append(Param(p.name, ptype, p.default, p.kind == "named only", p.span))
                returns = None
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
                schema.functions[key] = UserFunction(d.name, d.module, tuple(params), returns, d.body, d.span, reason)
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
