"""How the embedded default (SQLite) is opened: what users rely on without configuring it."""

import pytest

from models.base import open_database


@pytest.mark.parametrize("pooled", [False, True])
def test_a_commit_is_on_disk_before_it_returns(tmp_path, pooled):
    """WAL with synchronous=FULL: a commit that returned survives a power loss (NORMAL may
    roll the last commits back), since a 2xx answer promises stored data."""
    database = open_database(f"sqlite:///{tmp_path / 'cws.db'}", pooled=pooled)
    with database.connection_context():
        assert database.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert database.execute_sql("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert database.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    database.close_all() if pooled else database.close()
