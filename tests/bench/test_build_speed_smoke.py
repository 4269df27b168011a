"""Keeps tests/bench/build_speed.py from rotting without running Pants (a real N=1 run of the
benchmark takes minutes): the synthetic repo it builds, its baseline plugin, the libraries (each
compiles in-process, also after the benchmark's edit) and the report. No timing assertions."""

from __future__ import annotations

import ast

from build_speed import (
    COMPILE_DESCRIPTION,
    TRIVIAL_DESCRIPTION,
    Measured,
    SizeResult,
    edit_one_library,
    load_json,
    make_repo,
    report,
    save_json,
)
from test_pants_export_codegen_e2e import PantsRun

from schemac.semantics.library import Options
from schemac.pipeline import compile_library


def _library_sources(lib_dir):
    return {
        str(p.relative_to(lib_dir)): p.read_text()
        for p in lib_dir.rglob("*")
        if p.suffix in (".esdl", ".edgeql")
    }


def test_synthetic_repo(tmp_path):
    repo = make_repo(tmp_path / "repo", 3)
    for name in ("pants", "pants.toml", "BUILD", "pants-plugins/schemac_pants/rules.py", ".ci/go121.sh"):
        assert (repo / name).exists(), name
    toml = (repo / "pants.toml").read_text()
    assert '"bench_baseline",' in toml and '"schemac_pants",' in toml
    ast.parse((repo / "pants-plugins/bench_baseline/register.py").read_text())
    libs = sorted(p.name for p in (repo / "schemas").iterdir())
    assert libs == ["lib000", "lib001", "lib002"]
    assert 'schema_library(name="lib001"' in (repo / "schemas/lib001/BUILD").read_text()
    assert (repo / "baseline/trivial/t002/BUILD").read_text().startswith("bench_trivial(")
    assert (repo / "baseline/python/t000/BUILD").read_text().startswith("bench_python(")
    # Distinct libraries (one seed each), each a few types and queries, all compiling.
    sources = [_library_sources(repo / "schemas" / lib) for lib in libs]
    assert sources[0] != sources[1]
    for lib, src in zip(libs, sources):
        assert sum(p.endswith(".edgeql") for p in src) == 8
        out = compile_library(src, Options(library=lib))
        assert "sql/000001_init.up.sql" in out and "ts/queries.ts" in out
    # The benchmark's edit is a real schema change that still compiles.
    edit_one_library(repo, 1)
    edited = _library_sources(repo / "schemas/lib000")
    assert edited != sources[0]
    out = compile_library(edited, Options(library="lib000"))
    assert 'CREATE TABLE "bench_edit1"' in out["sql/000001_init.up.sql"]


def _fake_run(seconds, compiles=0, hits=0, trivial=0):
    lines = [f'x spawned local process as Some(1) for Process {{ description: "{COMPILE_DESCRIPTION} schemas/lib{i:03d}:lib{i:03d}" }}'
             for i in range(compiles)]
    lines += [f'x remote cache hit for: "{COMPILE_DESCRIPTION} schemas/lib{i:03d}:lib{i:03d}" digest=1'
              for i in range(hits)]
    lines += [f'x spawned local process as Some(1) for Process {{ description: "{TRIVIAL_DESCRIPTION} t{i}" }}'
              for i in range(trivial)]
    lines += ["Counters:", "  local_execution_requests: 5", "  local_process_total_time_run_ms: 1200"]
    return PantsRun([], "", "\n".join(lines) + "\n", seconds)


def test_report_renders(tmp_path):
    results = []
    for n, scale in ((1, 1.0), (10, 2.0)):
        r = SizeResult(n)
        for key, run in (("cold", _fake_run(20 * scale, compiles=n)), ("warm", _fake_run(12)),
                         ("edit 1", _fake_run(14, compiles=1)),
                         ("remote", _fake_run(15 * scale, hits=n)),
                         ("trivial", _fake_run(13 * scale, trivial=n)),
                         ("python", _fake_run(14 * scale))):
            r.runs[key] = Measured(key, run, [run.seconds], [1.0])
        results.append(r)
    text = report(results, 0.9, 30.0)
    assert "| 10 | 40.0s" in text
    assert "(1 compile)" in text and "(10 hits, 0 local)" in text
    assert "Marginal cost per library" in text and "Where a cold compile's time goes" in text
    assert "Checks: all passed" in text
    # --json / --from-json: the saved figures give the same report.
    save_json(tmp_path / "bench.json", results, 0.9, 30.0)
    again, cli, priming = load_json(tmp_path / "bench.json")
    assert report(again, cli, priming) == text
