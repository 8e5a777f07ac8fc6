"""Hybrid wired/wireless scenarios (``[wired]``, TCP-GAP) through Python and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

import hoptcp
from hoptcp import Scenario, ScenarioError
from hoptcp.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.core
def test_gap_chain_reports_wired_links_and_the_gateway(real_core, capsys):
    sc = Scenario.load(EXAMPLES / "gap-chain.toml").with_(duration_s=20)
    r = hoptcp.run(sc, seed=1)
    w = r.raw["wired"]
    assert w["gateway"] == 7 and w["first_node"] == 8 and len(w["links"]) == 3
    # The data go 7 → 8 → 9 → 10, the ACKs back: every link carried them.
    assert all(link["a_to_b"]["packets_sent"] > 0 and link["b_to_a"]["packets_sent"] > 0 for link in w["links"])
    m = r.metrics()
    assert m["wired.link.0.a_to_b.packets_sent"] == w["links"][0]["a_to_b"]["packets_sent"]
    assert m["wired.tcp_gap.flow.0.rtt_samples"] > 0
    assert r.flows.loc[0, "hops"] == 10
    assert main(["run", str(EXAMPLES / "gap-chain.toml"), "--set", "duration_s=5"]) == 0
    out = capsys.readouterr().out
    assert "Wired links (gateway 7)" in out and "TCP-GAP gateway" in out and "wireless_to_wired" in out


@pytest.mark.core
def test_without_wired_the_scenario_hash_is_unchanged(real_core):
    plain = Scenario.load(EXAMPLES / "chain7-aodv.toml")
    assert "wired" not in plain.resolved() and "gateway" not in plain.resolved()["topology"]
    with pytest.raises(ScenarioError, match=r"wired\.gateway"):
        plain.with_(wired__gateway=99).resolved()


@pytest.mark.core
def test_link_drops_and_an_ftp_pause_through_the_api(real_core):
    sc = Scenario.load(EXAMPLES / "gap-parallel.toml").with_(duration_s=60, stats__throughput_interval_s=1.0,
                                                               flows__1__pauses=[[20.0, 40.0]])
    r = hoptcp.run(sc, seed=1)
    ld = r.link_drops
    assert list(ld.columns) == ["from", "to", "tcp_data", "tcp_ack", "udp", "aodv"]
    m = r.metrics()
    for row in ld.itertuples(index=False):
        assert m[f"link_drop.{row[0]}-{row[1]}.tcp_data"] == row.tcp_data
    # FTP 2 delivers nothing from a few seconds into its pause until it resumes.
    s = r.raw["series"]["flows"]["1"]
    assert sum(s[25:40]) == 0 and sum(s[42:60]) > 0
    with pytest.raises(ScenarioError, match=r"flows\.1\.pauses\[0\]"):
        sc.with_(flows__1__pauses=[[50.0, 70.0]]).resolved()


def _downlink(hops: int = 3) -> Scenario:
    """gap-chain's wired host sending to the chain's far end (NewReno paced by the gateway)."""
    return Scenario.load(EXAMPLES / "gap-chain.toml").with_(
        duration_s=20, topology__hops=hops, flows__0__src=hops + 3, flows__0__dst=0, flows__0__variant="newreno")


@pytest.mark.core
def test_gateway_series_is_a_long_table_that_matches_the_gateways_counters(real_core):
    sc = _downlink()
    plain = hoptcp.run(sc, seed=2)
    r = hoptcp.run(sc, seed=2, series=["gateway"])
    assert "time_series" not in plain.raw
    # Recording changes nothing the run computes.
    def same(m: dict) -> dict:
        return {k: v for k, v in m.items() if k != "wall_time_s"}

    assert same(r.metrics()) == same(plain.metrics())
    df = r.time_series("gateway")
    assert list(df.columns) == ["time_s", "flow", "metric", "value"]
    assert set(df["flow"]) == {0}
    assert df["time_s"].is_monotonic_increasing and df["time_s"].max() <= 20.0
    gw = r.raw["wired"]["tcp_gap"]["flows"][0]
    rtt = df[df["metric"] == "rtt_wireless_s"]
    assert len(rtt) == gw["rtt_samples"] > 100
    # The series' last values are the gateway's state at the end of the run.
    last = df.groupby("metric", observed=True)["value"].last()
    assert last["fhd_s"] == pytest.approx(gw["fhd_s"], rel=1e-12)
    assert last["variation"] == pytest.approx(gw["variation"], rel=1e-12)
    assert last["rate_pps"] == pytest.approx(gw["rate_pps"], rel=1e-6)
    q = df[df["metric"] == "queue"]["value"]
    assert q.max() == gw["max_queue"] and (q >= 0).all()
    # Goodput Control's periods (5 s): one goodput point per flow each.
    assert len(df[df["metric"] == "goodput_bps"]) == r.raw["wired"]["tcp_gap"]["control_periods"]
    with pytest.raises(hoptcp.errors.SpecError, match="no 'tcp_ap' series"):
        r.time_series("tcp_ap")


@pytest.mark.core
def test_tcp_ap_series_at_the_sender_and_a_warning_for_an_empty_series(real_core):
    up = Scenario.load(EXAMPLES / "gap-chain.toml").with_(duration_s=10, topology__hops=3, flows__0__dst=6)
    r = hoptcp.run(up, seed=1, series=["tcp_ap", "gateway"])
    ap = r.time_series("tcp_ap")
    pacing = r.raw["flows"][0]["pacing"]
    assert len(ap[ap["metric"] == "rtt_wireless_s"]) == pacing["rate_samples"]
    assert ap[ap["metric"] == "rate_pps"]["value"].iloc[-1] == pytest.approx(pacing["rate_pps"], rel=1e-6)
    # Uplink: the gateway writes RTT_wired into the ACKs (the 240 ms of wired links).
    gw = r.time_series("gateway")
    wired = gw[gw["metric"] == "rtt_wired_s"]["value"]
    assert len(wired) > 100 and wired.median() == pytest.approx(0.24, abs=0.01)
    off = hoptcp.run(up.with_(wired__tcp_gap__enabled=False), seed=1, series=["gateway"])
    assert any("stats.series contains \"gateway\"" in w for w in off.warnings)
    assert off.time_series("gateway").empty


@pytest.mark.core
def test_series_from_the_cli_and_its_plot(real_core, tmp_path, capsys):
    out = tmp_path / "run.json"
    args = ["run", str(EXAMPLES / "gap-chain.toml"), "--set", "duration_s=5", "--series", "gateway,tcp_ap", "--json"]
    assert main(args) == 0
    out.write_text(capsys.readouterr().out)
    png = tmp_path / "gw.png"
    assert main(["plot", "--run", f"uplink={out}", "-m", "rtt_wireless_s", "-m", "rate_pps", "-o", str(png)]) == 0
    assert png.stat().st_size > 1000
    assert main(["plot", "--run", str(out), "-m", "no_such_metric", "-o", str(png)]) == 2
    assert "--metric no_such_metric: unknown" in capsys.readouterr().err
    assert main(["run", str(EXAMPLES / "gap-chain.toml"), "--series", "cwdn"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stats.series" in err[0] and "gateway" in err[0]
    assert main(["plot", "-o", str(png)]) == 2
    assert "needs -x and -y" in capsys.readouterr().err
    # The warning for a series nothing fills names the table in full.
    assert main(["run", str(EXAMPLES / "chain7-aodv.toml"), "--set", "duration_s=2", "--series", "gateway"]) == 0
    assert "but [wired.tcp_gap] is not enabled" in " ".join(capsys.readouterr().out.split())
