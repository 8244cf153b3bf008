"""The SQL of the storage modules keeps to forms PostgreSQL also runs (bot/storage/dialect.py
says which and lists what stays SQLite-only).

Every string in the modules of bot/storage itself (docstrings aside) is read with `ast`, but
the dialect's; the SQLite engine and its migrations (bot/storage/sqlite/) are not read:
no `INSERT OR ...`, no upsert without its conflict target or reading its own column
unqualified, no `lastrowid`, no time functions, no flag read as a boolean, and no two-value
MAX/MIN, planner hint, group_concat, TOTAL or SQLite catalog but through the dialect.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

STORAGE = Path(__file__).resolve().parent.parent / "bot" / "storage"
# SQLite-only by design (the engine, with the migrations, lives in bot/storage/sqlite/, which
# is not read).
EXEMPT = {"dialect.py"}
FORBIDDEN = {
    "INSERT/UPDATE OR ...: use ON CONFLICT (...) DO NOTHING / DO UPDATE": re.compile(
        r"\b(INSERT|UPDATE)\s+OR\s+(IGNORE|REPLACE|ABORT|FAIL|ROLLBACK)\b|\bREPLACE\s+INTO\b",
        re.I,
    ),
    "an upsert without its conflict target": re.compile(r"\bON\s+CONFLICT\s+DO\b", re.I),
    "julianday(): compute times in Python": re.compile(r"\bjulianday\s*\(", re.I),
    "datetime('now'): compute times in Python": re.compile(r"\bdatetime\s*\(\s*'now'", re.I),
    "two-value MAX/MIN: dialect.greatest/least": re.compile(r"\b(MAX|MIN)\s*\([^()]*,", re.I),
    "a planner hint: dialect.indexed_by/not_indexed": re.compile(
        r"\bINDEXED\s+BY\b|\bNOT\s+INDEXED\b", re.I
    ),
    "group_concat/TOTAL: dialect.group_concat/total": re.compile(
        r"\b(group_concat|TOTAL)\s*\(", re.I
    ),
    "the SQLite catalog: dialect.tables/columns": re.compile(
        r"\bsqlite_master\b|\bPRAGMA\s+table_info\b", re.I
    ),
    "a flag read as a boolean: compare it (= 1)": re.compile(
        r"\bCASE\s+WHEN\s+\w+\s+THEN\b", re.I
    ),
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of each string literal; an f-string whole, `{}` for what it interpolates."""
    skip = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip |= {id(v) for v in node.values}
            text = "".join(
                str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values
            )
            out.append((node.lineno, text))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            out.append((node.lineno, node.value))
    return out


def _unqualified(sql: str) -> list[str]:
    """Assignments of an upsert's DO UPDATE SET that read their own column unqualified
    (`n = n + 1`: ambiguous in PostgreSQL, which also sees `excluded.n`)."""
    _, found, sets = sql.partition("DO UPDATE SET")
    if not found:
        return []
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(sets + ","):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            pieces.append(sets[start:i])
            start = i + 1
    bad = []
    for piece in pieces:
        lhs, eq, rhs = piece.partition("=")
        name = lhs.strip().strip('"')
        if eq and re.fullmatch(r"\w+", name) and re.search(rf'(?<![.\w"]){name}\b', rhs):
            bad.append(piece.strip())
    return bad


def problems(source: str) -> list[str]:
    """What in this module's code is not portable, one line each."""
    tree = ast.parse(source)
    out = [
        f"line {node.lineno}: lastrowid: use RETURNING id"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "lastrowid"
    ]
    for line, text in _strings(tree):
        for why, pattern in FORBIDDEN.items():
            if pattern.search(text):
                out.append(f"line {line}: {why}: {text.strip()[:80]}")
        for piece in _unqualified(text):
            out.append(f"line {line}: unqualified in an upsert (table.column): {piece}")
    return out


def test_the_storage_modules_write_portable_sql() -> None:
    found = {
        path.name: bad
        for path in sorted(STORAGE.glob("*.py"))
        if path.name not in EXEMPT and (bad := problems(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_sees_each_forbidden_form() -> None:
    bad = """
def f(conn):
    conn.execute("INSERT OR IGNORE INTO t (a) VALUES (?)", (1,))
    conn.execute("UPDATE OR REPLACE t SET a = 1")
    conn.execute("INSERT INTO t (a) VALUES (1) ON CONFLICT DO UPDATE SET a = excluded.a")
    conn.execute("SELECT julianday(x), datetime('now') FROM t")
    conn.execute("UPDATE t SET a = MAX(a, ?)", (1,))
    conn.execute("SELECT group_concat(a, ','), TOTAL(b) FROM t INDEXED BY t_a")
    conn.execute("SELECT name FROM sqlite_master")
    conn.execute("SELECT MAX(CASE WHEN correct THEN at END) FROM t")
    conn.execute(f"INSERT INTO t (a, b) VALUES (1, {x}) ON CONFLICT (a) DO UPDATE SET b = b + 1")
    return conn.execute("INSERT INTO t (a) VALUES (1)").lastrowid
"""
    assert len(problems(bad)) == 12
    fine = '''
def f(conn):
    """INSERT OR IGNORE in a docstring is prose."""
    conn.execute("INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO NOTHING RETURNING id")
    conn.execute("SELECT MAX(a), MIN(COALESCE(b, c)) FROM t")
    conn.execute(
        "INSERT INTO t (a, b, c) VALUES (1, 2, 3) ON CONFLICT (a) DO UPDATE"
        " SET b = t.b + excluded.b, c = COALESCE(t.c, excluded.c)"
    )
'''
    assert problems(fine) == []
