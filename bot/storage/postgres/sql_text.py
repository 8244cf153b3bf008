"""The port's SQL text (`?` and `:name` placeholders, SQLite's style) in psycopg's style
(`%s`, `%(name)s`), translated once per distinct statement.

Placeholders inside string literals, quoted identifiers and comments are left alone; a literal
`%` anywhere becomes `%%`, since psycopg reads every `%` of a query that has parameters.
"""

from __future__ import annotations

import functools
import re

_TOKEN = re.compile(
    r"""'(?:[^']|'')*'"""  # a string literal
    r'''|"(?:[^"]|"")*"'''  # a quoted identifier
    r"|--[^\n]*|/\*.*?\*/"  # comments
    r"|::"  # a cast, not a named placeholder
    r"|\?|:[A-Za-z_]\w*|%",
    re.DOTALL,
)


def _replace(match: re.Match[str]) -> str:
    token = match.group(0)
    if token == "?":
        return "%s"
    if token == "%":
        return "%%"
    if token.startswith(":") and token != "::":
        return f"%({token[1:]})s"
    if token[0] in "'\"-/":
        return token.replace("%", "%%")
    return token


@functools.lru_cache(maxsize=4096)
def to_psycopg(sql: str) -> str:
    """`sql` with psycopg's placeholders."""
    return _TOKEN.sub(_replace, sql)
