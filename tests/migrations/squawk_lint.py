"""squawk, the Postgres migration linter, over migration files (tests/squawk/setup installs the
pinned binary; tests/run exports SCHEMAC_SQUAWK). Each file is linted with the config for its
kind: /.squawk.toml for transactional up files, tests/squawk/down.toml for down files,
tests/squawk/no-transaction.toml for files marked ``-- schemac:no-transaction``."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
CONFIGS = {
    "up": REPO / ".squawk.toml",
    "down": REPO / "tests" / "squawk" / "down.toml",
    "no-transaction": REPO / "tests" / "squawk" / "no-transaction.toml",
}
_LINE = re.compile(r"^(.*?):(\d+):(\d+): (warning|error):? ([a-z0-9-]+)\b(.*)$")


def squawk_binary() -> Optional[str]:
    path = os.environ.get("SCHEMAC_SQUAWK") or str(REPO / "tests/.cache/squawk-venv/bin/squawk")
    return path if os.path.exists(path) else None


def kind_of(path: Path) -> str:
    head = path.read_text(encoding="utf-8").split("\n", 8)[:8]
    if any(line.startswith("-- schemac:no-transaction") for line in head):
        return "no-transaction"
    return "down" if path.name.endswith(".down.sql") else "up"


def lint(paths: Iterable[Path]) -> List[Tuple[str, str, str]]:
    """``(file:line:col, rule, message)`` for every squawk warning over ``paths``."""
    binary = squawk_binary()
    if binary is None:
        raise RuntimeError("squawk is not installed (tests/squawk/setup; tests/run does it)")
    groups: Dict[str, List[str]] = {}
    for p in paths:
        groups.setdefault(kind_of(Path(p)), []).append(str(p))
    out: List[Tuple[str, str, str]] = []
    for kind, files in sorted(groups.items()):
        for i in range(0, len(files), 200):
            proc = subprocess.run([binary, "-c", str(CONFIGS[kind]), "--reporter", "gcc", *files[i:i + 200]],
                                  capture_output=True, text=True, timeout=300)
            found = [m for m in map(_LINE.match, proc.stdout.splitlines()) if m]
            if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
                raise RuntimeError(f"squawk failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
            out += [(f"{m.group(1)}:{m.group(2)}:{m.group(3)}", m.group(5), m.group(6).strip()) for m in found]
    return out
