"""A faster ``__init__`` for frozen dataclasses that are created in bulk.

``@dataclass(frozen=True)`` makes ``__init__`` assign each field with
``object.__setattr__(self, name, value)`` (its own ``__setattr__`` refuses assignment): a global
lookup, an attribute lookup and a call per field. The parser and the resolver create hundreds
of thousands of such objects per large compile. :func:`fast_init` gives a frozen dataclass an
``__init__`` that stores the fields straight into the instance ``__dict__``, with the same
signature, defaults and results; everything else (``__eq__``, ``__hash__``, ``__repr__``,
``__setattr__`` refusing assignment, ``dataclasses.replace``, ``fields``) is the dataclass' own.
See the ``dataclasses`` documentation, "Frozen instances".
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Type, TypeVar

T = TypeVar("T")


def fast_init(cls: Type[T]) -> Type[T]:
    """Replace the generated ``__init__`` of the frozen dataclass ``cls`` (see the module
    docstring); returns ``cls``. A class this cannot serve unchanged is returned as it is: one
    that is not a frozen dataclass, has ``__slots__``, a ``__post_init__``, ``InitVar`` or
    ``init=False`` fields, or fields with a ``default_factory``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not params.init or "__slots__" in cls.__dict__:
        return cls
    if hasattr(cls, "__post_init__"):
        return cls
    fields = dataclasses.fields(cls)
    all_fields = getattr(cls, "__dataclass_fields__", {})
    if len(all_fields) != len(fields):  # InitVar or ClassVar pseudo-fields
        return cls
    args: List[str] = []
    namespace: Dict[str, Any] = {}
    for f in fields:
        if not f.init or f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            return cls
        if f.default is dataclasses.MISSING:
            args.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"    __d[{f.name!r}] = {f.name}\n" for f in fields) or "    pass\n"
    source = f"def __init__(self, {', '.join(args)}):\n    __d = self.__dict__\n{body}"
    exec(source, namespace)  # noqa: S102 - generated from the field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[misc]
    return cls


def fast_init_all(namespace: Dict[str, Any]) -> None:
    """:func:`fast_init` every frozen dataclass defined in a module (its ``globals()``)."""
    module = namespace.get("__name__")
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == module and dataclasses.is_dataclass(value):
            fast_init(value)
