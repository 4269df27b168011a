"""The `[schemac]` subsystem: how Pants runs the schemac compiler."""

from __future__ import annotations

from pants.engine.rules import collect_rules
from pants.option.option_types import BoolOption, IntOption, StrListOption, StrOption
from pants.option.subsystem import Subsystem
from pants.util.strutil import help_text

from schemac_pants.target_types import GO_DRIVER_KINDS, TS_INT64_KINDS, TS_MODULE_KINDS

# Exact pins of the compiler's whole runtime closure (jinja2's only dependency is MarkupSafe), so
# that the resolve, and with it every cache key, is the same on every machine. All three install
# on CPython 3.9 (as wheels) and match the test venv (tests/requirements.txt).
DEFAULT_REQUIREMENTS = ("lark==1.3.1", "jinja2==3.1.6", "MarkupSafe==3.0.4")
DEFAULT_INTERPRETER_CONSTRAINTS = ("CPython==3.9.*",)


class SchemacSubsystem(Subsystem):
    """Options of the schemac schema compiler as run by Pants."""

    options_scope = "schemac"
    help = help_text(
        """
        The schemac schema compiler: compiles `schema_library` targets into SQL migrations,
        TypeScript and Go. Pants runs it as a cached, sandboxed process in a virtualenv built from
        `requirements`, with the compiler's own source files (the `schemac` package next to this
        plugin) added to the process inputs.
        """
    )

    requirements = StrListOption(
        default=list(DEFAULT_REQUIREMENTS),
        help=help_text(
            """
            The compiler's third-party runtime requirements, as exact pins (`name==version`)
            of the whole closure, so that every machine resolves the same distributions and
            gets the same cache keys. Change them only together with the compiler; a new
            version needs network access to the package index (through `[GLOBAL].ca_certs_path`
            if a TLS proxy is in the way) once, then it is cached.
            """
        ),
        advanced=True,
    )
    interpreter_constraints = StrListOption(
        default=list(DEFAULT_INTERPRETER_CONSTRAINTS),
        help=help_text(
            """
            The Python interpreter the compiler runs on, as interpreter constraints
            (e.g. `CPython==3.9.*`). Pants searches `[python-bootstrap].search_path` for a
            matching interpreter. Widen this only if the pinned `requirements` install on the
            other versions too.
            """
        ),
        advanced=True,
    )
    migration_lock_timeout = StrOption(
        default="5s",
        help=help_text(
            """
            The `lock_timeout` every generated migration file sets first (e.g. `5s`, `250ms`;
            `0` for none): a statement that waits longer for its lock fails instead of queueing
            every other query of the table behind it. A `schema_library` target's
            `migration_lock_timeout` field overrides it.
            """
        ),
    )
    migration_statement_timeout = StrOption(
        default="1min",
        help=help_text(
            """
            The `statement_timeout` of generated migration files that take blocking locks (e.g.
            `1min`; `0` for none); concurrent index builds and constraint validations, which block
            neither reads nor writes, run without one. A `schema_library` target's
            `migration_statement_timeout` field overrides it.
            """
        ),
    )
    ts_module = StrOption(
        default="esm",
        help=help_text(
            f"""
            The default module system of generated TypeScript: one of
            {', '.join(TS_MODULE_KINDS)}. A `schema_library` target's `ts_module` field
            overrides it for that target.
            """
        ),
    )
    ts_int64 = StrOption(
        default="string",
        help=help_text(
            f"""
            The default TypeScript type of `int64` values: one of {', '.join(TS_INT64_KINDS)}
            (`string` as node-postgres returns `int8`, or `bigint`, converted by the generated
            runner). A `schema_library` target's `ts_int64` field overrides it for that target.
            """
        ),
    )
    go_driver = StrOption(
        default="pgx",
        help=help_text(
            f"""
            The default Go driver of generated runners: one of {', '.join(GO_DRIVER_KINDS)}
            (`pgx` for pgx v5's own interface, `database/sql` for `*sql.DB` with pgx's stdlib
            driver). A `schema_library` target's `go_driver` field overrides it for that target.
            """
        ),
    )

    remote_cache_speculation_delay = IntOption(
        default=2000,
        help=help_text(
            """
            With a remote cache (`[GLOBAL].remote_cache_read`), how long in milliseconds a
            compile waits for the remote cache's answer before Pants also starts it locally
            (speculation: whichever finishes first wins). With Pants' default of 0 the local
            compile starts at once, next to the lookup, and is only cancelled when the remote
            hit arrives, so a remote hit still costs a compiler start. A miss or an error starts
            the compile at once, so the wait only matters on a cache that is slow to answer (100
            lookups at once on a busy 2-core machine took over 500 ms for a few of them). Not
            part of any cache key.
            """
        ),
        advanced=True,
    )

    tailor = BoolOption(
        default=True,
        help=help_text(
            """
            If true, `pants tailor` adds a `schema_library` target to each directory that has
            schema files (`*.esdl` or `*.gel`) not yet owned by a target; its query files (`*.edgeql`,
            also under `queries/`) are then owned by that target too.
            """
        ),
        advanced=True,
    )


def rules():
    return [*collect_rules(), *SchemacSubsystem.rules()]
