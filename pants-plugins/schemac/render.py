"""Shared template environment: the jinja2 templates of the back ends (``backends/ts/templates``,
``backends/go/templates``) and of the migrations (``migrate/templates``), each named by its path
in the package.

Templates are loaded with :mod:`pkgutil` (so they work from a wheel, a PEX or a source tree)
and rendered with ``StrictUndefined``: a missing variable is a bug, never an empty string.

Two things make rendering cheaper without changing a byte of output:

* the templates are compiled by a code generator (:class:`_CodeGenerator`) that writes each run
  of text and ``{{ ... }}`` between two tags as one ``yield`` of a ``%`` formatting (jinja2
  yields every piece on its own, and joins them all), and looks ``view.key`` up in a plain dict
  inline (jinja2 calls ``environment.getattr`` for every ``.``);
* the compiled templates are kept in a jinja2 bytecode cache, in the parser's cache directory
  (:func:`schemac.cache._cache_dir`; none when there is none, or when it is not the user's
  own), in files named by a hash of jinja2's version and this module's source, so a changed
  code generator never reads another one's code.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pkgutil
from typing import Optional

import jinja2
import jinja2.bccache
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst


def _load(name: str) -> str:
    data = pkgutil.get_data("schemac", name)
    if data is None:  # pragma: no cover - packaging error
        raise jinja2.TemplateNotFound(name)
    return data.decode("utf-8")


#: Names a plain dict answers as attributes (``d.items``): jinja2 looks those up first.
_DICT_ATTRS = frozenset(dir(dict))


class _CodeGenerator(CodeGenerator):
    """jinja2's code generator with two shortcuts in the compiled templates (same output):

    * an output run (text and ``{{ expr }}`` between two tags) is one ``yield '...%s...' %
      (expr, ...)`` instead of one ``yield`` per piece (``%s`` is ``str()``, as jinja2's own
      ``str(expr)``);
    * ``name.key`` is ``name['key']`` when ``name`` is a plain dict holding ``key``, else
      jinja2's ``environment.getattr`` as before.

    Anything unusual (autoescape, a finalize function, extends, async) takes jinja2's own path.
    """

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        """An output run as one ``yield`` (see the class docstring)."""
        if (frame.buffer is not None or frame.require_output_check or frame.eval_ctx.volatile
                or frame.eval_ctx.autoescape or self.environment.finalize or self.environment.is_async):
            super().visit_Output(node, frame)
            return
        finalize = self._make_finalize()
        consts = []  # the text of the run, expressions as None
        args = []
        for child in node.nodes:
            try:  # constants are folded at compile time, as jinja2 does
                consts.append(str(self._output_child_to_const(child, frame, finalize)))
            except (nodes.Impossible, Exception):
                consts.append(None)
                args.append(child)
        if not args:
            self.writeline("yield " + repr("".join(consts)))
            return
        fmt = ["%s" if c is None else c.replace("%", "%%") for c in consts]
        if fmt == ["%s"]:
            self.writeline("yield str(", args[0])
            self.visit(args[0], frame)
            self.write(")")
            return
        self.writeline(f"yield {''.join(fmt)!r} % (", args[0])
        for child in args:
            self.visit(child, frame)
            self.write(", ")
        self.write(")")

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        """``name.key`` looked up inline in a plain dict (see the class docstring)."""
        if (self.environment.is_async or node.attr in _DICT_ATTRS or not isinstance(node.node, nodes.Name)
                or self._new_lines):
            super().visit_Getattr(node, frame)
            return
        stream, self.stream = self.stream, io.StringIO()
        try:
            self.visit(node.node, frame)
            obj = self.stream.getvalue()
        finally:
            self.stream = stream
        key = repr(node.attr)
        self.write(f"({obj}[{key}] if type({obj}) is dict and {key} in {obj} else environment.getattr({obj}, {key}))")


class _Environment(jinja2.Environment):
    """jinja2's environment, with ``view.key`` on a plain dict looked up without the failed
    attribute lookup (and its exception) that jinja2 tries first; same results."""

    code_generator_class = _CodeGenerator

    def getattr(self, obj, attribute):
        """``obj.attribute`` as jinja2 looks it up (a plain dict's key first)."""
        if type(obj) is dict and attribute not in _DICT_ATTRS:
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                return self.undefined(obj=obj, name=attribute)
        return jinja2.Environment.getattr(self, obj, attribute)


class _BytecodeCache(jinja2.FileSystemBytecodeCache):
    """jinja2's file system bytecode cache, best effort like the parser cache: a file is read
    only when it is the user's own and nobody else may write to it, an unreadable or broken
    file is recompiled, and a failed write (read-only or full disk) leaves no cache."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Fill ``bucket`` from its file when that file may be trusted and is readable."""
        from schemac.cache import read_trusted_cache_file

        data = read_trusted_cache_file(self._get_cache_filename(bucket))
        if data is None:
            return
        try:
            bucket.load_bytecode(io.BytesIO(data))
        except Exception:  # not jinja2's format: compile the template again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Write ``bucket`` to its file, if the disk lets us."""
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache() -> Optional[jinja2.BytecodeCache]:
    """A bytecode cache in the parser's cache directory, or ``None`` when there is no usable
    one (unset, not creatable, or not the user's own / writable by others)."""
    from schemac.cache import _cache_dir, _trusted

    directory = _cache_dir()
    if not directory:
        return None
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not _trusted(directory):
        return None
    h = hashlib.sha256(jinja2.__version__.encode("utf-8"))
    try:
        with open(__file__, "rb") as f:
            h.update(f.read())
    except OSError:  # no source file to hash: no cache rather than a stale one
        return None
    return _BytecodeCache(directory, f"jinja2-{h.hexdigest()[:16]}-%s.cache")


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
        bytecode_cache=_bytecode_cache(),
    )


def render(template: str, **context) -> str:
    """Render the template at ``template`` (a path in the package: ``backends/ts/templates/index.ts.j2``)
    with ``context``."""
    return environment().get_template(template).render(**context)
