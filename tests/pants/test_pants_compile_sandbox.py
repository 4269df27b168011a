"""The compile is a process a remote worker can run as it is (issue 29): the exact process Pants
builds for a library (`SchemacCompileProcess`) runs in an empty sandbox -- a fresh mount and
user namespace (`unshare`) whose root holds only the process's declared inputs, empty named
caches, and the platform (the OS's /usr and the CPython 3.9 the process names) -- and writes
byte-identical output to Pants' own run. No repository, Pants venv, home directory or filled
cache is visible to it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest
from pants.engine.addresses import Address
from pants.engine.fs import Digest, DigestContents
from pants.engine.target import HydratedSources, HydrateSourcesRequest
from pants.testutil.rule_runner import QueryRule

from schemac_pants.rules import (CompiledSchemaLibrary, CompileSchemaLibraryRequest, SchemacCompileProcess)
from schemac_pants.target_types import SchemaLibrarySourcesField

from test_pants_codegen_rules import _rule_runner, _write_jobs_library, pants_options  # noqa: F401


def _platform_paths(process) -> Tuple[str, ...]:
    """Absolute host paths the process names (argv, env): only the interpreter's installation
    may be among them (the platform a worker provides), nothing of this machine's checkout."""
    found = []
    for value in (*process.argv, *process.env.values()):
        for part in str(value).replace(":", " ").replace("=", " ").split():
            if part.startswith("/"):
                found.append(part)
    return tuple(found)


PYTHON39_HOME = Path(os.path.join(sys.base_prefix))  # the CPython 3.9 installation (pyenv's)


def _contents(rr, digest: Digest) -> Dict[str, bytes]:
    return {fc.path: fc.content for fc in rr.request(DigestContents, [digest])}


@pytest.mark.slow
def test_the_compile_process_runs_in_an_empty_sandbox(pants_options, tmp_path: Path) -> None:  # noqa: F811
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-r", "-m", "true"]).returncode != 0:
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("unshare with user and mount namespaces is needed")
        pytest.skip("no user/mount namespaces here")
    # The settings that make the process name no host path but the interpreter's (README,
    # "Remote execution"): PEX's PATH and the bootstrap interpreter pinned.
    rr = _rule_runner((*pants_options, f"--python-bootstrap-search-path=['{PYTHON39_HOME / 'bin'}']",
                       "--pex-executable-search-paths=['/usr/bin', '/bin']"))
    _write_jobs_library(rr)
    tgt = rr.get_target(Address("schemas/jobs"))
    snapshot = rr.request(HydratedSources, [HydrateSourcesRequest(tgt[SchemaLibrarySourcesField])]).snapshot
    request = CompileSchemaLibraryRequest.from_target(tgt, snapshot)
    process = rr.request(SchemacCompileProcess, [request]).process
    want = _contents(rr, rr.request(CompiledSchemaLibrary, [request]).digest)  # Pants' own run
    assert want and all(p.startswith("schemas/jobs/") for p in want)

    # Every host path the process names, in its argv, env and input files, is the platform's.
    assert not dict(process.immutable_input_digests)
    assert process.working_directory is None
    inputs = _contents(rr, process.input_digest)
    named = set()
    for text in [*process.argv, *process.env.values(), *(c.decode("utf-8", "replace") for p, c in inputs.items()
                                                         if not p.endswith((".pyc", ".pex")))]:
        named.update(w for w in text.replace(":", " ").replace("=", " ").replace('"', " ").split()
                     if w.startswith(("/root", "/home", "/work", "/tmp", str(Path.home()))))
    # The platform: the CPython 3.9 the compiler runs on (PEX_PYTHON) and the interpreter that
    # starts the PEX, which in a local environment is Pants' own (`sys.executable`; in a remote
    # environment Pants uses python-build-standalone from a named cache instead).
    platform = (str(PYTHON39_HOME), sys.executable)
    assert all(p.startswith(platform) for p in named), sorted(p for p in named if not p.startswith(platform))
    assert any(p.startswith(str(PYTHON39_HOME)) for p in named)
    assert str(Path(rr.build_root)) not in str(process.argv) + str(dict(process.env))

    # The sandbox: the declared inputs, empty named caches, nothing else of this machine.
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    rr.write_digest(process.input_digest, path_prefix="sandbox-inputs")
    shutil.copytree(Path(rr.build_root) / "sandbox-inputs", sandbox / "s", symlinks=True)
    for name, rel in dict(process.append_only_caches).items():
        (sandbox / "s" / rel).mkdir(parents=True, exist_ok=True)
    env = " ".join(f"{k}='{v}'" for k, v in dict(process.env).items())
    argv = " ".join(f"'{a}'" for a in process.argv)
    root = tmp_path / "root"
    script = f"""
set -e
mount -t tmpfs none {root}
mkdir -p {root}/usr {root}/s {root}/dev {root}/tmp {root}{PYTHON39_HOME}
mount --rbind /usr {root}/usr
ln -s usr/bin {root}/bin; ln -s usr/lib {root}/lib; ln -s usr/lib64 {root}/lib64; ln -s usr/sbin {root}/sbin
mount --bind {sandbox / 's'} {root}/s
mount --bind -o ro {PYTHON39_HOME} {root}{PYTHON39_HOME}
mkdir -p {root}{os.path.dirname(sys.executable)}
ln -s {PYTHON39_HOME}/bin/python3.9 {root}{sys.executable}
touch {root}/dev/null && mount --bind /dev/null {root}/dev/null
touch {root}/dev/urandom && mount --bind /dev/urandom {root}/dev/urandom
exec chroot {root} /usr/bin/env -i {env} /bin/sh -c 'cd /s && exec {argv}'
"""
    root.mkdir()
    proc = subprocess.run(["unshare", "-r", "-m", "sh", "-c", script], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = sandbox / "s" / process.output_directories[0]
    got = {f"schemas/jobs/{p.relative_to(out)}": p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert got == want
