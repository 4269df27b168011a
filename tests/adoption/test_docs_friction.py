"""Docs a new user followed (issue 29, item 9): where the README sends them for an option
must show it. `./pants help <scope>` lists the basic options only; advanced ones (the pinned
requirements, the interpreter) are under `./pants help-advanced <scope>`."""

from __future__ import annotations

import re
from pathlib import Path

from pants.option.option_types import _OptionBase  # type: ignore[attr-defined]

from schemac_pants.subsystem import SchemacSubsystem

REPO = Path(__file__).resolve().parents[2]


def _advanced(subsystem) -> dict:
    out = {}
    for name, option in vars(subsystem).items():
        if isinstance(option, _OptionBase):
            out[name] = bool(option._extra_kwargs.get("advanced"))
    return out


def test_the_readme_sends_readers_to_the_help_that_shows_the_pins():
    advanced = _advanced(SchemacSubsystem)
    assert advanced["requirements"] and advanced["interpreter_constraints"]
    readme = (REPO / "README.md").read_text()
    # Every sentence that mentions the pinned versions names the help command that lists them.
    sentences = [s for s in re.split(r"(?<=[.)])\s+", readme) if "pinned" in s and "./pants help" in s]
    assert sentences
    for s in sentences:
        assert "./pants help-advanced schemac" in s, s
