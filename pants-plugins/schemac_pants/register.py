"""Backend entry point of the schemac Pants plugin (`backend_packages = ["schemac_pants"]`).

Registers the `schema_library` target type, the `[schemac]` subsystem and the code generators
for SQL, TypeScript and Go, which `export-codegen` (and, later, downstream consumers) use, and the
formatter of schema and query files for `fmt` / `lint` (`schemac_pants.fmt`). It needs
no other backend: the PEX machinery that runs the compiler is registered by `rules.rules()`.
Consumers in other languages (Go through Pants' Go backend, TypeScript/JS) belong in separate
backends so that this one keeps working without them.
"""

from schemac_pants import fmt as schemac_fmt
from schemac_pants import migrations as schemac_migrations
from schemac_pants import rules as schemac_rules
from schemac_pants import subsystem as schemac_subsystem
from schemac_pants import tailor as schemac_tailor
from schemac_pants import target_types as schemac_target_types


def target_types():
    return schemac_target_types.target_types()


def rules():
    return [
        *schemac_target_types.rules(),
        *schemac_subsystem.rules(),
        *schemac_rules.rules(),
        *schemac_tailor.rules(),
        *schemac_migrations.rules(),
        *schemac_fmt.rules(),
    ]
