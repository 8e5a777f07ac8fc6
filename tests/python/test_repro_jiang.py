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
    assert all(c.verdict in ("pass", "fail", "differs", "unspecified") for c in rep.claims), [c.verdict for c in rep.claims]


def test_side_checks_read_the_named_side_sweep():
    # 120 s, 1460 B: 97 333.3 b/s is 1000 packets; route failures are AODV's route breaks
    per_pkt = 1460 * 8 / 120
    resolved = {"duration_s": 120.0, "tcp": {"payload_bytes": 1460}, "flows": [{"start_s": 0.0, "stop_s": 120.0}]}
    params = ["topology.hops", "tcp.max_window"]

    def side(received, breaks):
        rows = [{"topology.hops": 6, "tcp.max_window": w, "seed": k, "flow.0.goodput_bps": n * per_pkt,
                 "routing.route_breaks": b} for w in (4, 8) for k, (n, b) in enumerate(zip(received, breaks))]
        return SimpleNamespace(params=params, resolved=lambda p: resolved, runs=pd.DataFrame(rows))

    sides = {"hello": side([1300, 1320], [0, 2]), "no-local-repair": side([1000, 1100], [100, 120])}
    ctx = SimpleNamespace(side=lambda name: sides[name])
    got = jg.jiang_side_received(ctx, None, {}, side="hello", hops=6, win=8)
    assert math.isclose(got.mean, 1310) and got.n == 2
    assert jg.jiang_side_route_failures(ctx, None, {}, side="hello", hops=6, win=8).mean == 1
    assert jg.jiang_side_route_failures(ctx, None, {}, side="no-local-repair", hops=6, win=4).mean == 110
    with pytest.raises(SpecError, match="no runs"):
        jg.jiang_side_received(ctx, None, {}, side="hello", hops=12, win=4)
    # called with ns-2.35's stored runs, which have no side sweeps
    with pytest.raises(SpecError, match="ns-2.35 has no runs of the side sweep 'hello'"):
        jg.jiang_side_received(ctx, pd.DataFrame({"ns2.version": ["2.35"]}), {}, side="hello", hops=6, win=8)


def test_rts_per_delivered_frame_is_the_most_exposed_nodes():
    row = {"node.0.rts_sent": 30, "node.0.packets_acked": 10, "node.1.rts_sent": 12, "node.1.packets_acked": 12,
           "node.2.rts_sent": 5, "node.2.packets_acked": 0}
    assert jg.rts_per_delivered_frame(row) == 3.0
    assert math.isnan(jg.rts_per_delivered_frame({"node.0.rts_sent": 4, "node.0.packets_acked": 0}))
    runs = pd.DataFrame([{"topology.hops": 6, "tcp.payload_bytes": 1000, "seed": k, **r}
                         for k, r in enumerate([row, {**row, "node.0.rts_sent": 20}])])
    ctx = _ctx(["topology.hops", "tcp.payload_bytes"], {})
    est = jg.jiang_rts_per_frame(ctx, runs, {}, hops=6, size=1000)
    assert math.isclose(est.mean, 2.5) and est.n == 2
    with pytest.raises(SpecError, match="no runs"):
        jg.jiang_rts_per_frame(ctx, runs, {}, hops=6, size=1460)


def test_simultaneous_transmissions_from_a_hand_made_air_trace():
    # frames: (start, airtime, tx, kind, ra); rx: (frame, node, fate, t)
    frames = [(100, 700, 0, 2, 1),   # 0: DATA 0 -> 1 on the air 100..800, received at 900
              (500, 900, 2, 2, 3),   # 1: DATA 2 -> 3, received at 1500: overlaps frame 0
              (2000, 700, 0, 2, 1),  # 2: DATA 0 -> 1 collided at 1: not counted
              (1500, 900, 2, 2, 3),  # 3: DATA 2 -> 3 from 1500, received at 2500: starts as 1 ends
              (600, 100, 4, 0, 5),   # 4: an RTS received: not DATA
              (700, 700, 6, 2, -1)]  # 5: a broadcast DATA frame: no addressee
    rx = [(0, 1, 0, 900), (0, 2, 0, 900), (1, 3, 0, 1500), (2, 1, 1, 2700), (3, 3, 0, 2500), (4, 5, 0, 700),
          (5, 7, 0, 1400)]
    air = {"frame_kinds": ["rts", "cts", "data", "ack"], "fates": ["received", "collided"],
           "frames": {k: [f[i] for f in frames] for i, k in enumerate(["start_ns", "airtime_ns", "tx", "kind", "ra"])},
           "rx": {k: [r[i] for r in rx] for i, k in enumerate(["frame", "node", "fate", "t_ns"])}}
    spans = jg.successful_data_transmissions(air)
    assert spans == [(100, 900), (500, 1500), (1500, 2500)], "frame 0 once (at its addressee), no RTS or broadcast"
    assert jg.max_simultaneous_transmissions(spans) == 2
    assert jg.max_simultaneous_transmissions(spans[1:]) == 1, "one ending as the next starts does not overlap"
    assert jg.max_simultaneous_transmissions([]) == 0


def test_capture_evidence_is_shown_only_when_the_bound_holds_without_capture(monkeypatch):
    from hoptcp.reproduce import report
    from hoptcp.stats import Estimate

    seen = {}

    def fake_claim_on(ctx, claim, point):
        seen["side"] = ctx
        return outcome

    monkeypatch.setattr(report, "claim_on", fake_claim_on)
    ctx = SimpleNamespace(side=lambda name: f"side:{name}")
    outcome = (Estimate(3.0, 0.0, 5, 0.0), True, "+0")
    ev = jg.jiang_capture_explains_concurrency(ctx, None, {})
    assert ev.shown is True and "gives 3 over 5 runs" in ev.text and seen["side"] == "side:no-capture"
    outcome = (Estimate(4.0, 0.0, 5, 0.0), False, "+1")
    assert jg.jiang_capture_explains_concurrency(ctx, None, {}).shown is False
    outcome = (Estimate(math.nan, math.nan, 0, math.nan), None, "no runs")
    assert jg.jiang_capture_explains_concurrency(ctx, None, {}).shown is None


def test_readings_run_local_repair_on_and_off_and_every_route_failure_event():
    per_pkt = 1460 * 8 / 120
    resolved = {"duration_s": 120.0, "tcp": {"payload_bytes": 1460}, "flows": [{"start_s": 0.0, "stop_s": 120.0}]}
    params = ["topology.hops", "tcp.max_window"]

    def runs(received, drops, breaks, discoveries):
        return pd.DataFrame([{"topology.hops": 6, "tcp.max_window": 8, "seed": k, "flow.0.goodput_bps": received * per_pkt,
                              "drops.by_kind.tcp_data.mac_rts_retry": drops, "drops.by_kind.tcp_data.mac_data_retry": 1,
                              "drops.by_kind.tcp_ack.mac_rts_retry": 0, "drops.by_kind.tcp_ack.mac_data_retry": 0,
                              "flow.0.route_breaks": breaks, "flow.0.route_discoveries": discoveries}
                             for k in range(2)])

    def ctx_of(r, sides):
        def side(name):
            if name not in sides:
                raise SpecError(f"side sweep '{name}' has not been run")
            return sides[name]
        return SimpleNamespace(params=params, resolved=lambda p: resolved, runs=r, side=side)

    off = ctx_of(runs(1100, 20, 30, 10), {})
    main = ctx_of(runs(1000, 99, 100, 90), {"no-local-repair": off})
    got = jg.jiang_readings(main, main.runs, {}, measures=["link_failures", "route_breaks", "route_discoveries"],
                            hops=6, win=8)
    assert [(lab, e.mean) for lab, e in got] == [
        ("AODV with local repair; MAC retry-limit drops of TCP packets", 100.0),
        ("AODV with local repair; the flow's AODV route breaks", 100.0),
        ("AODV with local repair; the source's route discoveries", 90.0),
        ("AODV without local repair; MAC retry-limit drops of TCP packets", 21.0),
        ("AODV without local repair; the flow's AODV route breaks", 30.0),
        ("AODV without local repair; the source's route discoveries", 10.0)]
    only = jg.jiang_readings(ctx_of(main.runs, {}), main.runs, {}, measures=["received"], hops=6, win=8)
    assert [(lab, round(e.mean)) for lab, e in only] == [("AODV with local repair", 1000)], "a side not run is left out"
    with pytest.raises(SpecError, match="no runs at 12 hops"):
        jg.jiang_readings(main, main.runs, {}, measures=["received"], hops=12, win=4)
    with pytest.raises(SpecError, match="measures = \\['nope'\\]"):
        jg.jiang_readings(main, main.runs, {}, measures=["nope"], hops=6, win=8)


def test_after_readings_measure_each_stop_time_from_five_seconds_after_it(monkeypatch):
    stop = "flows.1.stop_s"

    def resolved(p):
        return {"duration_s": 120.0, "tcp": {"payload_bytes": 1000},
                "flows": [{"start_s": 0.0}, {"start_s": 20.0, "stop_s": float(p.get(stop, 80.0))}]}

    def series(ctx, point, seed):
        # connection 1: 10 pkt/s alone, 0 while connection 2 runs, then 10 pkt/s again only if
        # connection 2 ran at most 30 s (else 2 pkt/s: a backed-off timer)
        end = float(point.get(stop, 80.0))
        after = 10.0 if end - 20 <= 30 else 2.0
        rate = [10.0 if t <= 20 else 0.0 if t <= end else after for t in range(1, 121)]
        return pd.DataFrame({"time_s": range(1, 121), "flow": 0, "goodput_bps": [8000 * r for r in rate]})

    monkeypatch.setattr(jg, "jiang_series", series)
    side = SimpleNamespace(runs=pd.DataFrame({stop: [40.0, 40.0, 100.0], "seed": [1, 2, 1]}), resolved=resolved)
    ctx = SimpleNamespace(resolved=resolved, runs=pd.DataFrame({"seed": [1, 2]}), side=lambda name: side)
    got = jg.jiang_neigh_after_readings(ctx, ctx.runs, {}, side="stop-times")
    assert [(lab, e.mean, e.n) for lab, e in got] == [("connection 2 stops at 40 s", 1.0, 2),
                                                       ("connection 2 stops at 80 s", 0.2, 2),
                                                       ("connection 2 stops at 100 s", 0.2, 1)]
