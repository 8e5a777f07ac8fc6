"""Ctrl-C: a subprocess gets SIGINT and must stop promptly with exit status 130,
one line saying what was kept, and a consistent store. The tests synchronise on
the child's output or on the store, never on how long something takes."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from store_helpers import count_runs, wait_until

FAKE_CLI = """
import os, sys
import fake_core
fake_core.install(block_from=int(os.environ.get("FAKE_BLOCK_FROM", "-1")) if os.environ.get("FAKE_BLOCK_FROM") else None)
from hoptcp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _interrupt(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


@pytest.mark.parametrize("inherited_ignore", [False, True], ids=["default", "sigint-ignored-by-parent"])
def test_sigint_stops_a_sweep_and_keeps_what_finished(tmp_path, scenario_file, subprocess_env, inherited_ignore):
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{scenario_file.name}"\nname = "k"\nreplications = 5\n'
                    '[grid]\n"tcp.max_window" = [1, 2, 3, 4]\n')
    db = tmp_path / "r.db"
    env = dict(subprocess_env, FAKE_BLOCK_FROM="6")  # runs 0-5 finish, the others block until cancelled
    cmd = [sys.executable, str(script), "sweep", str(spec), "--store", str(db), "-j", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ignore_sigint if inherited_ignore else None)
    wait_until(lambda: count_runs(db) == 6 or proc.poll() is not None, "six runs stored")
    assert proc.poll() is None, proc.communicate()
    code, err = _interrupt(proc)
    lines = err.strip().splitlines()
    assert code == 130, err
    assert lines[-1] == (f"hoptcp: interrupted: sweep 'k' interrupted: 6 of 20 runs are stored in {db}; "
                         "run the same command again to run the other 14"), err
    assert "Traceback" not in err
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 6
    assert con.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # released on the way out
    con.close()
    env.pop("FAKE_BLOCK_FROM")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "6 cached, 14 to run" in out.stderr and count_runs(db) == 20


@pytest.mark.core
@pytest.mark.parametrize("inherited_ignore", [False, True], ids=["default", "sigint-ignored-by-parent"])
def test_sigint_stops_a_long_run_with_a_warning_first(tmp_path, subprocess_env, inherited_ignore):
    """duration_s = 1e15 would take far more than a day: the run warns with its estimate, then
    Ctrl-C stops it (the real core checks for signals a few times a second)."""
    chain = Path(__file__).resolve().parents[2] / "examples" / "chain7.toml"
    env = dict(subprocess_env, HOPTCP_PROGRESS_INTERVAL_S="0")
    cmd = [sys.executable, "-m", "hoptcp", "run", str(chain), "--set", "duration_s=1e15"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ignore_sigint if inherited_ignore else None)
    assert proc.stderr is not None
    warning = proc.stderr.readline()  # the first thing it says
    assert warning.startswith("hoptcp: warning: chain7 will take about ") and "of wall time" in warning, warning
    code, err = _interrupt(proc)
    assert code == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("hoptcp: interrupted: run interrupted at ") and "nothing was kept" in last, err
    assert "Traceback" not in err
