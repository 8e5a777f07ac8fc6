"""Time series of every protocol state (stats.series cwnd .. mac): the Python API, the CLI,
sweep specs and the store, and the cwnd trace held against the reported average."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hoptcp
from hoptcp import Scenario, SpecError
from hoptcp.cli import main
from hoptcp.results import MAC_STATES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _time_average(t: np.ndarray, v: np.ndarray, end: float, cap: float) -> float:
    """Mean of the step function (t, v) from its first point to ``end``, values capped at ``cap``."""
    nxt = np.append(t[1:], end)
    return float(np.sum(np.minimum(v, cap) * (nxt - t)) / (end - t[0]))


@pytest.mark.core
def test_chain7_cwnd_trace_averages_to_the_reported_avg_cwnd(real_core):
    # The report's avg_cwnd is the time average of min(cwnd + fast-recovery inflation, max_window)
    # from the first transmission to the end (transport/tcp/window_stats.rs); the series' "cwnd"
    # metric is that window, recorded at every change, so the two agree to rounding.
    sc = Scenario.load(EXAMPLES / "chain7.toml").with_(duration_s=60)
    r = hoptcp.run(sc, seed=1, series=["cwnd"])
    df = r.timeseries("cwnd")
    assert list(df.columns) == ["time_s", "flow", "metric", "value"]
    c = df[(df["metric"] == "cwnd") & (df["flow"] == 0)]
    assert len(c) > 100 and c["time_s"].is_monotonic_increasing
    flow = r.raw["flows"][0]
    avg = _time_average(c["time_s"].to_numpy(), c["value"].to_numpy(), 60.0, 32.0)
    assert avg == pytest.approx(flow["avg_cwnd"], rel=1e-3)
    traced = df[(df["metric"] == "cwnd_traced") & (df["flow"] == 0)]
    avg_t = _time_average(traced["time_s"].to_numpy(), traced["value"].to_numpy(), 60.0, 32.0)
    assert avg_t == pytest.approx(flow["avg_cwnd_traced"], rel=1e-3)
    assert c["value"].iloc[-1] == flow["final_cwnd"]


@pytest.mark.core
def test_every_kind_is_a_long_table_keyed_by_flow_or_node(real_core):
    sc = Scenario.load(EXAMPLES / "chain7.toml").with_(duration_s=10)
    kinds = ["cwnd", "ssthresh", "rtt", "rto", "goodput", "queue", "mac"]
    plain = hoptcp.run(sc, seed=3)
    r = hoptcp.run(sc, seed=3, series=kinds)
    same = {k: v for k, v in r.metrics().items() if k != "wall_time_s"}
    assert same == {k: v for k, v in plain.metrics().items() if k != "wall_time_s"}
    flow = r.raw["flows"][0]
    rtt = r.timeseries("rtt")
    assert len(rtt) == flow["rtt_samples"] and rtt["value"].mean() == pytest.approx(flow["avg_rtt_s"], rel=1e-9)
    rto = r.timeseries("rto")
    last = rto.groupby("metric", observed=True)["value"].last()
    assert last.get("timeouts", 0) == flow["timeouts"] and last.get("retransmissions", 0) == flow["retransmissions"]
    g = r.timeseries("goodput")
    assert g["value"].iloc[-1] == flow["bytes_delivered"]
    q = r.timeseries("queue")
    assert list(q.columns) == ["time_s", "node", "metric", "value"]
    for n in r.raw["nodes"]:
        vals = q[q["node"] == n["id"]]["value"]
        assert (vals.max() if len(vals) else 0) == n["queue_max"]
    mac = r.timeseries("mac")
    states = mac[mac["metric"] == "state"]["value"]
    assert set(states.unique()) <= set(range(len(MAC_STATES))) and {0, 3, 4} <= set(states.unique())
    retries = mac[mac["metric"] == "retries"].groupby("node")["value"].last()
    for n in r.raw["nodes"]:
        assert retries.get(n["id"], 0) == n["retries"]
    with pytest.raises(SpecError, match="no 'air' series|air trace"):
        r.timeseries("air")
    with pytest.raises(SpecError, match="no 'ssthresh'"):
        plain.timeseries("ssthresh")


@pytest.mark.core
def test_cli_run_series_and_plot_run(real_core, capsys, tmp_path):
    out = tmp_path / "run.json"
    code = main(["run", str(EXAMPLES / "chain7.toml"), "--set", "duration_s=5", "--series", "cwnd,queue",
                 "--json"])
    text = capsys.readouterr().out
    assert code == 0
    out.write_text(text)
    doc = json.loads(text)
    assert set(doc["time_series"]) == {"cwnd", "queue"}
    png = tmp_path / "run.png"
    assert main(["plot-run", str(out), "--series", "cwnd", "--series", "queue", "-o", str(png)]) == 0
    assert png.stat().st_size > 10_000
    # A scenario is run with the series the panels need.
    png2 = tmp_path / "scenario.png"
    assert main(["plot-run", str(EXAMPLES / "chain7.toml"), "--set", "duration_s=3", "--series", "rtt,mac",
                 "-o", str(png2)]) == 0
    assert png2.stat().st_size > 10_000
    capsys.readouterr()
    assert main(["plot-run", str(out), "--series", "ssthresh", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "no 'ssthresh' series" in err and "Traceback" not in err
    assert main(["plot-run", str(out), "--series", "cwdn"]) == 2
    assert "--series cwdn: unknown" in capsys.readouterr().err


@pytest.mark.core
def test_sweep_spec_series_are_kept_by_the_store(real_core, tmp_path):
    from hoptcp.store import Store

    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{EXAMPLES / "chain7.toml"}"\nname = "s"\nseeds = [1]\nseries = ["cwnd"]\n'
                    '[set]\nduration_s = 3\n[grid]\n"tcp.max_window" = [2, 4]\n')
    db = tmp_path / "r.db"
    assert main(["sweep", str(spec), "--store", str(db), "-j", "1"]) == 0
    with Store(db, read_only=True) as st:
        rows = st.rows("s")
        assert len(rows) == 2
        for row in rows:
            raw = st.result(row["scenario_hash"], row["seed"], row["hoptcp_version"])
            assert raw is not None
            cw = raw["time_series"]["cwnd"]
            assert max(v for v, m in zip(cw["value"], cw["metric"]) if m == 0) >= row["params"]["tcp.max_window"]
    bad = tmp_path / "bad.toml"
    bad.write_text(f'scenario = "{EXAMPLES / "chain7.toml"}"\nseries = "cwnd"\n')
    with pytest.raises(SpecError, match="series: expected a list"):
        hoptcp.SweepSpec.load(bad)


@pytest.mark.core
def test_effective_window_averages_to_avg_cwnd_and_its_cap_is_known_from_json(real_core, tmp_path):
    import json

    import numpy as np

    from hoptcp.plotting import new_figure, plot_run
    from hoptcp.results import RunResult

    sc = Scenario.load(EXAMPLES / "chain7.toml").with_(duration_s=60)
    r = hoptcp.run(sc, seed=1, series=["cwnd"])
    assert r.window_caps() == {0: 32.0}
    df = r.timeseries("cwnd")
    eff, raw = (df[(df["metric"] == m) & (df["flow"] == 0)] for m in ("effective", "cwnd"))
    assert raw["value"].max() > 32 and eff["value"].max() == 32  # the inflation is capped
    t, v = eff["time_s"].to_numpy(), eff["value"].to_numpy()
    dt = np.diff(np.append(t, 60.0))
    assert float((v * dt).sum() / dt.sum()) == pytest.approx(r.raw["flows"][0]["avg_cwnd"], rel=1e-12)
    # read back from JSON, without the scenario: the same cap, from avg_cwnd
    assert RunResult(json.dumps(r.raw)).window_caps() == {0: 32.0}
    # per-flow caps (a number and "wstar") on two flows; plot-run draws each cap
    two = Scenario.load(EXAMPLES / "chain7.toml").with_(duration_s=20, flows=[
        {"src": 0, "dst": 7, "transport": "tcp", "max_window": 4},
        {"src": 7, "dst": 0, "transport": "tcp", "max_window": "wstar"}])
    r2 = hoptcp.run(two, seed=2, series=["cwnd"])
    caps = r2.window_caps()
    assert caps[0] == 4 and caps[1] == r2.scenario.resolved()["flows"][1]["max_window"] < 4
    fig = new_figure()
    ax = plot_run(r2, fig, ["cwnd"])[0]
    dashed = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")
    assert dashed == sorted(caps.values())
    assert "MaxWin" in ax.get_ylabel()
