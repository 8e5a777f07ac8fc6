"""Jiang et al. reproductions: entries parse and resolve, the helpers of
hoptcp.reproduce.lib.jiang work on hand-made series and frames, and a quick report runs."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.reproduce import get_entry
from hoptcp.reproduce.lib import jiang as jg

IDS = ["jiang-oscillation", "jiang-retry", "jiang-capture-start", "jiang-capture-length", "jiang-neighbourhood",
       "jiang-packet-size"]


@pytest.mark.core
@pytest.mark.parametrize("eid", IDS)
def test_entry_parses_and_every_point_resolves(real_core, eid):
    e = get_entry(eid)
    assert e.id == eid and e.claims and e.figures
    from hoptcp.sweep import plan

    for q in (False, True):
        assert plan(e.sweep_spec(q), e.derive_fn()).tasks


def _base(hops: int = 6) -> SimpleNamespace:
    return SimpleNamespace(document={"topology": {"hops": hops}})


def test_chain_point_pairs_the_retry_limits():
    assert jg.jiang_chain_point({"topology.hops": 12, "mac.short_retry_limit": 14}, _base()) == {
        "flows.0.src": 0, "flows.0.dst": 12, "mac.long_retry_limit": 10}
    assert jg.jiang_chain_point({"mac.short_retry_limit": 7}, _base(6))["mac.long_retry_limit"] == 4
    with pytest.raises(SpecError, match="mac.short_retry_limit = 9"):
        jg.jiang_chain_point({"mac.short_retry_limit": 9}, _base())
    with pytest.raises(SpecError, match="topology.hops"):
        jg.jiang_chain_point({"topology.hops": 2.5}, _base())


def test_pauses_and_variation_of_a_series():
    # the first second (setup) is skipped
    pk = [0, 5, 0, 0, 0, 4, 0, 3]
    assert jg._longest_zero_run(pk) == 3
    assert jg._zero_seconds(pk) == 4
    assert jg._cv([9, 2, 2, 2]) == 0.0
    assert math.isclose(jg._cv([0, 1, 3]), 0.5)
    assert math.isnan(jg._cv([5, 0, 0]))


def _ctx(params, resolved):
    return SimpleNamespace(params=params, resolved=lambda p: resolved, points=[{}])


def test_retry_gain_from_goodput():
    # 120 s, 1460 B: 97 333.3 b/s is 1000 packets
    per_pkt = 1460 * 8 / 120
    rows = [{"topology.hops": 6, "tcp.max_window": 8, "mac.short_retry_limit": s, "seed": k,
             "flow.0.goodput_bps": n * per_pkt}
            for s, ns in [(7, [1000, 1000, 1000]), (14, [1200, 1180, 1220])] for k, n in enumerate(ns)]
    resolved = {"duration_s": 120.0, "tcp": {"payload_bytes": 1460}, "flows": [{"start_s": 0.0, "stop_s": 120.0}]}
    ctx = _ctx(["topology.hops", "tcp.max_window", "mac.short_retry_limit"], resolved)
    est = jg.jiang_retry_gain_6h(ctx, pd.DataFrame(rows), {})
    assert math.isclose(est.mean, 20.0, rel_tol=1e-9) and est.n == 3 and est.ci > 0
    with pytest.raises(SpecError, match="no runs"):
        jg.jiang_retry_gain_12h(ctx, pd.DataFrame(rows), {})


def test_second_connection_ahead_counts_packets_over_its_own_time():
    # connection 2 starts at 60 s: half its goodput-time; ahead only if it receives more packets
    runs = pd.DataFrame({"flows.1.start_s": [60.0, 60.0, 0.0],
                         "flow.0.goodput_bps": [100e3, 100e3, 100e3],
                         "flow.1.goodput_bps": [150e3, 250e3, 101e3]})
    assert list(jg._wins(runs)) == [0.0, 1.0, 1.0]
    assert math.isclose(jg.jiang_conn2_wins(None, runs, {}).mean, 2 / 3)


@pytest.mark.core
def test_quick_neighbourhood_report(real_core, tmp_path):
    from hoptcp.reproduce import reproduce

    rep = reproduce("jiang-neighbourhood", tmp_path / "out", quick=True, store=tmp_path / "r.db", progress=False)
    text = (tmp_path / "out" / "report.md").read_text()
    assert "Connection 1's throughput while connection 2 runs" in text
    assert (tmp_path / "out" / "fig9-neighbourhood.png").exists()
    assert all(c.verdict in ("pass", "fail", "differs") for c in rep.claims), [c.verdict for c in rep.claims]
