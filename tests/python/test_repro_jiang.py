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


def _pcapng(records: list[tuple[int, int, int, int, int]], ifaces: int = 3) -> bytes:
    """A minimal pcapng: section header, one interface per node, and for every record
    (interface, time ns, transmitter, receiver, sequence) an enhanced packet block holding a
    14-byte radiotap header and a 24-byte 802.11 DATA header."""
    import struct

    def block(btype: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for _ in range(ifaces):
        out += block(1, struct.pack("<HHI", 127, 0, 0))
    for iface, t, ta, ra, seq in records:
        mac = lambda n: bytes([2, 0]) + n.to_bytes(4, "big")  # noqa: E731
        frame = (bytes([0, 0, 14, 0]) + bytes(10) + bytes([0x08, 0, 0, 0]) + mac(ra) + mac(ta) + bytes(6)
                 + struct.pack("<H", seq << 4))
        out += block(6, struct.pack("<IIIII", iface, t >> 32, t & 0xFFFFFFFF, len(frame), len(frame)) + frame)
    return out


def test_simultaneous_transmissions_from_a_hand_made_trace():
    recs = [
        (0, 100, 0, 1, 7), (1, 900, 0, 1, 7),      # 0 -> 1 on the air 100..900
        (2, 500, 2, 3, 4), (3, 1500, 2, 3, 4),     # 2 -> 3 on the air 500..1500: overlaps
        (0, 2000, 0, 1, 8),                        # 0 -> 1 again, never received: not counted
        (2, 1500, 2, 3, 5), (3, 2500, 2, 3, 5),    # starts when the previous one ends: not overlapping
        (1, 3000, 1, 2, 9), (1, 3200, 1, 2, 9), (2, 4000, 1, 2, 9),  # a retry: the last attempt counts
    ]
    frames = jg.unicast_data_frames(_pcapng(recs, ifaces=4))
    assert [f[:3] for f in frames[:2]] == [(0, 100, 0), (1, 900, 0)] and len(frames) == len(recs)
    assert jg.max_simultaneous_transmissions(frames) == 2
    assert jg.max_simultaneous_transmissions([f for f in frames if f[1] >= 1500]) == 1
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
