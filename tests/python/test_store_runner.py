import json
import signal
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import hoptcp
from hoptcp import SpecError, Store
from hoptcp.runner import RunError, Task, execute
from hoptcp.sweep import SweepSpec, run_sweep

from store_helpers import count_runs, wait_until

HERE = Path(__file__).resolve().parent


def spec_for(scenario_file, **kw):
    kw.setdefault("grid", {"tcp.max_window": [1, 2, 3], "mac.queue_limit": [10, 20]})
    kw.setdefault("replications", 3)
    return SweepSpec.build(scenario_file, name=kw.pop("name", "s"), **kw)


def test_sweep_stores_and_loads(fake_core, scenario_file, tmp_path):
    db = tmp_path / "r.db"
    df = hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2, 3], "mac.queue_limit": [10, 20]},
                      replications=3, store=db, progress=False, name="s")
    assert len(df) == 18 and fake_core.runs == 18
    assert df.attrs["ran"] == 18 and df.attrs["cached"] == 0
    assert list(df.columns[:4]) == ["sweep", "tcp.max_window", "mac.queue_limit", "seed"]
    assert {"aggregate_goodput_bps", "flow.0.avg_cwnd", "node.4.queue_max", "scenario_hash", "hoptcp_version"} <= set(df.columns)
    loaded = hoptcp.load(db, sweep="s")
    assert loaded.drop(columns=[]).equals(df)
    # the row layout of the store
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    h, seed, ver, sweep, params, scen, metrics, blob, wall, ts = con.execute("SELECT * FROM runs LIMIT 1").fetchone()
    assert ver == "0.0.0-fake" and sweep == "s" and json.loads(params).keys() == {"tcp.max_window", "mac.queue_limit"}
    assert json.loads(zlib.decompress(blob))["seed"] == seed and "seed" not in json.loads(scen)
    assert "aggregate_goodput_bps" in json.loads(metrics) and wall is not None and ts


def test_rerun_is_cached_and_extension_runs_only_new(fake_core, scenario_file, tmp_path, capsys):
    db = tmp_path / "r.db"
    run_sweep(spec_for(scenario_file), store=db, progress=False)
    assert fake_core.runs == 18
    df = run_sweep(spec_for(scenario_file), store=db, progress=True)
    assert fake_core.runs == 18 and df.attrs["ran"] == 0 and len(df) == 18
    assert "18 cached, 0 to run" in capsys.readouterr().err
    # one more window value and one more seed: only the new runs are simulated
    df = run_sweep(spec_for(scenario_file, grid={"tcp.max_window": [1, 2, 3, 4], "mac.queue_limit": [10, 20]},
                            replications=4), store=db, progress=True)
    assert fake_core.runs == 18 + (32 - 18) and len(df) == 32
    assert "18 cached, 14 to run" in capsys.readouterr().err
    # a sweep redefined with fewer points shows only those, the other runs stay cached
    df = run_sweep(spec_for(scenario_file, grid={"tcp.max_window": [1], "mac.queue_limit": [10]}, replications=1),
                   store=db, progress=False)
    assert len(df) == 1 and Store(db).count() == 32


def test_runs_are_shared_between_sweeps(fake_core, scenario_file, tmp_path):
    db = tmp_path / "r.db"
    run_sweep(spec_for(scenario_file, name="a"), store=db, progress=False)
    df = run_sweep(spec_for(scenario_file, name="b", grid={"tcp.max_window": [2, 3], "mac.queue_limit": [10]}),
                   store=db, progress=False)
    assert fake_core.runs == 18 and len(df) == 6
    assert set(hoptcp.load(db)["sweep"]) == {"a", "b"} and len(hoptcp.load(db)) == 24
    sweeps = {s["sweep"]: s for s in Store(db).sweeps()}
    assert sweeps["b"]["done"] == 6 and sweeps["a"]["points"] == 6 and sweeps["b"]["points"] == 2


def test_load_filters(fake_core, scenario_file, tmp_path):
    db = tmp_path / "r.db"
    run_sweep(spec_for(scenario_file), store=db, progress=False)
    assert len(hoptcp.load(db, where={"tcp.max_window": 2})) == 6
    assert len(hoptcp.load(db, where={"tcp.max_window": [1, 3], "seed": 1})) == 4
    assert len(hoptcp.load(db, where="`mac.queue_limit` == 10 and seed > 1")) == 6
    m = hoptcp.load(db, metrics=["aggregate_goodput_bps", "flow.*.goodput_bps"])
    assert list(m.attrs["metrics"]) == ["aggregate_goodput_bps", "flow.0.goodput_bps"]
    with pytest.raises(SpecError, match="sweep 'x' is not in store"):
        hoptcp.load(db, sweep="x")
    with pytest.raises(SpecError, match="no column 'tcp.max_windw' \\(did you mean 'tcp.max_window'\\?\\)"):
        hoptcp.load(db, where={"tcp.max_windw": 1})
    with pytest.raises(SpecError, match="store not found"):
        hoptcp.load(tmp_path / "none.db")


def test_metric_filter_checked_on_first_result(fake_core, scenario_file, tmp_path):
    with pytest.raises(SpecError, match="'goodput' matches no metric"):
        run_sweep(spec_for(scenario_file, metrics=["goodput"]), store=tmp_path / "r.db", progress=False)
    assert fake_core.runs == 1  # failed fast
    df = run_sweep(spec_for(scenario_file, metrics=["aggregate_goodput_bps"]), store=tmp_path / "r.db", progress=False)
    assert list(df.attrs["metrics"]) == ["aggregate_goodput_bps"] and fake_core.runs == 18


def test_parallel_threads_give_identical_results(fake_core, scenario_file, tmp_path):
    a = run_sweep(spec_for(scenario_file), store=tmp_path / "a.db", jobs=1, progress=False)
    b = run_sweep(spec_for(scenario_file), store=tmp_path / "b.db", jobs=4, progress=False)
    cols = [c for c in a.columns if c != "wall_time_s"]
    assert a[cols].equals(b[cols])


def test_execute_uses_given_run_function_and_reports_failures(scenario_file):
    calls = []

    def run_fn(toml, overrides, seed):
        calls.append(seed)
        if seed == 2:
            raise RuntimeError("boom")
        return json.dumps({"seed": seed})

    tasks = [Task("h", s, "", ()) for s in range(4)]
    got = []
    with pytest.raises(RunError, match=r"1 of 4 runs failed.*seed 2: boom"):
        execute(tasks, lambda t, js: got.append(t.seed), run_fn=run_fn, jobs=2, progress=False)
    assert sorted(got) == [0, 1, 3] and sorted(calls) == [0, 1, 2, 3]


def test_runtime_scenario_error_is_a_spec_error(fake_core, scenario_file, tmp_path):
    # flows.0.dst beyond the last node: only detected when the network is built
    spec = SweepSpec.build(scenario_file, name="bad", grid={"flows.0.dst": [4, 9]}, seeds=[1])
    with pytest.raises(SpecError, match="1 of 2 runs failed.*flows.0.dst"):
        run_sweep(spec, store=tmp_path / "r.db", progress=False)
    assert Store(tmp_path / "r.db").count() == 1  # the good run is kept


def test_dask_threads_identical_to_local(fake_core, scenario_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = run_sweep(spec_for(scenario_file), store=tmp_path / "a.db", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_sweep(spec_for(scenario_file), store=tmp_path / "b.db", dask=cluster.scheduler_address,
                           progress=False)
    cols = [c for c in local.columns if c != "wall_time_s"]
    assert remote[cols].equals(local[cols])
    assert fake_core.runs == 36


def test_dask_bad_address_is_a_clear_error(fake_core, scenario_file, tmp_path):
    pytest.importorskip("distributed")
    with pytest.raises(SpecError, match="dask"):
        run_sweep(spec_for(scenario_file), store=tmp_path / "a.db", dask=42, progress=False)


def other_version(toml, overrides, seed):
    return json.dumps({"seed": seed, "hoptcp_version": "9.9"})


def test_version_mismatch_from_a_worker_is_refused(fake_core, scenario_file, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with pytest.raises(RunError, match="runs hoptcp 9.9"):
            run_sweep(spec_for(scenario_file), store=tmp_path / "a.db", progress=False, run_fn=other_version,
                      dask=cluster.scheduler_address)


def test_commit_per_run_is_visible_to_other_connections(fake_core, scenario_file, tmp_path):
    db = tmp_path / "r.db"
    seen = []

    def run_fn(toml, overrides, seed):
        if seed == 3:  # while this run is in progress, the first two are readable elsewhere
            wait_until(lambda: count_runs(db) >= 2, "two runs visible to another connection")
            seen.append(count_runs(db))
        return fake_core.run(toml, overrides, seed, None)

    run_sweep(spec_for(scenario_file, grid={"tcp.max_window": [1]}), store=db, jobs=1, progress=False, run_fn=run_fn)
    assert seen == [2]


FAKE_CLI = """
import os, sys
import fake_core
fake_core.install(block_from=int(os.environ["FAKE_BLOCK_FROM"]) if os.environ.get("FAKE_BLOCK_FROM") else None)
from hoptcp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigkill_then_resume_runs_exactly_the_missing(scenario_file, tmp_path, subprocess_env):
    """The CLI in a subprocess (fake core whose runs from the 9th on never end),
    killed with SIGKILL once 8 runs are stored."""
    script = tmp_path / "fake_cli.py"
    script.write_text(FAKE_CLI)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{scenario_file.name}"\nname = "k"\nreplications = 10\n'
                    '[grid]\n"tcp.max_window" = [1, 2, 3, 4]\n')
    db = tmp_path / "r.db"
    env = dict(subprocess_env, FAKE_BLOCK_FROM="8")
    cmd = [sys.executable, str(script), "sweep", str(spec), "--store", str(db), "-j", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: count_runs(db) == 8 or proc.poll() is not None, "8 runs stored")
    assert proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert count_runs(db) == 8
    env.pop("FAKE_BLOCK_FROM")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "8 cached, 32 to run" in out.stderr
    assert "ran 32 simulations" in out.stderr
    assert count_runs(db) == 40
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert "40 cached, 0 to run" in again.stderr


def test_sweeping_a_key_that_is_also_a_metric(fake_core, scenario_file, tmp_path):
    """duration_s is both a parameter and a result field: one column, the parameter."""
    df = hoptcp.sweep(scenario_file, grid={"duration_s": [1.0, 2.0]}, replications=1, store=tmp_path / "d.db",
                      progress=False)
    assert list(df.columns).count("duration_s") == 1
    assert sorted(df["duration_s"]) == [1.0, 2.0]
    assert "duration_s" in df.attrs["params"] and "duration_s" not in df.attrs["metrics"]
    # attrs survive slicing and are shared, not copied
    assert df[df["duration_s"] == 1.0].attrs["metrics"] is df.attrs["metrics"]
