"""Backend `schemac_pants.javascript` under Pants' RuleRunner (a fake compiler, the real rules).

A `schema_library`'s generated TypeScript must reach what Pants' JavaScript rules hydrate (a
`javascript_test`'s sandbox: `JSSourceField` + `file`/`resource`; a package with its sources:
`package.json`, `file`, `resource`, `JSSourceField`), but not the `npm clean-install` step
(`package.json` + `file`), and no request may see two generators for the library
(`AmbiguousCodegenImplementationsException`). `export-codegen` still writes each file once.
The end-to-end use is tests/pants/test_pants_ts_consumer.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Dict, Tuple, Type

import pytest
import toml
from pants.backend.codegen import export_codegen_goal
from pants.backend.codegen.export_codegen_goal import ExportCodegen
from pants.backend.javascript.package_json import PackageJsonSourceField
from pants.backend.javascript.target_types import JSSourceField
from pants.core.target_types import AssetSourceField, FileSourceField, ResourceSourceField
from pants.core.util_rules import distdir
from pants.engine.addresses import Address
from pants.engine.fs import Digest, DigestContents, FileContent
from pants.engine.target import HydratedSources, HydrateSourcesRequest, SourcesField
from pants.testutil.rule_runner import QueryRule, RuleRunner

from schemac_pants import register
from schemac_pants import rules as schemac_rules
from schemac_pants.javascript import register as javascript_register
from schemac_pants.javascript.rules import SchemaTypeScriptForNodeSourceField
from schemac_pants.rules import COMPILER_DIR
from schemac_pants.target_types import SchemaLibrarySourcesField

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_INHERIT = {"PATH", "PYENV_ROOT", "HOME"}

# Writes one file per output kind, like the real compiler's layout (fast: no parsing).
FAKE_COMPILER = """
import os, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
for kind, name in (("sql", "000001_init.up.sql"), ("ts", "index.ts"), ("ts", "queries.ts"),
                   ("go", "db.go")):
    os.makedirs(os.path.join(out, kind), exist_ok=True)
    with open(os.path.join(out, kind, name), "w") as f:
        f.write(kind + ":" + name + "\\n")
"""


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    for k in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(k, None)
    return env


@pytest.fixture(scope="module")
def pants_options() -> Tuple[str, ...]:
    """The pex CLI options of pants.toml (./pants builds and pins the pex CLI in .tools/)."""
    subprocess.run(
        [str(REPO_ROOT / "pants")],
        env={**_clean_env(), "SCHEMAC_PANTS_SETUP_ONLY": "1"},
        cwd=REPO_ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=900,
    )
    cfg = toml.load(REPO_ROOT / "pants.toml")
    pex_cli = cfg["pex-cli"]
    ca_certs = cfg["GLOBAL"].get("ca_certs_path")
    return (
        *([f"--ca-certs-path={ca_certs}"] if ca_certs and os.path.exists(ca_certs) else []),
        f"--pex-cli-version={pex_cli['version']}",
        f"--pex-cli-url-template=file://{REPO_ROOT}/.tools/pex-{{version}}.pex",
        f"--pex-cli-known-versions={json.dumps(pex_cli['known_versions'])}",
    )


@pytest.fixture
def rule_runner(pants_options: Tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> RuleRunner:
    monkeypatch.setattr(
        schemac_rules,
        "read_compiler_files",
        lambda: (
            FileContent(f"{COMPILER_DIR}/schemac/__init__.py", b""),
            FileContent(f"{COMPILER_DIR}/schemac/__main__.py", FAKE_COMPILER.encode()),
        ),
    )
    rr = RuleRunner(
        rules=[
            *register.rules(),
            *javascript_register.rules(),
            *export_codegen_goal.rules(),
            *distdir.rules(),
            QueryRule(HydratedSources, [HydrateSourcesRequest]),
            QueryRule(DigestContents, [Digest]),
        ],
        target_types=[*register.target_types(), *javascript_register.target_types()],
    )
    rr.set_options(list(pants_options), env_inherit=ENV_INHERIT)
    rr.write_files(
        {
            "schemas/jobs/schema.esdl": "type Job { required name: str; }\n",
            "schemas/jobs/BUILD": "schema_library()\n",
        }
    )
    return rr


def _hydrate(rr: RuleRunner, *types: Type[SourcesField]) -> Tuple[HydratedSources, Dict[str, bytes]]:
    tgt = rr.get_target(Address("schemas/jobs"))
    hydrated = rr.request(
        HydratedSources,
        [HydrateSourcesRequest(tgt[SchemaLibrarySourcesField], for_sources_types=types, enable_codegen=True)],
    )
    contents = rr.request(DigestContents, [hydrated.snapshot.digest])
    return hydrated, {fc.path: fc.content for fc in contents}


TS_FILES = ["schemas/jobs/ts/index.ts", "schemas/jobs/ts/queries.ts"]


def test_javascript_rules_see_the_generated_typescript_only(rule_runner: RuleRunner) -> None:
    # What a javascript_test hydrates (and a package's sources for a node_build_script).
    for types in (
        (JSSourceField, AssetSourceField),
        (PackageJsonSourceField, FileSourceField, ResourceSourceField, JSSourceField),
        (SchemaTypeScriptForNodeSourceField,),
    ):
        hydrated, files = _hydrate(rule_runner, *types)
        assert sorted(files) == TS_FILES, types
        assert files["schemas/jobs/ts/index.ts"] == b"ts:index.ts\n"
    # What `npm clean-install` hydrates, and what Python/shell-style consumers ask for: nothing
    # (the SQL output has its own type, not file/resource), and no ambiguity.
    for types in ((PackageJsonSourceField, FileSourceField), (FileSourceField, ResourceSourceField)):
        hydrated, files = _hydrate(rule_runner, *types)
        assert files == {}, types
        assert hydrated.sources_type is None


def test_export_codegen_writes_each_file_once(
    rule_runner: RuleRunner, pants_options: Tuple[str, ...]
) -> None:
    result = rule_runner.run_goal_rule(
        ExportCodegen, global_args=pants_options, args=["::"], env_inherit=ENV_INHERIT
    )
    assert result.exit_code == 0
    dist = Path(rule_runner.build_root, "dist", "codegen")
    exported = sorted(str(p.relative_to(dist)) for p in dist.rglob("*") if p.is_file())
    assert exported == sorted(
        ["schemas/jobs/sql/000001_init.up.sql", "schemas/jobs/go/db.go", *TS_FILES]
    ), textwrap.shorten(str(exported), 500)
