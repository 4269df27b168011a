#!/usr/bin/env python3
"""Runner-overhead benchmark of schemac's generated runners (issue 4; a script, not a test).

Side by side in one run, for TypeScript (node-postgres) and Go (pgx v5), it times

1. ``pairs``: N sequential ``enqueueJob`` + ``claimJob`` pairs on one connection (default
   10,000), through the generated jobs runner vs hand-written driver calls;
2. ``feed``: the blog's ``author_feed`` (a select with a nested author and tags) of an author
   with P posts (default 100, each with tags), repeated R times (default 200), generated vs
   hand-written;

and prints a table: workload, language, generated seconds, hand-written seconds, ratio (target
<= 1.05). Each language's program runs every measurement ``--rounds`` times (default 3) after a
warm-up, alternating which implementation goes first, and the table shows the best of the
rounds (the medians are printed too).

The hand-written code calls the same driver with the SAME SQL text: the TypeScript program
imports the generated modules' exported ``*Sql`` constants; for Go (whose constants are
unexported) this script extracts the constants from ``generated/{jobs,blog}/go/queries.go`` at
run time, checks they are byte-identical to the TypeScript ones, and passes them to the program.

It also shows that the nested select is ONE statement (counted by wrapping node-postgres'
``query`` and by a pgx ``QueryTracer``, and by ``pg_stat_statements`` when the server has it
loaded), and prints the ``EXPLAIN ANALYZE`` of the feed query over a table with enough other
authors' posts that the planner uses the indexes the schema declares (``ix_post_author_id``,
the join table's primary key ``post_tags_pkey``, ``tag_pkey``, ``user_pkey``); when the data is
too small for that (``--background-authors``), it says so and repeats it under
``SET enable_seqscan = off``.

Usage, from the repository root after ``tests/run`` set up the toolchains (tests/ts/node_modules,
the Go module cache)::

    .venv-test/bin/python tests/bench/runner_overhead.py
    .venv-test/bin/python tests/bench/runner_overhead.py --pairs 2000 --rounds 5 --langs go

With ``$DATABASE_URL`` it creates (and afterwards drops) a database ``bench_runner_<random>`` on
that server (``--use-database``: use the URL's database as it is, which must be empty); without
it, it starts a throwaway PostgreSQL 15 cluster on a free loopback port like ``tests/run`` does
(as the ``postgres`` user when run as root, with ``pg_stat_statements`` preloaded) and always
removes it.

``tests/bench/test_runner_overhead_smoke.py`` runs it with tiny sizes so it cannot rot.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple
from urllib.parse import urlsplit, urlunsplit

REPO_ROOT = Path(__file__).resolve().parents[2]
GENERATED = REPO_ROOT / "generated"
HERE = Path(__file__).resolve().parent / "runner_overhead"
TS_DIR = REPO_ROOT / "tests" / "ts"
GO_DIR = REPO_ROOT / "tests" / "go"
TARGET_RATIO = 1.05
#: Indexes the schema declares that the feed query should use.
FEED_INDEXES = ("ix_post_author_id", "post_tags_pkey", "tag_pkey", "user_pkey")


def log(msg: str) -> None:
    print(f"[runner_overhead] {msg}", file=sys.stderr, flush=True)


def run(cmd: List[str], *, cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
        what: str = "") -> str:
    r = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{what or cmd[0]} failed ({r.returncode}): {' '.join(cmd)}\n"
                         f"--- stdout ---\n{r.stdout[-8000:]}\n--- stderr ---\n{r.stderr[-8000:]}")
    return r.stdout


# ---------------------------------------------------------------------------------------------
# Postgres


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_pg_bin() -> Path:
    for d in [Path("/usr/lib/postgresql/15/bin"), *sorted(Path("/usr/lib/postgresql").glob("*/bin"))]:
        if (d / "initdb").exists():
            return d
    raise SystemExit("no PostgreSQL server binaries found (set DATABASE_URL)")


@contextmanager
def throwaway_cluster() -> Iterator[str]:
    """A PostgreSQL cluster on a free loopback port (pg_stat_statements preloaded); its URL."""
    pg_bin = find_pg_bin()
    as_pg: List[str] = []
    tmp = Path(tempfile.mkdtemp(prefix="schemac-bench-pg."))
    os.chmod(tmp, 0o700)
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    data = tmp / "data"
    started = False
    try:
        run([*as_pg, str(pg_bin / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
             "-E", "UTF8", "--locale=C", "--no-sync"], cwd=Path("/"), what="initdb")
        for _ in range(3):
            port = free_port()
            opts = (f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={tmp} "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                    "-c shared_preload_libraries=pg_stat_statements")
            r = subprocess.run([*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-l", str(tmp / "server.log"),
                                "-w", "-t", "60", "start", "-o", opts], cwd="/", stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            if r.returncode == 0:
                started = True
                log(f"started a throwaway cluster on 127.0.0.1:{port} ({tmp})")
                yield f"postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"
                return
        raise SystemExit("could not start postgres:\n" + (tmp / "server.log").read_text()[-4000:])
    finally:
        if started:
            subprocess.run([*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                           cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            log("throwaway cluster stopped and removed")
        shutil.rmtree(tmp, ignore_errors=True)


def with_dbname(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


@contextmanager
def bench_database(server_url: str, use_as_is: bool) -> Iterator[str]:
    import psycopg
    from psycopg import sql

    if use_as_is:
        yield server_url
        return
    name = "bench_runner_" + uuid.uuid4().hex[:10]
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield with_dbname(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def seed(conn, args) -> str:
    """Apply the jobs and blog migrations and fill the blog; returns the benchmarked author's id."""
    for lib in ("jobs", "blog"):
        conn.execute((GENERATED / lib / "sql" / "000001_init.up.sql").read_text())
    p = {"authors": args.background_authors, "bg": args.background_posts, "posts": args.posts,
         "tags": args.tags, "per": args.tags_per_post}
    conn.execute("""INSERT INTO "user" (email, handle, display_name)
                    SELECT 'u' || g || '@example.com', 'u' || g, 'User ' || g
                    FROM generate_series(0, %(authors)s) AS g""", p)
    conn.execute("""INSERT INTO tag (name, slug) SELECT 'Tag ' || g, 't' || g
                    FROM generate_series(0, %(tags)s - 1) AS g""", p)
    conn.execute("""INSERT INTO post (title, slug, author_id, status, published_at, body)
                    SELECT 'Post ' || g, 'p' || g, u.id, 'Published',
                           timestamptz '2024-01-01' + g * interval '1 minute', repeat('body ', 40)
                    FROM "user" AS u,
                         generate_series(1, CASE WHEN u.handle = 'u0' THEN %(posts)s ELSE %(bg)s END) AS g""", p)
    conn.execute("""INSERT INTO post_tags (source_id, target_id, position)
                    SELECT p.id, t.id, j
                    FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM post) AS p,
                         generate_series(0, %(per)s - 1) AS j,
                         tag AS t
                    WHERE t.slug = 't' || ((p.rn + j * 7) %% %(tags)s)
                    ON CONFLICT DO NOTHING""", p)
    conn.execute("ANALYZE")
    (author_id,) = conn.execute("""SELECT id::text FROM "user" WHERE handle = 'u0'""").fetchone()
    counts = conn.execute("""SELECT (SELECT count(*) FROM "user"), (SELECT count(*) FROM post),
                                    (SELECT count(*) FROM post_tags), (SELECT count(*) FROM tag)""").fetchone()
    log(f"seeded users={counts[0]} posts={counts[1]} post_tags={counts[2]} tags={counts[3]}")
    return author_id


# ---------------------------------------------------------------------------------------------
# The SQL constants of the generated code


def sql_constants() -> Dict[str, str]:
    """The three SQL texts, extracted from the generated Go and TypeScript at run time (and
    checked identical between the two)."""
    wanted = {"enqueueJob": "jobs", "claimJob": "jobs", "authorFeed": "blog"}
    out: Dict[str, str] = {}
    for name, lib in wanted.items():
        go_src = (GENERATED / lib / "go" / "queries.go").read_text()
        ts_src = (GENERATED / lib / "ts" / "queries.ts").read_text()
        go = re.search(r"(?m)^const " + name + r"SQL = `([^`]*)`", go_src)
        ts = re.search(r"(?m)^export const " + name + r"Sql = `([^`]*)`;", ts_src)
        if not go or not ts:
            raise SystemExit(f"cannot find the SQL constant of {name} in generated/{lib}")
        if go.group(1) != ts.group(1):
            raise SystemExit(f"generated Go and TypeScript disagree on the SQL of {name}")
        out[name] = go.group(1)
    return out


# ---------------------------------------------------------------------------------------------
# Building the two programs


def build_ts(work: Path) -> List[str]:
    node = shutil.which("node")
    tsc = TS_DIR / "node_modules" / ".bin" / "tsc"
    if not node or not tsc.exists():
        raise SystemExit(f"node and {tsc} are needed (run tests/run once)")
    proj = work / "ts"
    shutil.copytree(HERE / "ts", proj / "src")
    shutil.copytree(GENERATED / "jobs" / "ts", proj / "src" / "jobs")
    shutil.copytree(GENERATED / "blog" / "ts", proj / "src" / "blog")
    (proj / "node_modules").symlink_to(TS_DIR / "node_modules", target_is_directory=True)
    (proj / "package.json").write_text('{"private": true, "type": "module"}\n')
    options = {"target": "ES2022", "lib": ["ES2022"], "module": "NodeNext", "moduleResolution": "NodeNext",
               "strict": True, "noUncheckedIndexedAccess": True, "types": ["node"], "rootDir": "src",
               "outDir": "out", "noEmitOnError": True}
    (proj / "tsconfig.json").write_text(json.dumps({"compilerOptions": options, "include": ["src/**/*"]}))
    run([node, str(tsc), "-p", "tsconfig.json", "--pretty", "false"], cwd=proj, what="tsc")
    return [node, str(proj / "out" / "main.js")]


def build_go(work: Path) -> List[str]:
    go = shutil.which("go")
    if not go:
        raise SystemExit("go is not on PATH")
    mod = work / "go"
    mod.mkdir()
    shutil.copy2(GO_DIR / "go.mod", mod / "go.mod")
    shutil.copy2(GO_DIR / "go.sum", mod / "go.sum")
    shutil.copy2(HERE / "go" / "main.go", mod / "main.go")
    shutil.copytree(GENERATED / "jobs" / "go", mod / "jobs")
    shutil.copytree(GENERATED / "blog" / "go", mod / "blog")
    env = dict(os.environ, GOFLAGS=(os.environ.get("GOFLAGS", "") + " -mod=mod").strip(),
               GOPROXY=os.environ.get("SCHEMAC_BENCH_GOPROXY", "off"), GOSUMDB="off",
               GOTOOLCHAIN="local", GOWORK="off")
    run([go, "build", "-o", str(mod / "bench"), "."], cwd=mod, env=env, what="go build")
    return [str(mod / "bench")]


# ---------------------------------------------------------------------------------------------
# Measuring


def run_program(cmd: List[str], mode: str, config: Dict[str, Any], url: str, what: str) -> Dict[str, Any]:
    out = run([*cmd, mode, json.dumps(config)], env=dict(os.environ, DATABASE_URL=url), what=what)
    return json.loads(out.strip().splitlines()[-1])


def pg_stat_statements_ready(conn) -> bool:
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        conn.execute("SELECT count(*) FROM pg_stat_statements")
        return True
    except Exception as e:  # not preloaded, or no permission
        log(f"pg_stat_statements unavailable ({str(e).strip().splitlines()[0]})")
        return False


def count_statements(conn, cmd: List[str], config: Dict[str, Any], url: str, lang: str,
                     pgss: bool) -> Tuple[Dict[str, Any], List[Tuple[int, str]]]:
    server: List[Tuple[int, str]] = []
    if pgss:
        conn.execute("SELECT pg_stat_statements_reset()")
    result = run_program(cmd, "count", config, url, f"{lang} count")
    if pgss:
        server = conn.execute(
            """SELECT calls::int, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements
               WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND query NOT ILIKE '%%pg_stat_statements%%'
               ORDER BY query""").fetchall()
    return result, server


def explain_feed(conn, feed_sql: str, author_id: str, take: int) -> Tuple[str, bool]:
    """EXPLAIN ANALYZE of the feed; (text, seqscan_disabled)."""
    from psycopg import sql

    conn.execute("DEALLOCATE ALL")
    conn.execute("PREPARE bench_feed AS " + feed_sql)
    stmt = sql.SQL("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE bench_feed({}, {})").format(
        sql.Literal(author_id), sql.Literal(take))

    def plan() -> str:
        return "\n".join(r[0] for r in conn.execute(stmt).fetchall())

    text = plan()
    if all(ix in text for ix in ("ix_post_author_id", "post_tags_pkey")):
        return text, False
    conn.execute("SET enable_seqscan = off")
    try:
        return plan(), True
    finally:
        conn.execute("RESET enable_seqscan")


def fmt_row(cols: List[str], widths: List[int]) -> str:
    return "  ".join(c.rjust(w) if i >= 2 else c.ljust(w) for i, (c, w) in enumerate(zip(cols, widths)))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10000, help="enqueue+claim pairs per measurement")
    ap.add_argument("--posts", type=int, default=100, help="posts of the benchmarked author (the feed's size)")
    ap.add_argument("--feed-repeat", type=int, default=200, help="author_feed calls per measurement")
    ap.add_argument("--rounds", type=int, default=5, help="measurements per implementation (best is shown)")
    ap.add_argument("--warmup", type=int, default=-1, help="warm-up pairs (default min(500, --pairs))")
    ap.add_argument("--tags", type=int, default=10000,
                    help="tags in the blog (with few, the planner joins the tags by a seq scan per post)")
    ap.add_argument("--tags-per-post", type=int, default=3)
    ap.add_argument("--background-authors", type=int, default=1000,
                    help="other authors, so that the planner prefers the indexes")
    ap.add_argument("--background-posts", type=int, default=20, help="posts of each other author")
    ap.add_argument("--langs", default="ts,go", help="comma-separated: ts, go")
    ap.add_argument("--use-database", action="store_true",
                    help="use $DATABASE_URL's (empty) database as it is instead of a fresh one")
    ap.add_argument("--json", type=Path, help="also write the raw results here")
    args = ap.parse_args(argv)
    langs = [x for x in args.langs.split(",") if x]
    for lang in langs:
        if lang not in ("ts", "go"):
            ap.error(f"unknown language {lang!r}")

    sqls = sql_constants()
    with tempfile.TemporaryDirectory(prefix="schemac-bench-") as tmp:
        work = Path(tmp)
        builders = {"ts": build_ts, "go": build_go}
        programs = {}
        for lang in langs:
            log(f"building the {lang} program")
            programs[lang] = builders[lang](work)

        url = os.environ.get("DATABASE_URL", "")
        cluster = throwaway_cluster() if not url else None
        server_url = cluster.__enter__() if cluster else url
        try:
            with bench_database(server_url, args.use_database and bool(url)) as db_url:
                return bench(args, langs, programs, sqls, db_url)
        finally:
            if cluster:
                cluster.__exit__(None, None, None)


def bench(args, langs: List[str], programs: Dict[str, List[str]], sqls: Dict[str, str], url: str) -> int:
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    author_id = seed(conn, args)
    pgss = pg_stat_statements_ready(conn)
    config = {"pairs": args.pairs, "authorId": author_id, "take": args.posts, "feedRepeat": args.feed_repeat,
              "rounds": args.rounds, "warmup": args.warmup, "sql": sqls}
    names = {"ts": "TypeScript (node-postgres)", "go": "Go (pgx v5)"}

    # 1. The nested select is one statement.
    print("== statements per call (driver-level count; pg_stat_statements on the server) ==")
    for lang in langs:
        res, server = count_statements(conn, programs[lang], config, url, lang, pgss)
        print(f"{names[lang]}: enqueueJob+claimJob = {res['pairStatements']} statements; "
              f"authorFeed = {res['feedStatements']} statement(s) for {res['feedRows']} posts "
              f"with {res['feedTags']} nested tags")
        if res["feedStatements"] != 1:
            raise SystemExit(f"{lang}: authorFeed sent {res['feedStatements']} statements")
        if pgss:
            print("  pg_stat_statements after one enqueue+claim pair and one authorFeed (calls, query):")
            for calls, query in server:
                print(f"    {calls:>3}  {query[:150]}{'...' if len(query) > 150 else ''}")
            feed_calls = sum(c for c, q in server if q.startswith('SELECT "id", "title"'))
            if feed_calls != 1:
                raise SystemExit(f"{lang}: pg_stat_statements counted {feed_calls} feed statements")
    if not pgss:
        print("  (pg_stat_statements is not loaded on this server: driver-level counts only)")

    # 2. The indexes the schema declares are used.
    plan, forced = explain_feed(conn, sqls["authorFeed"], author_id, args.posts)
    print()
    print("== EXPLAIN ANALYZE of author_feed ==")
    if forced:
        print("NOTE: with this little data the planner prefers sequential scans; the plan below is "
              "under an explicit SET enable_seqscan = off.")
    else:
        print("(default planner settings; enable_seqscan is on)")
    print(plan)
    used = [ix for ix in FEED_INDEXES if ix in plan]
    print(f"indexes used: {', '.join(used) or 'none'}")

    # 3. Timings.
    results: Dict[str, Any] = {}
    for lang in langs:
        log(f"timing {lang}: {args.rounds} rounds of {args.pairs} pairs and {args.feed_repeat} feeds")
        res = run_program(programs[lang], "bench", config, url, f"{lang} bench")
        if res.get("sql") and res["sql"] != sqls:
            raise SystemExit(f"{lang}: the program's SQL differs from the generated Go constants")
        results[lang] = res
    conn.close()

    print()
    print(f"== generated runner vs hand-written driver calls (same SQL text), best of {args.rounds} rounds ==")
    print(f"machine: {os.cpu_count()} cores, shared with the Postgres server and other load "
          "(numbers are noisy; ratios within a few % are noise)")
    header = ["workload", "language", "generated s", "hand-written s", "ratio", "median ratio", "target"]
    rows = []
    workloads = {"pairs": f"{args.pairs} enqueueJob+claimJob",
                 "feed": f"author_feed x{args.feed_repeat} ({args.posts} posts)"}
    for wl, label in workloads.items():
        for lang in langs:
            g, h = results[lang][wl]["generated"], results[lang][wl]["hand"]
            ratio = min(g) / min(h)
            median_ratio = statistics.median(g) / statistics.median(h)
            rows.append([label, lang, f"{min(g):.3f}", f"{min(h):.3f}", f"{ratio:.3f}", f"{median_ratio:.3f}",
                         "ok" if ratio <= TARGET_RATIO else "OVER"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(fmt_row(header, widths))
    print(fmt_row(["-" * w for w in widths], widths))
    for r in rows:
        print(fmt_row(r, widths))
    print(f"(ratio = generated / hand-written, target <= {TARGET_RATIO}; all rounds:)")
    for lang in langs:
        for wl in workloads:
            g, h = results[lang][wl]["generated"], results[lang][wl]["hand"]
            print(f"  {lang} {wl}: generated {' '.join(f'{x:.3f}' for x in g)} | "
                  f"hand-written {' '.join(f'{x:.3f}' for x in h)}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "raw": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
