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
