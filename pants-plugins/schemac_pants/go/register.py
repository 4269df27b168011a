"""Backend `schemac_pants.go`: Go code that imports a `schema_library`'s generated package.

Enable it next to `schemac_pants` and Pants' Go backend:

    backend_packages = ["pants.backend.experimental.go", "schemac_pants", "schemac_pants.go"]

A `schema_library` with a `go_import_path` is then a Go package to Pants: first-party Go that
imports that path depends on the library by inference, and Pants' Go backend compiles the generated
package (its third-party imports, e.g. pgx, resolved from the owning `go_mod`, see the
`go_mod_address` field). The core backend `schemac_pants` works without this one.
"""

from schemac_pants.go import rules as go_rules


def target_types():
    return []


def rules():
    return [*go_rules.rules()]
