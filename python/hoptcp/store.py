"""The results store: one SQLite file (WAL mode), one row per finished run.

A run is keyed by (scenario_hash, seed, hoptcp_version) and committed as soon as
it finishes, so an interrupted sweep loses nothing that had finished. Sweeps are
named sets of (params, seed) -> run; several sweeps may share the same runs.
A process about to simulate a run claims it first (``claims`` table), so two
sweeps on one store never simulate the same run twice; a claim expires when
its owner dies or stops renewing it.

The default store is ``$HOPTCP_STORE`` if set, else ``results.db`` in the
per-user data directory (``~/.local/share/hoptcp`` on Linux).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import os
import socket
import sqlite3
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from .errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: environment variable naming the default results store
STORE_ENV = "HOPTCP_STORE"
SCHEMA_VERSION = "1"


def default_store_path() -> Path:
    """``$HOPTCP_STORE``, else ``results.db`` in the per-user data directory."""
    env = os.environ.get(STORE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("hoptcp", appauthor=False) / "results.db"


class _DefaultStore(os.PathLike[str]):
    """The default store as a path-like value, looked up when used (so a changed
    ``HOPTCP_STORE`` is honoured); its directory is created on first use."""

    def __fspath__(self) -> str:
        return str(default_store_path())

    __str__ = __fspath__

    def __repr__(self) -> str:
        return f"<default store {self}>"


#: the default ``store=`` argument everywhere
DEFAULT_STORE: Any = _DefaultStore()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    scenario_hash  TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    hoptcp_version TEXT    NOT NULL,
    sweep          TEXT,               -- the sweep that first produced this run
    params         TEXT    NOT NULL,   -- JSON: that sweep's point
    scenario       TEXT    NOT NULL,   -- canonical JSON of the resolved scenario
    metrics        TEXT    NOT NULL,   -- JSON: flat scalar metrics
    result         BLOB    NOT NULL,   -- zlib-compressed result JSON, as the core wrote it
    wall_time_s    REAL,
    created_at     TEXT    NOT NULL,
    PRIMARY KEY (scenario_hash, seed, hoptcp_version)
);
CREATE TABLE IF NOT EXISTS sweeps (
    name       TEXT PRIMARY KEY,
    spec       TEXT NOT NULL,          -- JSON description of the sweep
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep          TEXT    NOT NULL,
    hoptcp_version TEXT    NOT NULL,
    params         TEXT    NOT NULL,   -- JSON, keys in the sweep's order
    seed           INTEGER NOT NULL,
    scenario_hash  TEXT    NOT NULL,
    position       INTEGER NOT NULL,   -- order of the point in the sweep
    PRIMARY KEY (sweep, hoptcp_version, params, seed)
);
CREATE INDEX IF NOT EXISTS sweep_runs_run ON sweep_runs (scenario_hash, seed, hoptcp_version);
CREATE TABLE IF NOT EXISTS claims (       -- runs being simulated right now, by whom
    scenario_hash  TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    hoptcp_version TEXT    NOT NULL,
    owner          TEXT    NOT NULL,   -- one id per sweep invocation
    host           TEXT    NOT NULL,
    pid            INTEGER NOT NULL,
    expires_at     REAL    NOT NULL,   -- unix time; the owner renews it while it runs
    PRIMARY KEY (scenario_hash, seed, hoptcp_version)
);
"""

_HOST = socket.gethostname()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class Store:
    """A results store file. Use as a context manager or call :meth:`close`.

    ``read_only=True`` (``results list/show/export``, ``plot``, :func:`hoptcp.load`)
    reads a store that cannot be written: a file of mode 444, a directory or a
    mount that is read-only. Opening one for writing (a sweep) fails at once with
    one line saying what cannot be written."""

    def __init__(self, path: str | Path = DEFAULT_STORE, read_only: bool = False):
        self.path = os.fspath(path)
        self.read_only = read_only
        target = Path(self.path).expanduser()
        if self.path != ":memory:":
            if path is DEFAULT_STORE and not read_only:
                target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():
                raise SpecError(f"store {self.path} is a directory, not a results store file")
            if not target.resolve().parent.is_dir():
                raise SpecError(f"store: directory {target.resolve().parent} does not exist")
            if not read_only:
                _check_writable(self.path, target)
        try:
            if read_only and self.path != ":memory:":
                self._db = _connect_read_only(target)
            else:
                self._db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            self._open()
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or "unable to open" in str(exc):
                raise SpecError(f"store {self.path} cannot be written ({exc}); a sweep stores its runs there: "
                                "give a writable file with --store") from None
            raise SpecError(f"store {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise SpecError(f"store {self.path} is not a hoptcp results store ({exc})") from None

    def _open(self) -> None:
        db = self._db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise SpecError(f"store {self.path} is an SQLite database but not a hoptcp results store "
                            f"(it has tables {', '.join(sorted(tables))})")
        if self.read_only:
            if not tables:
                raise SpecError(f"store {self.path} holds no hoptcp results (an empty file)")
            row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is not None and row[0] != SCHEMA_VERSION:
                raise SpecError(f"store {self.path}: schema version {row[0]}, this hoptcp reads {SCHEMA_VERSION}")
            return
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL+NORMAL: durable against process kills
        db.execute("PRAGMA busy_timeout=60000")
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        elif row[0] != SCHEMA_VERSION:
            raise SpecError(f"store {self.path}: schema version {row[0]}, this hoptcp reads {SCHEMA_VERSION}")

    # --- plumbing -----------------------------------------------------------------
    def _tx(self) -> Any:
        db = self._db

        class _Tx:
            def __enter__(self_inner) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self_inner, exc_type: Any, *_: Any) -> None:
                db.execute("ROLLBACK" if exc_type else "COMMIT")

        return _Tx()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------
    def register_sweep(self, name: str, spec: Mapping[str, Any], version: str,
                       members: Sequence[tuple[Mapping[str, Any], int, str]]) -> None:
        """Record (or redefine) a sweep: its description and its (params, seed) -> run map."""
        now = _now()
        with self._tx():
            self._db.execute(
                "INSERT INTO sweeps (name, spec, created_at, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET spec=excluded.spec, updated_at=excluded.updated_at",
                (name, json.dumps(spec, default=str), now, now),
            )
            self._db.execute("DELETE FROM sweep_runs WHERE sweep=? AND hoptcp_version=?", (name, version))
            self._db.executemany(
                "INSERT OR REPLACE INTO sweep_runs VALUES (?, ?, ?, ?, ?, ?)",
                [(name, version, json.dumps(p), seed, h, i) for i, (p, seed, h) in enumerate(members)],
            )

    def put(self, *, scenario_hash: str, seed: int, version: str, sweep: str | None,
            params: Mapping[str, Any], scenario_json: str, metrics: Mapping[str, Any],
            result_json: str, wall_time_s: float | None) -> None:
        """Store one finished run (and drop its claim) and commit at once."""
        with self._tx():
            self._db.execute(
                "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (scenario_hash, seed, version, sweep, json.dumps(params), scenario_json,
                 json.dumps(metrics), zlib.compress(result_json.encode("utf-8"), 6), wall_time_s, _now()),
            )
            self._db.execute("DELETE FROM claims WHERE scenario_hash=? AND seed=? AND hoptcp_version=?",
                             (scenario_hash, seed, version))

    # --- claims -------------------------------------------------------------------
    def claim(self, keys: Sequence[tuple[str, int]], version: str, owner: str, ttl_s: float) -> list[tuple[str, int]]:
        """Claim for ``owner`` those of ``keys`` that are neither stored nor claimed by
        another live owner (claims past their expiry, or of a dead process on this
        host, are taken over); return the keys claimed, in order."""
        now = time.time()
        got = []
        with self._tx():
            for h, seed in keys:
                if self._db.execute("SELECT 1 FROM runs WHERE scenario_hash=? AND seed=? AND hoptcp_version=?",
                                    (h, seed, version)).fetchone():
                    continue
                row = self._db.execute(
                    "SELECT owner, host, pid, expires_at FROM claims "
                    "WHERE scenario_hash=? AND seed=? AND hoptcp_version=?", (h, seed, version)).fetchone()
                if row is not None and row[0] != owner and not _claim_dead(row[1], row[2], row[3], now):
                    continue
                self._db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (h, seed, version, owner, _HOST, os.getpid(), now + ttl_s))
                got.append((h, seed))
        return got

    def renew_claims(self, owner: str, ttl_s: float) -> None:
        with self._tx():
            self._db.execute("UPDATE claims SET expires_at=? WHERE owner=?", (time.time() + ttl_s, owner))

    def release_claims(self, owner: str) -> None:
        with self._tx():
            self._db.execute("DELETE FROM claims WHERE owner=?", (owner,))

    def live_claims(self, version: str, exclude_owner: str | None = None) -> set[tuple[str, int]]:
        """Keys claimed by live owners (other than ``exclude_owner``)."""
        now = time.time()
        rows = self._db.execute("SELECT scenario_hash, seed, owner, host, pid, expires_at FROM claims "
                                "WHERE hoptcp_version=?", (version,))
        return {(h, s) for h, s, o, host, pid, exp in rows
                if o != exclude_owner and not _claim_dead(host, pid, exp, now)}

    # --- reading ------------------------------------------------------------------
    def existing(self, keys: Iterable[tuple[str, int]], version: str) -> set[tuple[str, int]]:
        """Which of ``keys`` (scenario_hash, seed) already have a run for ``version``."""
        wanted = set(keys)
        rows = self._runs_of({h for h, _ in wanted}, "scenario_hash, seed", "hoptcp_version=?", version)
        return {(h, s) for h, s in rows if (h, s) in wanted}

    def _runs_of(self, hashes: Iterable[str], columns: str, where: str, version: str) -> Iterator[tuple[Any, ...]]:
        """``columns`` of the runs of these scenario hashes matching ``where`` (one ``?``: the version),
        queried in chunks that stay under SQLite's parameter limit."""
        ordered = sorted(hashes)
        for i in range(0, len(ordered), 500):
            chunk = ordered[i:i + 500]
            marks = ",".join("?" * len(chunk))
            yield from self._db.execute(f"SELECT {columns} FROM runs WHERE {where} AND scenario_hash IN ({marks})",
                                        (version, *chunk))

    def past_wall_times(self, keys: Iterable[tuple[str, int]], version: str) -> dict[tuple[str, int], float]:
        """For each of ``keys`` (scenario_hash, seed) that another build than ``version`` ran: its
        wall time there (the newest such run), to estimate how long running it again takes."""
        wanted = set(keys)
        found: dict[tuple[str, int], tuple[str, float]] = {}
        rows = self._runs_of({h for h, _ in wanted}, "scenario_hash, seed, created_at, wall_time_s",
                             "hoptcp_version<>?", version)
        for h, seed, created, wall in rows:
            if (h, seed) in wanted and wall is not None and ((h, seed) not in found
                                                             or str(created) > found[(h, seed)][0]):
                found[(h, seed)] = (str(created), float(wall))
        return {k: w for k, (_, w) in found.items()}

    def count(self, version: str | None = None) -> int:
        if version is None:
            return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM runs WHERE hoptcp_version=?", (version,)).fetchone()[0]

    def result(self, scenario_hash: str, seed: int, version: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT result FROM runs WHERE scenario_hash=? AND seed=? AND hoptcp_version=?",
            (scenario_hash, seed, version)).fetchone()
        return json.loads(zlib.decompress(row[0])) if row else None

    def sweep_names(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT name FROM sweeps ORDER BY name")]

    def sweep_spec(self, name: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT spec FROM sweeps WHERE name=?", (name,)).fetchone()
        return json.loads(row[0]) if row else None

    def sweeps(self) -> list[dict[str, Any]]:
        """One summary dict per sweep: name, runs done / planned, points, seeds, versions, dates."""
        q = """
        SELECT s.name, s.created_at, s.updated_at,
               COUNT(m.seed), COUNT(r.seed),
               COUNT(DISTINCT m.params), COUNT(DISTINCT m.seed),
               GROUP_CONCAT(DISTINCT m.hoptcp_version), SUM(r.wall_time_s)
        FROM sweeps s
        LEFT JOIN sweep_runs m ON m.sweep = s.name
        LEFT JOIN runs r ON r.scenario_hash = m.scenario_hash AND r.seed = m.seed
                        AND r.hoptcp_version = m.hoptcp_version
        GROUP BY s.name ORDER BY s.updated_at DESC, s.name
        """
        keys = ["sweep", "created_at", "updated_at", "planned", "done", "points", "seeds", "versions", "cpu_time_s"]
        return [dict(zip(keys, row)) for row in self._db.execute(q)]

    def member_rows(self, sweep: str, version: str,
                    members: Sequence[tuple[Mapping[str, Any], int, str]]) -> list[dict[str, Any]]:
        """The rows :meth:`rows` would give for a sweep with these (params, seed, scenario_hash)
        members, read from the runs alone (a read-only store, where the sweep cannot be
        registered); members without a run are left out."""
        found = {(h, seed): (metrics, created) for h, seed, metrics, created in
                 self._runs_of({h for _, _, h in members}, "scenario_hash, seed, metrics, created_at",
                               "hoptcp_version=?", version)}
        out = []
        for params, seed, h in members:
            if (h, seed) in found:
                metrics, created = found[(h, seed)]
                out.append({"sweep": sweep, "params": dict(params), "seed": seed, "scenario_hash": h,
                            "hoptcp_version": version, "metrics": json.loads(metrics), "created_at": created})
        return out

    def rows(self, sweep: str | None = None, version: str | None = None) -> list[dict[str, Any]]:
        """Finished runs of a sweep (or of all sweeps), one dict per (sweep, params, seed)."""
        q = """
        SELECT m.sweep, m.params, m.seed, m.scenario_hash, m.hoptcp_version, r.metrics, r.created_at
        FROM sweep_runs m JOIN runs r
          ON r.scenario_hash = m.scenario_hash AND r.seed = m.seed AND r.hoptcp_version = m.hoptcp_version
        """
        cond, args = [], []
        if sweep is not None:
            cond.append("m.sweep = ?")
            args.append(sweep)
        if version is not None:
            cond.append("m.hoptcp_version = ?")
            args.append(version)
        if cond:
            q += " WHERE " + " AND ".join(cond)
        q += " ORDER BY m.sweep, m.hoptcp_version, m.position, m.seed"
        out = []
        for name, params, seed, h, ver, metrics, created in self._db.execute(q, args):
            out.append({"sweep": name, "params": json.loads(params), "seed": seed, "scenario_hash": h,
                        "hoptcp_version": ver, "metrics": json.loads(metrics), "created_at": created})
        return out

    def frame(self, sweep: str | None = None, version: str | None = None,
              metrics: Sequence[str] | None = None) -> "pd.DataFrame":
        if sweep is not None and sweep not in self.sweep_names():
            known = ", ".join(self.sweep_names()) or "none"
            raise SpecError(f"sweep '{sweep}' is not in store {self.path}; sweeps there: {known}")
        return make_frame(self.rows(sweep, version), metrics)


def _check_writable(path: str, target: Path) -> None:
    """A store a sweep will write: the file (if it exists) and its directory, where
    SQLite keeps the store's journal files (``-wal``, ``-shm``), must be writable."""
    directory = target.resolve().parent
    if target.exists() and not os.access(target, os.W_OK):
        mode = f"mode {target.stat().st_mode & 0o777:o}"
        raise SpecError(f"store {path} is read-only ({mode}, or a read-only mount); a sweep stores its runs "
                        "there: make it writable or give another file with --store (results list/show/export "
                        "read it as it is)")
    if not os.access(directory, os.W_OK):
        raise SpecError(f"store {path}: directory {directory} is not writable, and SQLite keeps the store's "
                        "journal files beside it; give a store in a writable directory with --store")


def _connect_read_only(target: Path) -> sqlite3.Connection:
    """Open an existing store for reading only. A WAL store needs its shared-memory
    file; where that cannot be created (read-only directory or mount) the file is
    read as immutable, which is right as nothing can be writing it there."""
    from urllib.parse import quote

    if not target.is_file():
        raise SpecError(f"store not found: {target} (run a sweep first, or pass --store FILE)")
    uri = "file:" + quote(str(target.resolve()))
    try:
        db = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=60.0, isolation_level=None)
        db.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError:
        return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=60.0, isolation_level=None)


def _claim_dead(host: str, pid: int, expires_at: float, now: float) -> bool:
    return expires_at < now or (host == _HOST and not _pid_alive(pid))


def select_metrics(names: Sequence[str], patterns: Sequence[str] | None) -> list[str]:
    """Metric names matching ``patterns`` (exact names or globs like ``flow.*.goodput_bps``)."""
    if patterns is None:
        return list(names)
    chosen: list[str] = []
    for pat in patterns:
        hits = [n for n in names if fnmatch.fnmatchcase(n, pat)] if any(c in pat for c in "*?[") else (
            [pat] if pat in names else [])
        if not hits:
            raise SpecError(f"metrics: '{pat}' matches no metric of these runs; "
                            f"available: {_preview(names)}")
        chosen.extend(h for h in hits if h not in chosen)
    return chosen


def _preview(names: Sequence[str], n: int = 12) -> str:
    names = list(names)
    head = ", ".join(names[:n])
    return head + (f", ... ({len(names) - n} more)" if len(names) > n else "")


class ColumnNames(tuple):
    """An immutable list of column names kept in ``DataFrame.attrs``. pandas
    deep-copies attrs on every slice; this type is shared instead of copied, so
    frames with thousands of metric columns stay fast to slice."""

    def __deepcopy__(self, memo: Any) -> "ColumnNames":
        return self


#: columns make_frame itself adds; metrics of the same name are not repeated
_FRAME_COLUMNS = {"sweep", "seed", "scenario_hash", "hoptcp_version"}


def make_frame(rows: list[dict[str, Any]], metrics: Sequence[str] | None = None) -> "pd.DataFrame":
    """Build the one-row-per-run DataFrame: sweep, params..., seed, metrics..., scenario_hash, hoptcp_version."""
    import pandas as pd

    param_cols: list[str] = []
    metric_cols: list[str] = []
    seen_p: set[str] = set()
    seen_m: set[str] = set()
    for r in rows:
        for k in r["params"]:
            if k not in seen_p:
                seen_p.add(k)
                param_cols.append(k)
        for k in r["metrics"]:
            if k not in seen_m:
                seen_m.add(k)
                metric_cols.append(k)
    if metrics is not None and rows:
        metric_cols = select_metrics(metric_cols, metrics)
    # A metric named like a parameter (e.g. duration_s, both an input and in the
    # result) or like a frame column is the same number: keep one column.
    metric_cols = [m for m in metric_cols if m not in seen_p and m not in _FRAME_COLUMNS]
    records = []
    for r in rows:
        rec: dict[str, Any] = {"sweep": r["sweep"]}
        rec.update(r["params"])
        rec["seed"] = r["seed"]
        m = r["metrics"]
        rec.update({k: m.get(k) for k in metric_cols})
        rec["scenario_hash"] = r["scenario_hash"]
        rec["hoptcp_version"] = r["hoptcp_version"]
        records.append(rec)
    columns = ["sweep", *param_cols, "seed", *metric_cols, "scenario_hash", "hoptcp_version"]
    df = pd.DataFrame.from_records(records, columns=columns)
    for c in metric_cols:  # None -> NaN for numeric metrics
        if df[c].dtype == object:
            conv = pd.to_numeric(df[c], errors="coerce")
            if conv.notna().sum() == df[c].notna().sum():
                df[c] = conv
    df.attrs["params"] = ColumnNames(param_cols)
    df.attrs["metrics"] = ColumnNames(metric_cols)
    return df
