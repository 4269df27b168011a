"""Backend `schemac_pants.javascript`: Node.js packages that compile a `schema_library`'s TypeScript.

Enable it next to `schemac_pants` and Pants' JavaScript backend:

    backend_packages = ["pants.backend.experimental.javascript", "schemac_pants",
                        "schemac_pants.javascript"]

Pants 2.17 has no TypeScript target type: its JavaScript rules put into a `javascript_test`'s
sandbox (and a `node_build_script`'s) only sources of type `JSSourceField`, `file` and `resource`,
generated ones included. This backend adds one generator, from a `schema_library` to a
`JSSourceField` subtype, so that a JavaScript target depending on the library (explicitly:
generated files have no owners, so import inference cannot find them) gets the generated
`<dir>/ts/*.ts` files in its sandbox, for the package's own `tsc` to compile. The core backend
`schemac_pants` works without this one.
"""

from schemac_pants.javascript import rules as javascript_rules


def target_types():
    return []


def rules():
    return [*javascript_rules.rules()]
