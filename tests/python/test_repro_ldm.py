"""Lee et al. (2003) Low Delay Marking entries and keys.

Unit tests of ``hoptcp.reproduce.lib.ldm`` on hand-made frames, the entries loaded and
their sweeps resolved by the core, and the new keys through the Python API.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hoptcp import Scenario
from hoptcp.reproduce import get_entry
from hoptcp.reproduce.lib import ldm

ENTRIES = ("ldm-fig2", "ldm-fig4", "ldm-fig5", "ldm-fig6-7", "ldm-fig8", "ldm-fig10")


@pytest.mark.parametrize("row, scheme", [
    ({}, "regular"),
    ({ldm.WIN: 32, ldm.PACE_ON: False, ldm.LDM_ON: False}, "regular"),
    ({ldm.WIN: "wstar"}, "restrained"),
    ({ldm.WIN: 32, ldm.PACE_ON: True}, "pacing"),
    ({ldm.LDM_ON: True, ldm.ESTIMATE: "estimated"}, "ldm-est"),
    ({ldm.LDM_ON: "true", ldm.ESTIMATE: "oracle"}, "ldm-oracle"),
])
def test_scheme_names(row, scheme):
    assert ldm.ldm_scheme(row) == scheme


@pytest.mark.parametrize("a, b, hb, mark", [
    (111.0, 100.0, True, "+"), (109.0, 100.0, True, "0"), (89.0, 100.0, True, "-"),
    (89.0, 100.0, False, "+"), (111.0, 100.0, False, "-"), (95.0, 100.0, False, "0"),
    (1.0, 0.0, True, "?"),
])
def test_the_papers_marks(a, b, hb, mark):
    assert ldm.ldm_sign(a, b, hb) == mark


def test_cdf_pools_runs():
    cdf = ldm.ldm_cdf([[8, 1, 1], [9, 1]])
    assert cdf == pytest.approx([17 / 20, 19 / 20, 1.0])
    assert ldm.ldm_rts_hists(pd.DataFrame({"rts_retry_hist": [[1, 2], [3]]})) == [[1, 2], [3]]


def test_frame_columns_by_hand():
    df = pd.DataFrame([{
        ldm.GOODPUT: 200e3, "flow.0.goodput_bps": 150e3, "flow.1.goodput_bps": 50e3,
        "flow.0.avg_rtt_s": 0.1, "flow.1.avg_rtt_s": 0.3, "flow.0.avg_cwnd": 2.0, "flow.1.avg_cwnd": 4.0,
        "flow.0.packets_sent": 90, "flow.1.packets_sent": 10, "flow.0.retransmissions": 3,
        "flow.1.retransmissions": 1, "node.0.cts_timeouts": 5, "node.1.cts_timeouts": 7, ldm.LDM_ON: True,
    }])
    r = ldm.ldm_frame(df).iloc[0]
    assert r["scheme"] == "ldm-est"
    assert r["kbps"] == 200 and r["rtt_ms"] == pytest.approx(200) and r["rtt_sum_ms"] == pytest.approx(400)
    assert r["rts_collisions"] == 12 and r["avgwin"] == 3 and r["loss"] == pytest.approx(4.0)
    assert r["jain_rtt"] == pytest.approx(0.16 / (2 * 0.1))


def test_relative_change_by_hand():
    e = ldm._ratio_pct(ldm.Estimate(110.0, math.nan, 1, math.nan), ldm.Estimate(100.0, math.nan, 1, math.nan))
    assert e.mean == pytest.approx(10.0)


@pytest.mark.core
@pytest.mark.parametrize("entry_id", ENTRIES)
def test_entries_load_and_resolve(entry_id):
    e = get_entry(entry_id)
    assert e.id == entry_id


@pytest.mark.core
def test_wstar_and_ldm_through_the_python_api():
    sc = Scenario.load("python/hoptcp/scenarios/ldm-chain.toml").with_overrides(
        {"tcp.max_window": "wstar", "topology.hops": 15, "flows.0.dst": 15})
    r = sc.resolved()
    assert r["tcp"]["max_window"] == 4 and r["flows"][0]["max_window"] == 4
    on = sc.with_overrides({"ip.ldm.enabled": True, "ip.ldm.estimate": "oracle"}).resolved()
    assert on["ip"]["ldm"]["estimate"] == "oracle"
    assert "ldm" not in sc.resolved()["ip"], "a disabled [ip.ldm] is dropped from the canonical form"


def test_side_goodput_is_the_mean_of_the_side_sweeps_runs_on_that_chain():
    from types import SimpleNamespace

    from hoptcp import SpecError

    runs = pd.DataFrame({"topology.hops": [7, 7, 15], "aggregate_goodput_bps": [200e3, 180e3, 150e3]})
    sides = {"aodv-hello": SimpleNamespace(runs=runs)}
    ctx = SimpleNamespace(side=lambda name: sides[name])
    est = ldm.ldm_side_kbps(ctx, None, {}, side="aodv-hello", hops=7)
    assert math.isclose(est.mean, 190.0) and est.n == 2
    assert ldm.ldm_side_kbps(ctx, None, {}, side="aodv-hello", hops=15).mean == 150.0
    with pytest.raises(SpecError, match="24-hop"):
        ldm.ldm_side_kbps(ctx, None, {}, side="aodv-hello", hops=24)
    with pytest.raises(SpecError, match="ns-2.35 has no runs"):
        ldm.ldm_side_kbps(ctx, pd.DataFrame({"ns2.version": ["2.35"]}), {}, side="aodv-hello", hops=7)
