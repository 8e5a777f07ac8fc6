"""Results stores that cannot be written (issue 21): a read-only file (mode 444, as
on a shared or read-only mount) and a directory that cannot be written. A sweep
says so in one line and exits 2; ``results list/show/export`` read them as they are.

Permissions mean nothing to root, so the commands run in a forked child that has
given up root for ``nobody`` (or as the current user when not root)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from hoptcp.cli import main

from conftest import SCENARIO_TOML

NOBODY = 65534


@pytest.fixture
def shared_dir():
    """A directory under /tmp that an unprivileged user can reach."""
    d = Path(tempfile.mkdtemp(prefix="hoptcp-ro-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        for p in [d, *d.rglob("*")]:
            with contextlib.suppress(OSError):
                p.chmod(0o777 if p.is_dir() else 0o666)
        shutil.rmtree(d, ignore_errors=True)


def unprivileged(argv: list[str]) -> tuple[int, str, str]:
    """``hoptcp argv`` in process, without root: (exit status, stdout, stderr)."""
    if os.geteuid() != 0:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        return code, out.getvalue(), err.getvalue()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop root, run, report, exit without pytest's cleanup
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
            payload = json.dumps([code, out.getvalue(), err.getvalue()])
        except BaseException as exc:  # reported to the parent
            payload = json.dumps([99, "", f"child failed: {type(exc).__name__}: {exc}"])
        with os.fdopen(w, "w") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    os.waitpid(pid, 0)
    code, out, err = json.loads(data)
    return code, out, err


def make_store(d: Path) -> tuple[Path, Path]:
    """A store with one finished sweep, written normally; returns (store, spec)."""
    (d / "chain.toml").write_text(SCENARIO_TOML)
    spec = d / "spec.toml"
    spec.write_text('scenario = "chain.toml"\nname = "w"\n[grid]\n"tcp.max_window" = [1, 2]\n')
    store = d / "runs" / "r.db"
    store.parent.mkdir()
    assert main(["sweep", str(spec), "--store", str(store), "-q"]) == 0
    for p in (d, d / "chain.toml", spec):
        p.chmod(0o755 if p.is_dir() else 0o644)
    # warm the lazy imports the child will need (it cannot read root's files)
    assert main(["results", "show", "--store", str(store)]) == 0
    assert main(["results", "export", "--store", str(store)]) == 0
    assert main(["sweep", str(spec), "--store", str(store), "-q"]) == 0
    return store, spec


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: "), err
    return lines[0]


def test_read_only_store_file(fake_core, shared_dir, capsys):
    store, spec = make_store(shared_dir)
    store.parent.chmod(0o777)
    store.chmod(0o444)
    capsys.readouterr()
    # every run cached: the sweep shows its results (nothing to run, nothing to write)
    code, out, err = unprivileged(["sweep", str(spec), "--store", str(store)])
    assert code == 0 and "2 runs in sweep 'w'" in out and "aggregate_goodput_bps" in out, err
    assert "all 2 runs cached" in err and "nothing run" in err
    # a point the store lacks: refused, saying how many runs are missing
    bigger = spec.parent / "bigger.toml"
    bigger.write_text('scenario = "chain.toml"\nname = "w3"\n[grid]\n"tcp.max_window" = [1, 2, 3]\n')
    bigger.chmod(0o644)
    code, _, err = unprivileged(["sweep", str(bigger), "--store", str(store), "-q"])
    line = one_error_line(err)
    assert code == 2 and f"store {store} is read-only (mode 444" in line, line
    assert "1 of 3 runs of sweep 'w3' are not in it" in line
    code, out, err = unprivileged(["results", "list", "--store", str(store)])
    assert code == 0 and "2/2" in out and err == "", err
    code, out, _ = unprivileged(["results", "export", "--store", str(store)])
    assert code == 0 and out.startswith("sweep,tcp.max_window,seed") and len(out.splitlines()) == 3


def test_store_in_a_directory_that_cannot_be_written(fake_core, shared_dir, capsys):
    store, spec = make_store(shared_dir)
    store.chmod(0o666)
    store.parent.chmod(0o555)
    assert not Path(f"{store}-shm").exists()  # the reader cannot create it there
    capsys.readouterr()
    code, out, err = unprivileged(["sweep", str(spec), "--store", str(store), "-q"])
    assert code == 0 and err == "", err  # every run cached: nothing to write
    code, _, err = unprivileged(["sweep", str(spec), "--store", str(store), "-q", "--set", "duration_s=0.5"])
    line = one_error_line(err)
    assert code == 2 and f"directory {store.parent} is not writable" in line, line
    assert "not a hoptcp results store" not in line and "2 of 2 runs of sweep" in line
    code, _, err = unprivileged(["sweep", str(spec), "--store", str(store.parent / "new.db"), "-q"])
    assert code == 2 and "is not writable" in one_error_line(err)
    code, out, err = unprivileged(["results", "show", "--store", str(store)])
    assert code == 0 and "sweep 'w': 2 runs" in out, err
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o555 and not Path(f"{store}-shm").exists()
