"""Shared template environment: jinja2 templates shipped in ``schemac/templates``.

Templates are loaded with :mod:`pkgutil` (so they work from a wheel, a PEX or a source tree)
and rendered with ``StrictUndefined``: a missing variable is a bug, never an empty string.
"""

from __future__ import annotations

import functools
import pkgutil

import jinja2


def _load(name: str) -> str:
    data = pkgutil.get_data("schemac", f"templates/{name}")
    if data is None:  # pragma: no cover - packaging error
        raise jinja2.TemplateNotFound(name)
    return data.decode("utf-8")


#: Names a plain dict answers as attributes (``d.items``): jinja2 looks those up first.
_DICT_ATTRS = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """jinja2's environment, with ``view.key`` on a plain dict looked up without the failed
    attribute lookup (and its exception) that jinja2 tries first; same results."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRS:
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                return self.undefined(obj=obj, name=attribute)
        return jinja2.Environment.getattr(self, obj, attribute)


@functools.lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    """The jinja2 environment used by every renderer."""
    return _Environment(
        loader=jinja2.FunctionLoader(_load),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(template: str, **context) -> str:
    """Render ``templates/<template>`` with ``context``."""
    return environment().get_template(template).render(**context)
