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
    e = ldm._ratio_pct(pd.Series([110.0], index=[1]), pd.Series([100.0], index=[1]))
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


def test_frame_readings_of_rts_collisions_loss_and_jain_by_hand():
    df = pd.DataFrame([{
        ldm.GOODPUT: 200e3, "flow.0.goodput_bps": 150e3, "flow.1.goodput_bps": 50e3,
        "flow.0.avg_rtt_s": 0.1, "flow.1.avg_rtt_s": 0.3, "flow.0.packets_sent": 90, "flow.1.packets_sent": 10,
        "flow.0.retransmissions": 3, "flow.1.retransmissions": 1,
        "node.0.cts_timeouts": 5, "node.1.cts_timeouts": 7, "node.0.cts_withheld": 2, "node.1.cts_withheld": 1,
        "node.0.drops_rts_retry": 1, "node.1.drops_rts_retry": 0,
        "drops.by_kind.tcp_data.mac_rts_retry": 2, "drops.by_kind.tcp_data.queue_overflow": 3,
        "drops.by_kind.tcp_ack.mac_rts_retry": 50,
    }])
    r = ldm.ldm_frame(df).iloc[0]
    assert r["rts_collisions"] == 12 and r["rts_collided"] == 12 - 3 and r["rts_retx"] == 12 - 1
    assert r["loss_net"] == pytest.approx(100 * 5 / 100), "TCP data drops only, per data segment sent"
    assert r["jain_kbps"] == pytest.approx(200e3 ** 2 / (2 * (150e3 ** 2 + 50e3 ** 2)))
    assert r["rtt_flow0_ms"] == pytest.approx(100) and r["rtt_flow1_ms"] == pytest.approx(300)
    assert math.isnan(r["rtt_flow2_ms"])
    one = ldm.ldm_frame(df.drop(columns=["flow.1.goodput_bps", "flow.1.avg_rtt_s", "flow.1.packets_sent",
                                         "flow.1.retransmissions"])).iloc[0]
    assert one["rtt_flow1_ms"] == one["rtt_flow2_ms"] == pytest.approx(100), "a one-flow run: its only flow"
    # runs without the counters (ns-2.35's, older ones) give no reading rather than a wrong one
    old = ldm.ldm_frame(df.drop(columns=["node.0.cts_withheld", "node.1.cts_withheld"])).iloc[0]
    assert math.isnan(old["rts_collided"]) and old["rts_retx"] == 11


def _runs(rows):
    """A hand-made run table: (scheme params, hops, goodput kb/s, cts timeouts, extra columns); seed 1
    unless the extra columns say otherwise."""
    out = []
    for params, hops, kbps, cts, extra in rows:
        out.append({**params, "seed": 1, ldm.HOPS: hops, ldm.GOODPUT: kbps * 1e3, "flow.0.goodput_bps": kbps * 1e3,
                    "flow.0.avg_rtt_s": 0.1, "flow.0.packets_sent": 100, "flow.0.retransmissions": 1,
                    "node.0.cts_timeouts": cts, "node.0.cts_withheld": cts // 2, "node.0.drops_rts_retry": 0,
                    **extra})
    return pd.DataFrame(out)


REG = {ldm.WIN: 32}
PACE = {ldm.WIN: 32, ldm.PACE_ON: True}


class _Ctx:
    def __init__(self, runs, sides):
        self.runs, self._sides, self.cache = runs, sides, {}

    def side(self, name):
        from hoptcp import SpecError

        if name not in self._sides:
            raise SpecError(f"side sweep '{name}' has not been run")
        return _Ctx(self._sides[name], {})


def test_readings_run_every_routing_and_pacing_setting_and_every_measure():
    main = _runs([(REG, 7, 100, 100, {}), (PACE, 7, 150, 200, {})])
    hello = _runs([(REG, 7, 200, 100, {}), (PACE, 7, 210, 110, {})])
    pacing = _runs([(PACE, 7, 160 + i, 300 + 10 * i, {ldm.DETECT: d, ldm.WAIT: w, ldm.EXTRA: x})
                    for i, (d, (w, x)) in enumerate((d, r) for d in ("mac", "hello") for r in ldm.PACING_READINGS)])
    ctx = _Ctx(main, {"aodv-hello": hello, "pacing-readings": pacing})
    got = ldm.ldm_readings(ctx, main, {}, measure="kbps", scheme="regular", hops=7)
    assert [(lab, e.mean) for lab, e in got] == [("AODV MAC detection", 100.0), ("AODV HELLO detection", 200.0)]
    # pacing: the main arm's pacing runs are replaced by each reading's, regular stays the routing's
    rel = ldm.ldm_readings(ctx, main, {}, measure="rts_collisions", scheme="pacing", hops=7, relative=True,
                           measures=["rts_collisions", "rts_collided"])
    labels = [lab for lab, _ in rel]
    assert len(rel) == 2 * 4 * 2 and labels[0] == "AODV MAC detection, pacing frozen backoff + exchange; RTS without CTS"
    assert rel[0][1].mean == pytest.approx(100 * (300 / 100 - 1))
    assert rel[1][1].mean == pytest.approx(100 * (150 / 50 - 1)), "collided: timeouts less the withheld half"
    hello_timer_data = dict(rel)["AODV HELLO detection, pacing timer + data; RTS without CTS"]
    assert hello_timer_data.mean == pytest.approx(100 * (370 / 100 - 1))


def test_readings_leave_out_settings_not_run_and_fail_when_none_is():
    from hoptcp import SpecError

    main = _runs([(REG, 7, 100, 100, {})])
    got = ldm.ldm_readings(_Ctx(main, {}), main, {}, measure="kbps", scheme="regular", hops=7)
    assert [lab for lab, _ in got] == ["AODV MAC detection"]
    with pytest.raises(SpecError, match="no runs of ldm-oracle"):
        ldm.ldm_readings(_Ctx(main, {}), main, {}, measure="kbps", scheme="ldm-oracle", hops=7)
    with pytest.raises(SpecError, match="measure = 'nope'"):
        ldm.ldm_readings(_Ctx(main, {}), main, {}, measure="nope", scheme="regular")


def test_max_cut_readings_by_hand():
    ora = {ldm.LDM_ON: True, ldm.ESTIMATE: "oracle"}
    rows = []
    for h, (reg, lo) in {7: (4.0, 1.0), 15: (4.0, 2.0), 24: (4.0, 3.0)}.items():
        rows += [(REG, h, 100, 10, {ldm.COUNT: 1, "flow.0.retransmissions": reg, "drops.by_kind.tcp_data.ttl": reg}),
                 (ora, h, 100, 10, {ldm.COUNT: 1, "flow.0.retransmissions": lo, "drops.by_kind.tcp_data.ttl": 4.0})]
    main = _runs(rows)
    got = dict(ldm.ldm_max_cut_readings(_Ctx(main, {}), main, {}, of="loss", against="regular",
                                        measures=["loss", "loss_net"]))
    assert got["AODV MAC detection; retransmitted share"].mean == pytest.approx(75.0)
    assert got["AODV MAC detection; data dropped per segment sent"].mean == pytest.approx(0.0)
    assert ldm.ldm_max_cut(_Ctx(main, {}), main, {}, of="loss", against="regular").mean == pytest.approx(75.0)


def test_side_goodput_reads_regular_tcp_only_when_the_side_runs_every_scheme():
    from types import SimpleNamespace

    runs = pd.DataFrame({"topology.hops": [7, 7], "aggregate_goodput_bps": [200e3, 50e3],
                         ldm.WIN: [32, 32], ldm.PACE_ON: [False, True]})
    ctx = SimpleNamespace(side=lambda name: SimpleNamespace(runs=runs))
    assert ldm.ldm_side_kbps(ctx, None, {}, side="aodv-hello", hops=7).mean == 200.0
