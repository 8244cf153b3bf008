"""Both backends' schemas agree: the same tables, columns (names, compatible types, NOT NULL)
and indexes (names, columns, unique, partial); every migration after PostgreSQL's baseline
exists for both."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg

from bot.storage.postgres import migrations as pg_migrations
from bot.storage.sqlite import migrations as lite_migrations
from bot.storage.sqlite.database import prepare

# SQLite's declared type -> PostgreSQL's (information_schema's spelling).
TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text"}
Schema = dict[str, Any]


def sqlite_schema(path: Path) -> Schema:
    prepare(path)
    conn = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        columns = {
            t: [
                (name, TYPES[kind], bool(notnull or pk))  # a key is never NULL
                for _, name, kind, notnull, _, pk in conn.execute(f"PRAGMA table_info({t})")
            ]
            for t in tables
        }
        indexes = {}
        for t in tables:
            for _, name, unique, origin, partial in conn.execute(f"PRAGMA index_list({t})"):
                if origin != "c":  # a primary key's or UNIQUE constraint's own index
                    continue
                cols = [c or "<expr>" for *_, c in conn.execute(f"PRAGMA index_info({name})")]
                indexes[name] = (t, cols, bool(unique), bool(partial))
    finally:
        conn.close()
    return {"columns": columns, "indexes": indexes}


def pg_schema(url: str) -> Schema:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable"
            " FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        ).fetchall()
        columns: dict[str, list[tuple[str, str, bool]]] = {}
        for table, name, kind, nullable in rows:
            columns.setdefault(table, []).append((name, kind, nullable == "NO"))
        indexes = {}
        for name, table, unique, partial, cols in conn.execute(
            "SELECT i.relname, t.relname, x.indisunique, x.indpred IS NOT NULL,"
            " ARRAY(SELECT CASE WHEN x.indkey[k] = 0 THEN '<expr>'"
            "   ELSE pg_get_indexdef(x.indexrelid, k + 1, true) END"
            "   FROM generate_series(0, x.indnatts - 1) k ORDER BY k)"
            " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            " JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
            " WHERE n.nspname = 'public'"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)"
        ):
            indexes[name] = (table, [c.strip('"') for c in cols], unique, partial)
    return {"columns": columns, "indexes": indexes}


def test_both_schemas_have_the_same_tables_columns_and_indexes(
    tmp_path: Path, pg_url: str
) -> None:
    lite, pg = sqlite_schema(tmp_path / "q.sqlite3"), pg_schema(pg_url)
    assert sorted(pg["columns"]) == sorted(lite["columns"])
    for table, columns in lite["columns"].items():
        assert pg["columns"][table] == columns, table
    assert pg["indexes"] == lite["indexes"]
    assert len(lite["indexes"]) > 10 and "push_log_ready" in pg["indexes"]


def test_every_migration_after_the_baseline_exists_for_both_backends() -> None:
    lite = [name for name, _ in lite_migrations.available()]
    pg = [name for name, _ in pg_migrations.available()]
    assert pg[0] == pg_migrations.BASELINE
    assert set(pg_migrations.COVERED) <= set(lite)
    assert [n for n in lite if n not in pg_migrations.COVERED] == pg[1:]
