"""Shared fixtures for schemac's tests (visible to every test: tests/ and pants-plugins/).

Run the suite with ``tests/run``: it provides the toolchains and a throwaway Postgres and sets
``DATABASE_URL``. Run bare (``pytest -c tests/pytest.ini ...``), fixtures whose tool or server is
missing skip their test; under ``tests/run`` (``SCHEMAC_TESTS_RUN=1``) they fail instead.

Fixtures
--------
``database_url`` (session): the server's URL from ``$DATABASE_URL``.

``pg``: a fresh, uniquely named database, dropped after the test. A :class:`PgDatabase`:
``pg.url`` (URL conninfo for psycopg, node-postgres and pgx), ``pg.name``, ``pg.conn`` (an open
autocommit psycopg connection), ``pg.execute(sql, params)``, ``pg.connect()`` and
``pg.apply(script)`` (a migration on the fresh database: the database becomes a copy of a
template database that got the script once per test process, see :meth:`PgDatabase.apply`;
``pg.execute`` of a migration schemac generated, run first, does the same).
``pg_url`` / ``pg_conn`` are shortcuts.

``tsc_run``: a :class:`TsRunner`. ``tsc_run(src_dir, "main.ts")`` type-checks and compiles every
``.ts`` under ``src_dir`` with ``tsc --strict --noUncheckedIndexedAccess`` (target ES2022, module
NodeNext; ``pg``, ``@types/pg`` and ``@types/node`` resolvable) and runs the entry with node,
``DATABASE_URL`` set; returns the :class:`subprocess.CompletedProcess` of node.
``tsc_run.compile(src_dir)`` only compiles.

``go_run``: a :class:`GoRunner`. ``go_run(src_dir)`` copies ``src_dir`` into a temporary module
(``tests/go/go.mod``: module ``schemactest``, pgx v5.7.4), then requires ``gofmt -l`` to print
nothing, runs ``go vet ./...`` and ``go test ./...`` with the machine's Go (``DATABASE_URL``
set) and ``go build ./...`` + ``go vet ./...`` with Go 1.21 (``$SCHEMAC_GO121``); returns a
:class:`GoResult`.

With ``pg`` requested by the same test, programs run by ``tsc_run``/``go_run`` get ``pg.url`` as
their ``DATABASE_URL``; otherwise the server's ``database_url``. Pass ``database_url=`` to choose.
All helpers fail the test with the command, its exit status and its full output when a step fails
(``check=False`` returns the failing result instead).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
TS_DIR = TESTS_DIR / "ts"
GO_DIR = TESTS_DIR / "go"
UNDER_TESTS_RUN = os.environ.get("SCHEMAC_TESTS_RUN") == "1"

PathLike = Union[str, "os.PathLike[str]"]


def _unavailable(message: str) -> None:
    """Fail under tests/run (a missing tool is a broken setup there), skip otherwise."""
    if UNDER_TESTS_RUN:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _tail(text: str, limit: int = 20000) -> str:
    text = text or ""
    return text if len(text) <= limit else "...[cut]...\n" + text[-limit:]


def describe(result: "subprocess.CompletedProcess[str]", what: str = "") -> str:
    """A readable report of a finished process: command, cwd, exit status, stdout, stderr."""
    args = result.args if isinstance(result.args, str) else " ".join(map(str, result.args))
    cwd = getattr(result, "cwd", "")
    return (
        f"{what or 'command'} failed with exit status {result.returncode}\n"
        f"$ {args}\n" + (f"(in {cwd})\n" if cwd else "")
        + f"--- stdout ---\n{_tail(result.stdout)}\n--- stderr ---\n{_tail(result.stderr)}"
    )


def _run(
    args: Sequence[PathLike],
    *,
    cwd: PathLike,
    env: Mapping[str, str],
    timeout: float,
    what: str,
) -> "subprocess.CompletedProcess[str]":
    try:
        result = subprocess.run(
            [str(a) for a in args],
            cwd=str(cwd),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(
            f"{what} timed out after {timeout}s\n$ {' '.join(map(str, args))}\n(in {cwd})\n"
            f"--- stdout ---\n{_tail(out)}\n--- stderr ---\n{_tail(err)}",
            pytrace=False,
        )
    result.cwd = str(cwd)  # type: ignore[attr-defined]
    return result


def _copy_tree(src: Path, dst: Path) -> None:
    if not src.is_dir():
        raise ValueError(f"{src} is not a directory")
    shutil.copytree(
        src,
        dst,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("node_modules", "__pycache__", ".git"),
    )


# ---------------------------------------------------------------------------------------------
# Hypothesis: no per-example deadline (2-core CI machines have noisy timings), examples
# database kept out of the work tree. Choose another profile with HYPOTHESIS_PROFILE.

try:
    from hypothesis import settings as _hsettings
    from hypothesis.database import DirectoryBasedExampleDatabase as _HDb

    _hsettings.register_profile(
        "schemac",
        deadline=None,
        print_blob=True,
        database=_HDb(str(TESTS_DIR / ".cache" / "hypothesis")),
    )
    _hsettings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "schemac"))
except ImportError:  # pragma: no cover - hypothesis is in tests/requirements.txt
    pass


# ---------------------------------------------------------------------------------------------
# Parallel runs: tests/run runs pytest-xdist on both cores (``-n 2 --dist loadgroup``).

#: Test directories (relative to the repository) whose tests all run on one worker, one at a
#: time: the Pants tests run ``./pants`` in this checkout (its ``.pants.d``, ``.tools`` and the
#: Pants venv are shared, and one Pants run already uses both cores).
SERIAL_DIRS = {"tests/pants": "pants"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """Under pytest-xdist, every test file is one ``xdist_group`` (its tests run on one worker,
    so module- and session-scoped fixtures such as a compiled library, a TypeScript build or a
    language-server session are made once), and :data:`SERIAL_DIRS` one group each. A test
    marked ``xdist_group`` keeps its own group. (Before xdist's own hook, which reads the mark.)"""
    if not getattr(config.option, "loadgroup", False):  # set on the workers by --dist loadgroup
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        path = Path(str(getattr(item, "path", None) or item.fspath)).resolve()
        try:
            group = path.relative_to(REPO_ROOT).as_posix()
        except ValueError:
            group = str(path)
        for prefix, name in SERIAL_DIRS.items():
            if group.startswith(prefix + "/"):
                group = name
        item.add_marker(pytest.mark.xdist_group(group))


# ---------------------------------------------------------------------------------------------
# Postgres


@pytest.fixture(scope="session")
def database_url() -> str:
    """URL of the test server (``$DATABASE_URL``; tests/run starts a throwaway one)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        _unavailable("DATABASE_URL is not set: run the suite with tests/run")
    return url


def url_with_dbname(conninfo: str, dbname: str) -> str:
    """``conninfo`` (a URL or ``key=value`` string) pointed at database ``dbname``, as a URL
    (the form node-postgres, pgx and psycopg all accept)."""
    if "://" in conninfo:
        parts = urlsplit(conninfo)
        return urlunsplit(parts._replace(path="/" + quote(dbname, safe="")))
    from psycopg.conninfo import conninfo_to_dict

    d: Dict[str, Any] = {k: str(v) for k, v in conninfo_to_dict(conninfo).items()}
    d["dbname"] = dbname
    user = quote(d.pop("user", ""), safe="")
    password = d.pop("password", None)
    host = d.pop("host", "")
    port = d.pop("port", "")
    dbname = d.pop("dbname")
    query: Dict[str, str] = {}
    if host.startswith("/") or "," in host:  # socket directory or host list: as a parameter
        query["host"] = host
        host = ""
    netloc = user + (":" + quote(password, safe="") if password is not None else "")
    netloc = (netloc + "@" if netloc else "") + host + (":" + port if port else "")
    query.update(d)
    return urlunsplit(("postgresql", netloc, "/" + quote(dbname, safe=""), urlencode(query), ""))


#: The head of an up migration schemac generated (``sql/000001_init.up.sql``).
_MIGRATION_UP = re.compile(r"-- Code generated by schemac from library .*\n-- Migration \S+ \(up\)")

#: Template databases made by :meth:`PgDatabase.apply` in this process: (server URL, sha256 of
#: the script) -> the template's name, or ``None`` when the script failed there (it then runs
#: on the test's own database, which reports its error as before).
_TEMPLATES: Dict[tuple, Optional[str]] = {}


def _drop_templates(admin: Any, server_url: str) -> None:
    from psycopg import sql

    for key, name in list(_TEMPLATES.items()):
        if key[0] == server_url:
            del _TEMPLATES[key]
            if name is not None:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@dataclass
class PgDatabase:
    """A fresh database on the test server, dropped when the test ends."""

    name: str
    url: str
    _conns: List[Any] = field(default_factory=list, repr=False)
    _conn: Optional[Any] = field(default=None, repr=False)
    #: The server's admin connection and URL (given by the fixtures): :meth:`apply` clones
    #: templates with them; without them it runs the script as :meth:`execute` does.
    _admin: Optional[Any] = field(default=None, repr=False)
    _server_url: str = field(default="", repr=False)
    _applied: bool = field(default=False, repr=False)

    def _fresh(self) -> bool:
        return self._admin is not None and not self._conns and self._conn is None and not self._applied

    def apply(self, script: str) -> None:
        """Run ``script`` (a migration: statements without parameters) on this database, with
        the result of ``execute(script)``: while the database is still fresh (nothing ran on it,
        no connection opened through this object, no script applied), by making it a copy (``CREATE DATABASE ... TEMPLATE``) of a
        template database that got ``script`` once in this test process (on the same server, in
        the same way); otherwise, or when the script fails there, by running it here.
        Copying is cheaper than running a migration's DDL for every test that needs it."""
        import hashlib

        from psycopg import sql

        if not self._fresh():
            self.conn.execute(script)
            return
        self._applied = True
        key = (self._server_url, hashlib.sha256(script.encode("utf-8")).hexdigest())
        if key not in _TEMPLATES:
            name = f"tpl_{key[1][:20]}_{os.getpid()}"
            self._admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            self._admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            import psycopg

            try:
                with psycopg.connect(url_with_dbname(self._server_url, name), autocommit=True) as conn:
                    conn.execute(script)
                _TEMPLATES[key] = name
            except psycopg.Error:
                self._admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
                _TEMPLATES[key] = None
        template = _TEMPLATES[key]
        if template is None:
            self.conn.execute(script)
            return
        ident = sql.Identifier(self.name)
        self._admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(ident))
        self._admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(ident, sql.Identifier(template)))

    def __str__(self) -> str:
        return self.url

    def connect(self, autocommit: bool = True, **kwargs: Any):
        """A new psycopg connection to this database (closed at teardown)."""
        import psycopg

        conn = psycopg.connect(self.url, autocommit=autocommit, **kwargs)
        self._conns.append(conn)
        return conn

    @property
    def conn(self):
        """The test's shared autocommit psycopg connection (opened on first use)."""
        if self._conn is None or self._conn.closed:
            self._conn = self.connect()
        return self._conn

    def execute(self, sql: Any, params: Any = None) -> List[tuple]:
        """Run one statement on :attr:`conn`; returns its rows (``[]`` when it returns none).
        A migration schemac generated (its ``-- Code generated by schemac ... (up)`` header, no
        parameters) run first on the fresh database goes through :meth:`apply`."""
        if params is None and isinstance(sql, str) and _MIGRATION_UP.match(sql) and self._fresh():
            self.apply(sql)
            return []
        cur = self.conn.execute(sql, params)
        return cur.fetchall() if cur.description is not None else []

    def _close(self) -> None:
        for conn in self._conns:
            try:
                conn.close()
            except Exception:
                pass


@pytest.fixture(scope="session")
def _pg_admin(database_url: str):
    import psycopg

    conn = psycopg.connect(database_url, autocommit=True)
    yield conn
    _drop_templates(conn, database_url)
    conn.close()


def _db_name(nodename: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", nodename.lower()).strip("_")[:40]
    return f"t_{slug}_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def pg(request: pytest.FixtureRequest, database_url: str, _pg_admin) -> Iterable[PgDatabase]:
    """A fresh database named after the test (``t_<test>_<random>``), dropped afterwards
    (``WITH (FORCE)``: connections a program left open do not block the drop)."""
    from psycopg import sql

    name = _db_name(request.node.name)
    _pg_admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    db = PgDatabase(name=name, url=url_with_dbname(database_url, name), _admin=_pg_admin, _server_url=database_url)
    try:
        yield db
    finally:
        db._close()
        _pg_admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def pgvector_url() -> str:
    """URL of the PostgreSQL 16 server with pgvector's ``vector`` extension
    (``$SCHEMAC_PGVECTOR_URL``; tests/run starts a throwaway one from tests/pgvector/setup)."""
    url = os.environ.get("SCHEMAC_PGVECTOR_URL", "")
    if not url:
        _unavailable("SCHEMAC_PGVECTOR_URL is not set: run the suite with tests/run (it starts the pgvector server)")
    return url


@pytest.fixture(scope="session")
def _pgvector_admin(pgvector_url: str):
    import psycopg

    conn = psycopg.connect(pgvector_url, autocommit=True)
    yield conn
    _drop_templates(conn, pgvector_url)
    conn.close()


@pytest.fixture
def pgvector_db(request: pytest.FixtureRequest, pgvector_url: str, _pgvector_admin) -> Iterable[PgDatabase]:
    """A fresh database on the pgvector server (see :func:`pgvector_url`), dropped afterwards."""
    from psycopg import sql

    name = _db_name(request.node.name)
    _pgvector_admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    db = PgDatabase(name=name, url=url_with_dbname(pgvector_url, name), _admin=_pgvector_admin,
                    _server_url=pgvector_url)
    try:
        yield db
    finally:
        db._close()
        _pgvector_admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def pg_factory(request: pytest.FixtureRequest, database_url: str, _pg_admin):
    """Call it for more fresh databases in one test (each a :class:`PgDatabase`, all dropped
    afterwards)."""
    from psycopg import sql

    made: List[PgDatabase] = []

    def make() -> PgDatabase:
        name = _db_name(request.node.name)
        _pg_admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        made.append(PgDatabase(name=name, url=url_with_dbname(database_url, name), _admin=_pg_admin,
                               _server_url=database_url))
        return made[-1]

    try:
        yield make
    finally:
        for db in made:
            db._close()
            _pg_admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db.name)))


@pytest.fixture
def pg_url(pg: PgDatabase) -> str:
    """``pg.url``: conninfo URL of the test's fresh database."""
    return pg.url


@pytest.fixture
def pg_conn(pg: PgDatabase):
    """``pg.conn``: an open autocommit psycopg connection to the test's fresh database."""
    return pg.conn


def _program_database_url(request: pytest.FixtureRequest) -> Optional[str]:
    """The DATABASE_URL a program should get: the test's ``pg`` database if it uses one."""
    if "pg" in request.fixturenames:
        return request.getfixturevalue("pg").url
    return os.environ.get("DATABASE_URL") or None


def _program_env(base_url: Optional[str], database_url: Optional[str], env: Optional[Mapping[str, str]]) -> Dict[str, str]:
    out = dict(os.environ)
    url = database_url if database_url is not None else base_url
    if url:
        out["DATABASE_URL"] = url
    out.update(env or {})
    return out


# ---------------------------------------------------------------------------------------------
# TypeScript


@dataclass
class TsBuild:
    """A compiled TypeScript project: ``project`` holds ``src/`` (the copied sources),
    ``out/`` (the JavaScript), ``tsconfig.json``, ``package.json``; ``result`` is tsc's run."""

    project: Path
    out: Path
    result: "subprocess.CompletedProcess[str]"

    @property
    def ok(self) -> bool:
        return self.result.returncode == 0


class TsRunner:
    """Compiles a directory of ``.ts`` files and runs one of them with node. See the module doc."""

    #: Compiler options of every build (``compiler_options=`` adds to or overrides them).
    BASE_OPTIONS: Dict[str, Any] = {
        "target": "ES2022",
        "lib": ["ES2022"],
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "types": ["node"],
        "rootDir": "src",
        "outDir": "out",
        "sourceMap": True,
        "noEmitOnError": True,
        "forceConsistentCasingInFileNames": True,
        "skipLibCheck": False,
    }

    def __init__(self, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
        self._request = request
        self._tmp = tmp_path_factory
        self.tsc = TS_DIR / "node_modules" / ".bin" / "tsc"
        self.node = shutil.which("node")

    def _check_tools(self) -> None:
        if not self.tsc.exists():
            _unavailable(f"{self.tsc} is missing: run tests/run (npm ci in tests/ts)")
        if not self.node:
            _unavailable("node is not on PATH")

    def compile(
        self,
        src_dir: PathLike,
        *,
        module: str = "esm",
        compiler_options: Optional[Mapping[str, Any]] = None,
        check: bool = True,
        timeout: float = 300,
    ) -> TsBuild:
        """Type-check and compile every ``.ts`` under ``src_dir`` (copied to a temp project).

        ``module``: ``"esm"`` (``"type": "module"``: relative imports need ``.js`` suffixes) or
        ``"commonjs"``. With ``check=False`` a failed compile is returned, not failed on."""
        import json

        self._check_tools()
        if module not in ("esm", "commonjs"):
            raise ValueError(f"module must be 'esm' or 'commonjs', not {module!r}")
        project = self._tmp.mktemp("ts")
        _copy_tree(Path(src_dir), project / "src")
        (project / "node_modules").symlink_to(TS_DIR / "node_modules", target_is_directory=True)
        pkg = {"private": True, "type": "module" if module == "esm" else "commonjs"}
        (project / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
        options = {**self.BASE_OPTIONS, **(compiler_options or {})}
        tsconfig = {"compilerOptions": options, "include": ["src/**/*"]}
        (project / "tsconfig.json").write_text(json.dumps(tsconfig, indent=2) + "\n")
        result = _run(
            [self.node, self.tsc, "-p", "tsconfig.json", "--strict", "--noUncheckedIndexedAccess", "--pretty", "false"],
            cwd=project,
            env=os.environ,
            timeout=timeout,
            what="tsc",
        )
        if check and result.returncode != 0:
            pytest.fail(describe(result, "tsc (TypeScript compile)"), pytrace=False)
        return TsBuild(project=project, out=project / (options.get("outDir") or "out"), result=result)

    def __call__(
        self,
        src_dir: PathLike,
        entry: str = "main.ts",
        *,
        args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        database_url: Optional[str] = None,
        module: str = "esm",
        compiler_options: Optional[Mapping[str, Any]] = None,
        check: bool = True,
        timeout: float = 300,
    ) -> "subprocess.CompletedProcess[str]":
        """Compile ``src_dir`` and run ``entry`` (a path relative to ``src_dir``) with node.

        The program gets ``DATABASE_URL`` (see the module doc), ``env`` on top, and ``args``.
        Returns node's CompletedProcess (``.stdout``/``.stderr`` are text); fails the test with
        the compiler's or the program's output when either fails, unless ``check=False``
        (then a failed compile returns tsc's CompletedProcess)."""
        build = self.compile(src_dir, module=module, compiler_options=compiler_options, check=check, timeout=timeout)
        if not build.ok:
            return build.result
        rel = Path(entry)
        js = build.out / rel.with_suffix({".mts": ".mjs", ".cts": ".cjs"}.get(rel.suffix, ".js"))
        if not js.exists():
            pytest.fail(f"tsc emitted no {js} for entry {entry!r}; emitted: "
                        f"{sorted(str(p.relative_to(build.out)) for p in build.out.rglob('*.*js'))}", pytrace=False)
        url = database_url if database_url is not None else _program_database_url(self._request)
        result = _run(
            [self.node, "--enable-source-maps", js, *args],
            cwd=build.project,
            env=_program_env(None, url, env),
            timeout=timeout,
            what=f"node {entry}",
        )
        if check and result.returncode != 0:
            pytest.fail(describe(result, f"node {entry}"), pytrace=False)
        return result


@pytest.fixture
def tsc_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> TsRunner:
    """Compile-and-run helper for generated TypeScript; see :class:`TsRunner`."""
    return TsRunner(request, tmp_path_factory)


# ---------------------------------------------------------------------------------------------
# Go


@dataclass
class GoResult:
    """The steps ``go_run`` ran, in order: ``gofmt``, ``vet``, ``test``, then ``go121-build`` and
    ``go121-vet`` (and ``go121-test`` when asked). ``module`` is the temporary module dir."""

    module: Path
    steps: Dict[str, "subprocess.CompletedProcess[str]"]

    @property
    def ok(self) -> bool:
        return all(_step_ok(k, r) for k, r in self.steps.items())

    @property
    def test(self) -> "subprocess.CompletedProcess[str]":
        """The ``go test`` run (its ``stdout`` holds the test output)."""
        return self.steps["test"]

    @property
    def failed(self) -> Optional[str]:
        """Name of the first failing step, or None."""
        return next((k for k, r in self.steps.items() if not _step_ok(k, r)), None)


def _step_ok(name: str, result: "subprocess.CompletedProcess[str]") -> bool:
    if name == "gofmt":
        return result.returncode == 0 and not result.stdout.strip()
    return result.returncode == 0


class GoRunner:
    """Builds, vets and tests a directory of Go files as a temporary module. See the module doc."""

    MODULE = "schemactest"

    def __init__(self, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
        self._request = request
        self._tmp = tmp_path_factory
        self.go = os.environ.get("SCHEMAC_GO") or shutil.which("go")
        self.go121 = os.environ.get("SCHEMAC_GO121") or None
        gofmt = Path(self.go).with_name("gofmt") if self.go else None
        self.gofmt = str(gofmt) if gofmt and gofmt.exists() else shutil.which("gofmt")

    @staticmethod
    def _env(go: str, extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
        env = dict(os.environ)
        flags = [f for f in env.get("GOFLAGS", "").split() if not f.startswith("-mod")]
        env.update(
            GOFLAGS=" ".join(flags + ["-mod=mod"]),
            GOPROXY="off",  # the module cache that tests/run filled is all a test may use
            GOSUMDB="off",
            GOTOOLCHAIN="local",
            GOWORK="off",
        )
        env.pop("GOROOT", None)
        env["PATH"] = str(Path(go).parent) + os.pathsep + env.get("PATH", "")
        env.update(extra or {})
        return env

    def __call__(
        self,
        src_dir: PathLike,
        *,
        module: Optional[str] = None,
        test_args: Sequence[str] = ("-count=1",),
        env: Optional[Mapping[str, str]] = None,
        database_url: Optional[str] = None,
        go121: bool = True,
        go121_test: bool = False,
        check: bool = True,
        timeout: float = 600,
    ) -> GoResult:
        """Copy ``src_dir`` (recursively) into a temporary module and check it.

        The module is ``tests/go/go.mod`` (module path ``schemactest``, or ``module``): a
        package in ``src_dir/jobs/`` is imported as ``schemactest/jobs``; files directly in
        ``src_dir`` form the root package. Steps: ``gofmt -l .`` (must print nothing),
        ``go vet ./...``, ``go test ./... <test_args>`` (``-v``, ``-run X`` ...) with the
        machine's Go; then, if ``go121`` and ``$SCHEMAC_GO121`` is set, ``go build ./...`` and
        ``go vet ./...`` (and ``go test`` if ``go121_test``) with Go 1.21. Go runs offline on the
        module cache. Stops at the first failing step; fails the test with its output unless
        ``check=False``. ``env`` is added to every step's environment."""
        if not self.go:
            _unavailable("go is not on PATH")
        if go121 and not self.go121:
            _unavailable("SCHEMAC_GO121 is not set: run tests/run (it installs Go 1.21)")
        mod = self._tmp.mktemp("go")
        shutil.copy2(GO_DIR / "go.mod", mod / "go.mod")
        shutil.copy2(GO_DIR / "go.sum", mod / "go.sum")
        if module:
            text = (mod / "go.mod").read_text()
            (mod / "go.mod").write_text(re.sub(r"(?m)^module\s+\S+", f"module {module}", text, count=1))
        _copy_tree(Path(src_dir), mod)

        url = database_url if database_url is not None else _program_database_url(self._request)
        go_env = self._env(self.go, env)
        run_env = dict(go_env)
        if url:
            run_env["DATABASE_URL"] = url
        run_env.update(env or {})

        steps: Dict[str, subprocess.CompletedProcess] = {}
        plan: List[tuple] = [
            ("gofmt", [self.gofmt or "gofmt", "-l", "."], go_env),
            ("vet", [self.go, "vet", "./..."], go_env),
            ("test", [self.go, "test", *test_args, "./..."], run_env),
        ]
        if go121 and self.go121:
            env121 = self._env(self.go121, env)
            plan += [
                ("go121-build", [self.go121, "build", "./..."], env121),
                ("go121-vet", [self.go121, "vet", "./..."], env121),
            ]
            if go121_test:
                test121 = dict(env121)
                if url:
                    test121["DATABASE_URL"] = url
                test121.update(env or {})
                plan.append(("go121-test", [self.go121, "test", *test_args, "./..."], test121))

        for name, cmd, step_env in plan:
            result = _run(cmd, cwd=mod, env=step_env, timeout=timeout, what=name)
            steps[name] = result
            if not _step_ok(name, result):
                if check:
                    if name == "gofmt" and result.returncode == 0:
                        diff = _run([self.gofmt or "gofmt", "-d", "."], cwd=mod, env=go_env, timeout=timeout, what="gofmt -d")
                        pytest.fail(f"gofmt -l lists unformatted files:\n{result.stdout}\n{_tail(diff.stdout)}", pytrace=False)
                    pytest.fail(describe(result, name), pytrace=False)
                break
        return GoResult(module=mod, steps=steps)


@pytest.fixture
def go_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GoRunner:
    """Build/vet/test helper for generated Go; see :class:`GoRunner`."""
    return GoRunner(request, tmp_path_factory)
