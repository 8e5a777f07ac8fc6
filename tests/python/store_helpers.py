"""Reading a results store from tests while another process writes it."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def count_runs(db: Path) -> int:
    """Finished runs in the store (0 while the file or table does not exist yet)."""
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def wait_until(condition, what: str, limit_s: float = 120.0) -> None:
    """Poll ``condition`` until it holds. The limit only turns a hang into a
    failure; nothing here depends on how fast the other side is."""
    import time

    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for: {what}")
        time.sleep(0.01)
