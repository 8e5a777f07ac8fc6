"""Daily-use behaviour of sweeps: where results go, progress in batch logs, and
two sweeps sharing one store without simulating a run twice."""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import subprocess
import sys
import threading

import hoptcp
from hoptcp import Store, runner
from hoptcp.cli import main
from hoptcp.store import default_store_path
from hoptcp.sweep import SweepSpec, run_sweep
from hoptcp.sweep import plan as make_plan

from store_helpers import count_runs, wait_until


def spec_for(scenario_file, name="s", windows=(1, 2, 3), replications=2, **kw):
    return SweepSpec.build(scenario_file, name=name, grid={"tcp.max_window": list(windows)},
                           replications=replications, **kw)


# --- where results go ------------------------------------------------------------------

def test_default_store_is_the_environment_variable(fake_core, scenario_file, default_store, capsys):
    df = hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2]}, name="env")
    assert df.attrs["store"] == str(default_store) and default_store.is_file()
    assert f"(store {default_store})" in capsys.readouterr().err  # said when the sweep starts
    assert len(hoptcp.load(sweep="env")) == 2


def test_default_store_without_the_variable_is_per_user(monkeypatch, tmp_path):
    monkeypatch.delenv("HOPTCP_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert default_store_path() == tmp_path / "xdg" / "hoptcp" / "results.db"
    assert default_store_path().name == "results.db"
    monkeypatch.setenv("HOPTCP_STORE", "~/elsewhere.db")
    assert str(default_store_path()).endswith("elsewhere.db") and "~" not in str(default_store_path())


def test_cli_sweep_names_the_store(fake_core, capsys, tmp_path, scenario_file, default_store):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{scenario_file.name}"\nname = "w"\n[grid]\n"tcp.max_window" = [1, 2]\n')
    assert main(["sweep", str(spec)]) == 0
    out, err = capsys.readouterr()
    assert f"(store {default_store})" in err and f"(store {default_store})" in out


# --- progress without a terminal ---------------------------------------------------------

def test_plain_progress_lines_when_not_on_a_terminal(fake_core, scenario_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runner, "PLAIN_INTERVAL_S", 0.0)  # a line after every run
    spec = spec_for(scenario_file, metrics=["aggregate_goodput_bps"])  # the metric probe is one of the runs
    run_sweep(spec, store=tmp_path / "r.db", jobs=1, progress=True)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("s: ")]
    # every run once, and the final count once (the sweep and the executor share one bar)
    assert [ln.split()[1] for ln in lines] == [f"{k}/6" for k in range(1, 6)] + ["6/6"], err
    assert "runs/s" in lines[0] and "eta" in lines[0] and "(100%)" in lines[-1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _frames(text: str) -> list[str]:
    """What a terminal shows of a live display, frame by frame: rich redraws in
    place (cursor up, erase line), so each frame is the text after the last
    erase sequence of a line."""
    import re

    plain = re.sub(r"\x1b\[\?25[lh]", "", text)
    return [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", part).strip()
            for part in re.split(r"\x1b\[2K", plain) if part.strip()]


def test_terminal_progress_is_one_bar_that_ends_at_the_total(fake_core, scenario_file, tmp_path, monkeypatch):
    for var in ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE"):  # let rich see the terminal we give it
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    spec = spec_for(scenario_file, metrics=["aggregate_goodput_bps"])  # the probe run goes through the same bar
    run_sweep(spec, store=tmp_path / "r.db", jobs=1, progress=True)
    out = term.getvalue()
    assert out.count("\x1b[?25l") == 1, "one live display started"
    assert out.count("\x1b[?25h") == 1, "and stopped once"
    bars = [f for f in _frames(out) if " s " in f or "/6" in f]
    assert bars and "6/6" in bars[-1], bars[-3:]
    assert not any(("1/6" in f or "0/6" in f) and "-:--:--" in f for f in bars[bars.index(bars[-1]):]), bars[-3:]
    tail = out.rsplit("\x1b[?25h", 1)[1]
    assert "/6" not in tail, "nothing drawn after the display stopped"


def test_progress_total_equals_the_runs(fake_core, scenario_file, tmp_path):
    stream = io.StringIO()
    bar = runner.Progress(6, "p", stream=stream)
    with bar:
        for _ in range(6):
            bar.advance()
    assert bar.done == bar.total == 6 and stream.getvalue().startswith("p: 6/6 runs (100%)")


# --- two sweeps, one store ---------------------------------------------------------------

def test_second_sweep_takes_only_unclaimed_runs(fake_core, scenario_file, tmp_path, monkeypatch):
    """Sweep A's runs block until released; sweep B, started while A holds its
    claims, simulates only the others and waits for A's; nothing runs twice."""
    monkeypatch.setattr(runner, "WAIT_POLL_S", 0.01)
    db = tmp_path / "r.db"
    spec = spec_for(scenario_file, windows=(1, 2, 3, 4), replications=3)  # 12 runs
    release = threading.Event()
    ran_a: list[int] = []
    ran_b: list[tuple[str, int]] = []

    def run_a(toml, overrides, seed):
        release.wait(60)
        ran_a.append(seed)
        return fake_core.run(toml, overrides, seed, None)

    def run_b(toml, overrides, seed):
        ran_b.append((dict(overrides)["tcp.max_window"], seed))
        return fake_core.run(toml, overrides, seed, None)

    result_a: dict = {}
    a = threading.Thread(target=lambda: result_a.update(df=run_sweep(spec, store=db, jobs=1, progress=False,
                                                                     run_fn=run_a)))
    a.start()

    def claims():
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
        except sqlite3.OperationalError:
            return 0
        finally:
            con.close()

    wait_until(lambda: claims() == 2, "sweep A holds two claims (one per worker slot)")
    finished_b = threading.Event()
    result_b: dict = {}

    def sweep_b():
        result_b["df"] = run_sweep(spec, store=db, jobs=2, progress=False, run_fn=run_b)
        finished_b.set()

    b = threading.Thread(target=sweep_b)
    b.start()
    wait_until(lambda: count_runs(db) == 10, "sweep B ran the ten unclaimed runs")
    assert not finished_b.is_set()  # B waits for A's two
    release.set()
    a.join(60)
    b.join(60)
    assert len(ran_a) == 2 and len(ran_b) == 10 and count_runs(db) == 12
    assert len(result_a["df"]) == len(result_b["df"]) == 12
    assert result_b["df"].attrs["ran"] == 10 and result_a["df"].attrs["ran"] == 2
    assert claims() == 0


def test_claims_of_a_dead_sweep_expire(fake_core, scenario_file, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WAIT_POLL_S", 0.01)
    db = tmp_path / "r.db"
    spec = spec_for(scenario_file)
    plan = make_plan(spec)
    keys = [t.key for t in plan.tasks]
    with Store(db) as s:
        s.register_sweep(spec.name, spec.to_dict(), plan.version, plan.members)
        assert s.claim(keys[:2], plan.version, "expired-owner", ttl_s=-1.0) == keys[:2]  # lease already over
        assert s.claim(keys[2:4], plan.version, "other-live-owner", ttl_s=600.0) == keys[2:4]
        assert s.claim(keys[2:4], plan.version, "me", ttl_s=600.0) == []  # live claims are respected
        assert s.live_claims(plan.version) == set(keys[2:4])
        s.release_claims("other-live-owner")
    df = run_sweep(spec, store=db, progress=False)
    assert fake_core.runs == 6 and len(df) == 6


FAKE_CLI = """
import os, sys
import fake_core
fake_core.install(block_from=int(os.environ["FAKE_BLOCK_FROM"]))
from hoptcp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_claims_of_a_killed_process_are_taken_over(scenario_file, tmp_path, subprocess_env):
    """A sweep killed with SIGKILL while holding claims: the next sweep on the
    store sees its process is gone and runs everything that is missing."""
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{scenario_file.name}"\nname = "k"\nreplications = 4\n'
                    '[grid]\n"tcp.max_window" = [1, 2]\n')
    db = tmp_path / "r.db"
    cmd = [sys.executable, str(script), "sweep", str(spec), "--store", str(db), "-j", "2"]
    proc = subprocess.Popen(cmd, env=dict(subprocess_env, FAKE_BLOCK_FROM="3"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)

    def state():
        try:
            con = sqlite3.connect(db, timeout=5)
            try:
                return (con.execute("SELECT COUNT(*) FROM runs").fetchone()[0],
                        con.execute("SELECT COUNT(*) FROM claims").fetchone()[0])
            finally:
                con.close()
        except sqlite3.OperationalError:
            return (0, 0)

    wait_until(lambda: state() == (3, 4) or proc.poll() is not None, "3 runs stored, 4 claimed (2 per worker)")
    assert proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert state() == (3, 4)  # the dead process's claims are still there
    out = subprocess.run(cmd, env=dict(subprocess_env, FAKE_BLOCK_FROM="1000"), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "3 cached, 5 to run" in out.stderr and "ran 5 simulations" in out.stderr
    assert state() == (8, 0)


def test_results_are_the_same_with_claims(fake_core, scenario_file, tmp_path):
    a = run_sweep(spec_for(scenario_file), store=tmp_path / "a.db", progress=False)
    b = run_sweep(spec_for(scenario_file), store=":memory:", progress=False)
    cols = [c for c in a.columns if c != "wall_time_s"]
    assert a[cols].equals(b[cols])
    assert json.loads(a.to_json())  # plain data
