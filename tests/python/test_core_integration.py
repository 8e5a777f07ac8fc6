"""Integration tests against the compiled core (skipped until hoptcp._core is built).

They exercise the contract end to end: a 500-run sweep with a progress bar, a
re-run that simulates nothing, a sweep killed with SIGKILL that resumes with
exactly the missing runs, Dask giving the same results as local threads, and
the reproduction catalogue rendering a report with its figure.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import hoptcp
from hoptcp import Scenario, ScenarioError, Store
from hoptcp.cli import main
from hoptcp.sweep import SweepSpec, run_sweep

from store_helpers import count_runs, wait_until

pytestmark = pytest.mark.core

# Schema v1: one saturated UDP sender, one hop. Short runs keep the suite quick.
UDP_HOP = """
duration_s = 0.2
seed = 1

[topology]
kind = "chain"
hops = 1
spacing_m = 200.0

[radio]
data_rate_mbps = 2.0
basic_rate_mbps = 1.0

[mac]
rts_threshold_bytes = 0

[[flows]]
src = 0
dst = 1
transport = "udp"
app = "cbr"
rate_bps = 1000000.0
packet_bytes = 1000
start_s = 0.0
"""

TCP_CHAIN = """
duration_s = 2.0
seed = 1

[topology]
kind = "chain"
hops = 4
spacing_m = 200.0

[tcp]
max_window = 4

[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""


@pytest.fixture
def udp_file(tmp_path: Path) -> Path:
    p = tmp_path / "udp.toml"
    p.write_text(UDP_HOP)
    return p


def _without_wall(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "wall_time_s"}


def test_contract_basics(real_core, udp_file):
    assert isinstance(real_core.version(), str) and real_core.version()
    assert issubclass(real_core.ScenarioError, ValueError)
    text = real_core.resolve(UDP_HOP, [("flows.0.rate_bps", "1e5")])
    doc = json.loads(text)
    assert list(doc) == sorted(doc) and list(doc["mac"]) == sorted(doc["mac"])  # canonical: sorted keys
    assert doc["flows"][0]["rate_bps"] == 1e5 and "mac" in doc and "radio" in doc
    sc = Scenario.load(udp_file)
    assert sc.hash() == sc.with_(seed=42).hash() != sc.with_(flows__0__packet_bytes=500).hash()
    with pytest.raises(ScenarioError) as exc:
        sc.with_(mac__rts_treshold_bytes=0).resolved()
    assert "rts_treshold_bytes" in str(exc.value)
    with pytest.raises(real_core.ScenarioError):  # hoptcp's class is a subclass of the core's
        sc.with_(topology__kind="ring").resolved()


def test_run_result_and_determinism(real_core, tmp_path):
    p = tmp_path / "tcp.toml"
    p.write_text(TCP_CHAIN)
    a = hoptcp.run(p, seed=3)
    b = hoptcp.run(Scenario.load(p), seed=3)
    assert _without_wall(a.raw) == _without_wall(b.raw)
    for key in ("seed", "duration_s", "events", "wall_time_s", "hoptcp_version", "flows", "nodes", "drops",
                "fairness_jain", "aggregate_goodput_bps"):
        assert key in a.raw, key
    assert a.seed == 3 and a.raw["hoptcp_version"] == real_core.version()
    f = a.flows.iloc[0]
    assert f["transport"] == "tcp" and f["hops"] == 4 and "avg_cwnd" in a.flows.columns
    m = a.metrics()
    assert "flow.0.goodput_bps" in m and "drops.queue_overflow" in m and "node.0.queue_max" in m
    assert set(a.drops.columns) == {"cause", "kind", "count"}


def test_cli_run_on_real_core(real_core, capsys, tmp_path):
    p = tmp_path / "tcp.toml"
    p.write_text(TCP_CHAIN)
    assert main(["run", str(p), "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Flows" in out and "Drops by cause" in out
    assert main(["run", str(p), "--json", "--set", "tcp.max_window=2"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 1
    assert main(["run", str(p), "--set", "tcp.max_windw=2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "max_windw" in err[0]


def test_500_run_sweep_progress_and_free_rerun(real_core, udp_file, tmp_path, capsys):
    spec = SweepSpec.build(udp_file, name="big", grid={
        "flows.0.packet_bytes": [200, 400, 600, 800, 1000],
        "flows.0.rate_bps": [1e5, 2e5, 4e5, 8e5, 1.6e6, 3.2e6, 6.4e6, 1e7, 2e7, 4e7]}, replications=10)
    db = tmp_path / "big.db"
    df = run_sweep(spec, store=db, progress=True)
    err = capsys.readouterr().err
    assert len(df) == 500 and df.attrs["ran"] == 500
    assert "500 cached" not in err and "0 cached, 500 to run" in err
    assert "500/500" in err  # the progress bar's done/total
    again = run_sweep(spec, store=db, progress=True)
    err = capsys.readouterr().err
    assert again.attrs["ran"] == 0 and "500 cached, 0 to run" in err
    assert again.equals(df)
    assert Store(db).count() == 500


GATED_CLI = """
import os, sys
import fake_core
if os.environ.get("GATE_FROM"):
    fake_core.install_gated(int(os.environ["GATE_FROM"]))
from hoptcp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigkill_midway_then_resume_runs_exactly_the_missing(real_core, udp_file, tmp_path, subprocess_env):
    """The real core in a subprocess whose runs from the 6th on never end (a
    gate in front of the core): killed with SIGKILL once 5 runs are stored."""
    n = 60
    spec = tmp_path / "kill.toml"
    spec.write_text(f'scenario = "{udp_file.name}"\nname = "kill"\nreplications = {n // 3}\n'
                    '[grid]\n"flows.0.packet_bytes" = [500, 1000, 1500]\n')
    script = tmp_path / "gated_cli.py"
    script.write_text(GATED_CLI)
    db = tmp_path / "kill.db"
    cmd = [sys.executable, str(script), "sweep", str(spec), "--store", str(db), "-j", "1"]
    proc = subprocess.Popen(cmd, env=dict(subprocess_env, GATE_FROM="5"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    wait_until(lambda: count_runs(db) == 5 or proc.poll() is not None, "5 runs stored")
    assert proc.poll() is None, "the sweep ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert count_runs(db) == 5
    out = subprocess.run(cmd, env=subprocess_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert f"5 cached, {n - 5} to run" in out.stderr
    assert f"ran {n - 5} simulations" in out.stderr
    assert count_runs(db) == n


def test_dask_local_cluster_matches_local_run(real_core, udp_file, tmp_path, subprocess_env):
    distributed = pytest.importorskip("distributed")
    spec = SweepSpec.build(udp_file, name="d", grid={"flows.0.packet_bytes": [300, 900, 1400]}, replications=4)
    local = run_sweep(spec, store=tmp_path / "local.db", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = run_sweep(spec, store=tmp_path / "dask.db", dask=cluster.scheduler_address, progress=False)
    cols = [c for c in local.columns if c != "wall_time_s"]
    assert remote[cols].equals(local[cols])
    with Store(tmp_path / "local.db") as a, Store(tmp_path / "dask.db") as b:
        for _, row in local.iterrows():
            key = (row["scenario_hash"], int(row["seed"]), row["hoptcp_version"])
            assert _without_wall(a.result(*key)) == _without_wall(b.result(*key))


def test_reproduce_list_and_quick_report(real_core, capsys, tmp_path):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "single-hop" in out and "bianchi" in out
    for entry in ("single-hop", "bianchi"):
        out_dir = tmp_path / entry
        assert main(["reproduce", entry, "--quick", "--out", str(out_dir), "--store", str(tmp_path / "r.db"),
                     "-q"]) == 0
        report = (out_dir / "report.md").read_text()
        assert "## Claims" in report and "hoptcp (mean ± 95% CI)" in report
        assert "| **error** |" not in report and "| **no data** |" not in report, report  # model params understood
        assert (out_dir / "results.csv").exists()
    png = tmp_path / "bianchi" / "throughput-vs-n.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![" in (tmp_path / "bianchi" / "report.md").read_text()


def test_models_answer(real_core):
    w = hoptcp.model("wstar", topology="chain", hops=8)
    assert isinstance(w, dict) and w
    with pytest.raises(ValueError):
        hoptcp.model("wstar", topology="chain", hops=-1)


@pytest.mark.core
def test_batch_means_of_delivered_packet_batches(scenario_file):
    """stats.batch_packets = k gives per-batch goodput; batch means over them
    agree with the run's overall goodput within the CI (steady state)."""
    r = hoptcp.run(scenario_file, seed=3, stats__batch_packets=200, duration_s=120)
    batches = r.raw["flows"][0]["batch_goodput_bps"]
    delivered = r.raw["flows"][0]["packets_delivered"]
    assert len(batches) == delivered // 200
    est = hoptcp.flow_batch_means(r, flow=0, discard=1)
    assert est.n == len(batches) - 1
    overall = r.raw["flows"][0]["goodput_bps"]
    assert abs(est.mean - overall) <= max(3 * est.ci, 0.03 * overall)
    with pytest.raises(hoptcp.SpecError, match="batch_packets"):
        hoptcp.flow_batch_means(hoptcp.run(scenario_file, seed=3, duration_s=5))


GAP_PARTS = """
duration_s = 300
seed = 2

[topology]
kind = "chain"
hops = 4
spacing_m = 200.0

[radio]
data_rate_mbps = 11.0

[tcp]
variant = "tcp_ap"
max_window = 32

[stats]
batch_packets = 500
batches = 11

[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"

[[flows]]
src = 4
dst = 0
transport = "tcp"
app = "http"
mean_think_s = 0.5
"""


@pytest.mark.core
def test_tcp_ap_http_and_batch_means_through_python(real_core, tmp_path, capsys):
    """TCP-AP pacing, HTTP pages and the batch-means stop rule reach the
    Python API: the core's Student-t interval agrees with scipy's, and the
    new fields are sweepable metrics and table columns."""
    p = tmp_path / "gap.toml"
    p.write_text(GAP_PARTS)
    r = hoptcp.run(p)
    raw = r.raw["batch_means"]
    assert raw["complete"] and raw["completed"] == 11 and r.raw["duration_s"] < 300
    kept = raw["aggregate_goodput_bps"]["batches"][1:]
    est = hoptcp.mean_ci(kept, confidence=0.95)
    bm = r.batch_means
    assert bm.loc["aggregate_goodput_bps", "mean"] == pytest.approx(est.mean, rel=1e-12)
    assert bm.loc["aggregate_goodput_bps", "ci"] == pytest.approx(est.ci, rel=1e-6)
    assert bm.loc["aggregate_goodput_bps", "batches"] == 10
    assert list(bm.index) == ["aggregate_goodput_bps", "fairness_jain", "flow.0.goodput_bps", "flow.1.goodput_bps"]
    m = r.metrics()
    for key in ("batch_means.aggregate_goodput_bps.mean", "batch_means.flow.1.goodput_bps.ci",
                "flow.0.pacing.rate_pps", "flow.1.http.pages_completed"):
        assert key in m, key
    f = r.flows
    assert f.loc[0, "pacing.paced_packets"] > 0 and f.loc[1, "http.pages_completed"] > 10
    assert f.loc[1, "app"] == "http"
    plain = tmp_path / "plain.toml"
    plain.write_text(TCP_CHAIN)
    with pytest.raises(hoptcp.SpecError, match="stats.batches"):
        _ = hoptcp.run(plain).batch_means
    assert main(["run", str(p)]) == 0
    out = capsys.readouterr().out
    assert "batch means (11 of 11 batches of 500 packets" in out
    assert "flow 0 TCP-AP: rate" in out and "flow 1 HTTP:" in out


@pytest.mark.core
def test_progress_callback_reports_and_can_stop_a_run():
    """Long runs report progress; an exception from the callback (as Ctrl-C
    raises KeyboardInterrupt) stops the run and propagates."""
    from hoptcp import _core

    seen = []
    text = Path(__file__).resolve().parents[2].joinpath("examples", "chain7.toml").read_text()
    # progress_every_s=0: a report at every check (each 65,536 events), whatever the machine's speed
    out = json.loads(_core.run(text, [("duration_s", "20")], None, None, seen.append, progress_every_s=0.0))
    assert out["duration_s"] == 20.0
    assert len(seen) == out["events"] // 65536
    assert all(0.0 < f <= 1.0 for f in seen) and seen == sorted(seen)

    class Stop(Exception):
        pass

    def stop(_fraction):
        raise Stop()

    with pytest.raises(Stop):
        _core.run(text, [("duration_s", "20")], None, None, stop, progress_every_s=0.0)
