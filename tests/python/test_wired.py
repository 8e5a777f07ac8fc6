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
