"""Pants conventions: `pants tailor` proposes `schema_library` targets; `pants help schema_library`
documents every field with its default and an example.

The tailor tests run the real `tailor` goal under RuleRunner (in-process, a few seconds); the help
test runs `./pants --no-pantsd help schema_library` as a subprocess (slow).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict

import pytest
from pants.core.goals import tailor
from pants.core.goals.tailor import AllOwnedSources, PutativeTarget, PutativeTargets, TailorGoal
from pants.engine.addresses import Address
from pants.engine.rules import QueryRule
from pants.testutil.rule_runner import RuleRunner

from schemac_pants import register
from schemac_pants.tailor import PutativeSchemaLibraryTargetsRequest, group_by_library, library_dir
from schemac_pants.target_types import SchemaLibraryTarget

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "type Job {\n  required name: str;\n}\n"
QUERY = "insert Job { name := $name };\n"


@pytest.fixture
def rule_runner() -> RuleRunner:
    return RuleRunner(
        rules=[
            *register.rules(),
            *tailor.rules(),
            QueryRule(PutativeTargets, (PutativeSchemaLibraryTargetsRequest, AllOwnedSources)),
        ],
        target_types=register.target_types(),
    )


def test_library_dir() -> None:
    assert library_dir("schemas/jobs/schema.esdl") == "schemas/jobs"
    assert library_dir("schemas/jobs/queries/enqueue.edgeql") == "schemas/jobs"
    assert library_dir("schemas/jobs/extra.edgeql") == "schemas/jobs"
    # Only query files in queries/ belong to the parent; a schema there is its own library.
    assert library_dir("schemas/queries/schema.esdl") == "schemas/queries"
    assert library_dir("schema.esdl") == ""


def test_group_by_library_needs_a_schema_file() -> None:
    groups = group_by_library(
        [
            "a/schema.esdl",
            "a/queries/q.edgeql",
            "a/x.edgeql",
            "b/queries/only_queries.edgeql",  # no unowned schema: no library proposed
            "c/only.edgeql",
            "d/default.gel",  # Gel 6's suffix
            "d/queries/q.edgeql",
        ]
    )
    assert groups == {"a": ["queries/q.edgeql", "schema.esdl", "x.edgeql"],
                      "d": ["default.gel", "queries/q.edgeql"]}


def test_putative_targets(rule_runner: RuleRunner) -> None:
    rule_runner.write_files(
        {
            "schemas/jobs/schema.esdl": SCHEMA,
            "schemas/jobs/queries/enqueue.edgeql": QUERY,
            "schemas/billing/a.esdl": SCHEMA,
            "schemas/billing/b.esdl": SCHEMA,
            "dbschema/default.gel": SCHEMA,
            "dbschema/queries/q.edgeql": QUERY,
            # Owned by a target whose sources leave the new query out: no second library.
            "schemas/owned/BUILD": 'schema_library(sources=["schema.esdl"])\n',
            "schemas/owned/schema.esdl": SCHEMA,
            "schemas/owned/queries/new.edgeql": QUERY,
            "docs/readme.txt": "not a schema",
        }
    )
    pts = rule_runner.request(
        PutativeTargets,
        [
            PutativeSchemaLibraryTargetsRequest(
                (
                    "schemas/jobs",
                    "schemas/jobs/queries",
                    "schemas/billing",
                    "schemas/owned",
                    "schemas/owned/queries",
                    "docs",
                    "dbschema",
                    "dbschema/queries",
                )
            ),
            AllOwnedSources(["schemas/owned/schema.esdl"]),
        ],
    )
    assert pts == PutativeTargets(
        [
            PutativeTarget.for_target_type(
                SchemaLibraryTarget,
                path="dbschema",
                name=None,
                triggering_sources=["default.gel", "queries/q.edgeql"],
            ),
            PutativeTarget.for_target_type(
                SchemaLibraryTarget,
                path="schemas/billing",
                name=None,
                triggering_sources=["a.esdl", "b.esdl"],
            ),
            PutativeTarget.for_target_type(
                SchemaLibraryTarget,
                path="schemas/jobs",
                name=None,
                triggering_sources=["queries/enqueue.edgeql", "schema.esdl"],
            ),
        ]
    )


def test_tailor_option_off(rule_runner: RuleRunner) -> None:
    rule_runner.write_files({"schemas/jobs/schema.esdl": SCHEMA})
    rule_runner.set_options(["--no-schemac-tailor"])
    pts = rule_runner.request(
        PutativeTargets,
        [PutativeSchemaLibraryTargetsRequest(("schemas/jobs",)), AllOwnedSources([])],
    )
    assert pts == PutativeTargets()


def test_tailor_goal_writes_build_files_that_own_everything(rule_runner: RuleRunner) -> None:
    rule_runner.write_files(
        {
            "schemas/jobs/schema.esdl": SCHEMA,
            "schemas/jobs/queries/enqueue.edgeql": QUERY,
            "schemas/done/BUILD": 'schema_library(go_package="done")\n',
            "schemas/done/schema.esdl": SCHEMA,
        }
    )
    result = rule_runner.run_goal_rule(TailorGoal, args=["::"])
    assert result.exit_code == 0, result.stderr
    build = Path(rule_runner.build_root, "schemas/jobs/BUILD").read_text()
    assert build.strip() == "schema_library(\n    name=\"jobs\",\n)" or build.strip() == "schema_library()", build
    assert Path(rule_runner.build_root, "schemas/done/BUILD").read_text() == (
        'schema_library(go_package="done")\n'
    )
    # The new target owns the schema and its queries (default sources), so a second run
    # proposes nothing.
    # (Written by the goal: tell the engine, whose file watcher may not have seen it yet.)
    rule_runner.write_files({"schemas/jobs/BUILD": build})
    tgt = rule_runner.get_target(Address("schemas/jobs"))
    assert tgt.alias == "schema_library"
    again = rule_runner.run_goal_rule(TailorGoal, args=["--check", "::"])
    assert again.exit_code == 0, again.stdout + again.stderr


# -----------------------------------------------------------------------------------------------
# ./pants help schema_library


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    for k in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(k, None)
    return env


# The fields schemac defines (the others, `description` and `tags`, are Pants' own);
# `go_mod_address` comes with the schemac_pants.go backend.
OWN_FIELDS = ("dependencies", "go_driver", "go_import_path", "go_mod_address", "go_package", "sources",
              "ts_int64", "ts_module")


@pytest.mark.slow
def test_help_documents_every_field_with_default_and_example() -> None:
    proc = subprocess.run(
        [str(REPO_ROOT / "pants"), "--no-pantsd", "help", "schema_library"],
        cwd=REPO_ROOT,
        env=_clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Valid fields:" in out, out
    # Field sections: an unindented name, then indented lines up to the next unindented line.
    sections = dict(
        (m.group(1), m.group(2))
        for m in re.finditer(r"(?m)^(\w+)\n((?:    .*\n|\n)+)", out.split("Valid fields:", 1)[1])
    )
    own = [f for f in OWN_FIELDS if f in sections]
    assert own == list(OWN_FIELDS), sorted(sections)
    for name in sections:
        if name in ("description", "tags"):
            continue
        text = " ".join(sections[name].split())
        assert "default:" in text, (name, text)
        assert "Default:" in text, f"{name}: the help text does not state the default\n{text}"
        assert re.search(rf"Example: `{name}=", text), f"{name}: no `Example: {name}=...`\n{text}"


@pytest.mark.slow
def test_tailor_check_passes_on_this_repo() -> None:
    """Every library of the repo has its target; golden-test inputs are ignored ([tailor])."""
    proc = subprocess.run(
        [str(REPO_ROOT / "pants"), "--no-pantsd", "tailor", "--check", "::"],
        cwd=REPO_ROOT,
        env=_clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -----------------------------------------------------------------------------------------------
# Default sources


def test_default_sources_find_a_gel_projects_dbschema() -> None:
    """A `schema_library()` next to `gel.toml` owns `dbschema/default.gel` (where every Gel project
    keeps its schema, https://docs.geldata.com/reference/using/projects) and other schema files of
    `dbschema/`, but not Gel's own `dbschema/migrations/*.edgeql`."""
    from pants.engine.target import SourcesPaths, SourcesPathsRequest

    from schemac_pants.target_types import SchemaLibrarySourcesField

    rule_runner = RuleRunner(
        rules=[*register.rules(), QueryRule(SourcesPaths, (SourcesPathsRequest,))],
        target_types=register.target_types(),
    )
    rule_runner.write_files(
        {
            "app/BUILD": "schema_library()\n",
            "app/gel.toml": "[instance]\nserver-version = \"6.0\"\n",
            "app/dbschema/default.gel": "module default { " + SCHEMA + " }\n",
            "app/dbschema/extra.esdl": "module default { type Tag { required name: str; } }\n",
            "app/dbschema/migrations/00001-m1abc.edgeql": "CREATE MIGRATION m1abc ONTO initial {};\n",
            "app/queries/enqueue.edgeql": QUERY,
            "app/src/other.edgeql": QUERY,
        }
    )
    tgt = rule_runner.get_target(Address("app"))
    paths = rule_runner.request(SourcesPaths, [SourcesPathsRequest(tgt[SchemaLibrarySourcesField])])
    assert sorted(paths.files) == ["app/dbschema/default.gel", "app/dbschema/extra.esdl", "app/queries/enqueue.edgeql"]
