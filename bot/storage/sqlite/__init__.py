"""The SQLite engine: connections, transactions, checkpoints, WAL pacing, backup, migrations."""
