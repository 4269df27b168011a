"""The SQL of a failed run-time assertion (``assert_single``, ``assert_exists``,
``assert_distinct``: https://docs.geldata.com/reference/stdlib/set#function::std::assert_single):
a cast that cannot succeed, ``CAST('schemac-assert|<function>|<message>' || <probe> AS
integer)``, whose text the runners recognise (:mod:`schemac.semantics.asserts` holds the mark,
Gel's messages and the rule).
"""

from __future__ import annotations

from typing import Optional

from schemac.semantics.asserts import MARK, MESSAGES
from schemac.semantics.sqlnames import sql_string


def fail_sql(function: str, message: Optional[str], probe: str, pg_type: str = "integer",
             template: bool = False) -> str:
    """A SQL expression of type ``pg_type`` that fails the statement with the assertion's message
    when it is evaluated; ``probe`` is SQL read (not used) so that it is no constant. In a
    ``str.format`` template (``template``), braces of the message are doubled."""
    text = sql_string(f"{MARK}|{function}|{MESSAGES[function] if message is None else message}")
    if template:
        text = text.replace("{", "{{").replace("}", "}}")
    fail = f"CAST({text} || coalesce(left(CAST({probe} AS text), 0), '') AS integer)"
    return fail if pg_type == "integer" else f"CAST(CAST({fail} AS text) AS {pg_type})"
