"""The SQLite engine: connections, transactions, backup, migrations."""
