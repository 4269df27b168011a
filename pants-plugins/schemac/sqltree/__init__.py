"""A syntax tree of the Postgres SQL the compiler writes (:mod:`.nodes`) and its one printer
(:mod:`.printer`). The lowering (``schemac.semantics.lowering``) builds statements as these
nodes; parameter numbers, aliases and placeholders are nodes too, so a statement is never
patched as text.

**Architecture invariant:** this package knows Postgres' syntax and nothing of Gel, the schema
or the query IR: it imports no other package of schemac (``tests/test_layout.py``).
"""
