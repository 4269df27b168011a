"""Gel's auth extension (tests/cases/gel_auth) end to end on Postgres 15, through the generated
runners: the ext::auth data model as tables (identities imported with issuer and subject, the
exclusive (issuer, subject), Auditable's timestamps, LocalIdentity's subject rewrite, a password
factor deleted with its local identity) and the global ``ext::auth::identity_id`` the
application supplies, read as ``global ext::auth::ClientTokenIdentity`` in a computed global,
a filter, a link default and access policies. The TypeScript compiles under tsc --strict and
runs on node-postgres; the Go is gofmt/vet-clean and runs on pgx."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_auth" / "expected"


@pytest.mark.slow
def test_typescript_gel_auth(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_auth_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "identities": True, "clientTokenIdentity": True, "linkDefault": True, "policies": True,
        "localIdentity": True}


@pytest.mark.slow
def test_go_gel_auth(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "gel_auth")
    shutil.copytree(HERE / "gel_auth_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestGelAuth" in result.test.stdout
