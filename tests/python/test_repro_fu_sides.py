"""Side experiments of the Fu et al. network entries: the variant builders, and the
evidence functions' verdict logic on hand-made runs (no simulation)."""

from __future__ import annotations

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.reproduce import Context, get_entry
from hoptcp.reproduce.lib import fu_network_sides as sides
from test_repro_fu_network import _loss_row


def test_compact_grid_puts_flows_on_lines_two_apart_in_the_middle():
    base = get_entry("fu-topologies").scenario
    over = sides.net_topology_case_compact_grid({"name": "grid4"}, base)
    pairs = [(f["src"], f["dst"]) for f in over["flows"]]
    # 13x13 grid, node r*13+c: rows 5 and 7 (alternating directions), then columns 5 and 7
    assert pairs == [(65, 77), (103, 91), (5, 161), (163, 7)]
    assert len(sides.net_topology_case_compact_grid({"name": "grid8"}, base)["flows"]) == 8
    with pytest.raises(SpecError, match="not a grid"):
        sides.net_topology_case_compact_grid({"name": "cross2"}, base)


def test_staggered_starts_and_reversed_chain_flows_expand_replicated_flows():
    base = get_entry("fu-topologies").scenario
    st = sides.net_topology_case_staggered({"name": "chain7x3"}, base)["flows"]
    assert [f["start_s"] for f in st] == [0.0, 1.0, 2.0] and all("count" not in f for f in st)
    both = sides.net_topology_case_both_directions({"name": "chain6x6"}, base)["flows"]
    assert [(f["src"], f["dst"]) for f in both] == [(0, 6)] * 3 + [(6, 0)] * 3
    with pytest.raises(SpecError, match="random case"):
        sides.net_topology_case_staggered({"name": "random20"}, base)


def test_min_hops_builders_change_only_the_random_draw():
    base = get_entry("fu-topologies").scenario
    assert sides.net_topology_case_min_hops_2({"name": "random20"}, base)["random_flows"]["min_hops"] == 2
    assert sides.net_topology_case_min_hops_3({"name": "random20"}, base)["random_flows"]["min_hops"] == 3
    with pytest.raises(SpecError, match="only for the random case"):
        sides.net_topology_case_min_hops_2({"name": "grid4"}, base)


def _queue_runs(overflow: dict[int, int], seeds=(1, 2, 3), duration=300.0) -> pd.DataFrame:
    rows = []
    for hops in (7, 8):
        for q in (20, 30, 50):
            for s in seeds:
                o = overflow.get(s, 0) if (hops, q) == (7, 20) else 0
                rows.append({"topology.hops": hops, "flows.0.dst": hops, "mac.queue_limit": q, "seed": s,
                             "duration_s": duration, "drops.queue_overflow": o, "drops.mac_rts_retry": 100,
                             "drops.mac_data_retry": 0, "drops.total": 100 + o,
                             **{f"node.{i}.queue_max": 10 for i in range(hops + 1)}})
    return pd.DataFrame(rows)


def _context(main: pd.DataFrame, early: pd.DataFrame, ss20: pd.DataFrame) -> Context:
    e = get_entry("fu-queues")
    ctx = Context(e, e.sweep_spec(True), main, None, True)
    ctx.sides = {"first-10s": Context(e, e.side("first-10s").sweep_spec(e.id, True), early, None, True, "first-10s"),
                 "ssthresh-20": Context(e, e.side("ssthresh-20").sweep_spec(e.id, True), ss20, None, True,
                                        "ssthresh-20")}
    return ctx


POINT = {"mac.queue_limit": 20, "topology.hops": 7, "flows.0.dst": 7}


def test_overflow_evidence_needs_every_drop_early_and_none_with_ssthresh_20():
    claim = get_entry("fu-queues").claims[0]
    main = _queue_runs({1: 4, 2: 1})
    shown = sides.net_overflow_in_first_slow_start(
        _context(main, _queue_runs({1: 4, 2: 1}, duration=10.0), _queue_runs({})), claim, POINT)
    assert shown.shown is True and "5 overflow drops, in 2 of 3 runs" in shown.text
    late = sides.net_overflow_in_first_slow_start(
        _context(main, _queue_runs({1: 4}, duration=10.0), _queue_runs({})), claim, POINT)
    assert late.shown is False and "2 of 3 runs identical" in late.text
    still = sides.net_overflow_in_first_slow_start(
        _context(main, _queue_runs({1: 4, 2: 1}, duration=10.0), _queue_runs({3: 2})), claim, POINT)
    assert still.shown is False and "with tcp.initial_ssthresh = 20 the claim gives 0.6667" in still.text


# --- the unspecified ranges' readings (hand-made runs) -------------------------------------

class _FakeCtx:
    """The parts of a Context the reading functions use: runs, side sweeps, resolved values."""

    def __init__(self, runs, sides=None, duration=300.0, tx=250.0, cs=550.0):
        self.runs, self.sides, self.duration, self.tx, self.cs = runs, sides or {}, duration, tx, cs

    def side(self, name):
        if name not in self.sides:
            raise SpecError(f"side sweep '{name}' has not been run")
        return self.sides[name]

    def resolved(self, point):
        return {"duration_s": self.duration, "radio": {"tx_range_m": self.tx, "cs_range_m": self.cs}}


def _table3_run(seed: int, queue_avg: float, backlog: float, queue_max: int, **extra) -> dict:
    row = {"topology.hops": 8, "mac.queue_limit": 30, "seed": seed, **extra}
    for i in range(9):
        row[f"node.{i}.queue_avg"], row[f"node.{i}.backlog_frac"], row[f"node.{i}.queue_max"] = 0.0, 0.0, 0
    row["node.4.queue_avg"], row["node.4.backlog_frac"], row["node.4.queue_max"] = queue_avg, backlog, queue_max
    row["node.8.backlog_frac"] = 0.2  # the sink sent ACKs but never queued one
    return row


def test_occupancy_readings_add_the_packet_the_mac_holds():
    runs = pd.DataFrame([_table3_run(1, 1.0, 0.7, 9), _table3_run(2, 2.0, 0.9, 13),
                         {**_table3_run(3, 5.0, 1.0, 20), "mac.queue_limit": 50}])  # another buffer: not Table 3
    avg = dict(sides.net_node_queue_readings(None, runs, {}, node="E", stat="queue_avg"))
    assert avg["waiting in the queue"].mean == pytest.approx(1.5)
    assert avg["waiting + the one the MAC holds"].mean == pytest.approx((1.7 + 2.9) / 2)
    mx = dict(sides.net_node_queue_readings(None, runs, {}, node="E", stat="queue_max"))
    assert (mx["waiting in the queue"].mean, mx["waiting + the one the MAC holds"].mean) == (11.0, 12.0)
    # a node that never queued holds at most the MAC's one packet, or none if it never sent
    sink = dict(sides.net_node_queue_readings(None, runs, {}, node="I", stat="queue_max"))
    assert sink["waiting + the one the MAC holds"].mean == 1.0
    src = dict(sides.net_node_queue_readings(None, runs, {}, node="A", stat="queue_max"))
    assert src["waiting + the one the MAC holds"].mean == 0.0
    with pytest.raises(SpecError, match="node = 'J'"):
        sides.net_node_queue_readings(None, runs, {}, node="J", stat="queue_avg")
    with pytest.raises(SpecError, match="stat = 'queue_min'"):
        sides.net_node_queue_readings(None, runs, {}, node="A", stat="queue_min")


def test_drop_count_readings_with_and_without_acks_scaled_to_300_s():
    run = _table3_run(1, 0.0, 0.0, 0, **{"drops.queue_overflow": 0, "drops.mac_rts_retry": 30,
                                         "drops.mac_data_retry": 10, "drops.by_kind.tcp_data.mac_rts_retry": 20,
                                         "drops.by_kind.tcp_data.mac_data_retry": 5})
    got = dict(sides.net_contention_drops_readings(_FakeCtx(None, duration=150.0), pd.DataFrame([run]), {}))
    assert got["data segments and ACKs"].mean == 80.0 and got["data segments only"].mean == 50.0


def _case_run(name: str, win: int, seed: int, kbps: float) -> dict:
    return {"name": name, "tcp.max_window": win, "seed": seed, "aggregate_goodput_bps": kbps * 1e3,
            "flow.0.avg_cwnd_traced": float(win)}


def test_case_readings_measure_the_claim_on_every_side_sweep_of_its_case():
    main = pd.DataFrame([_case_run("cross2", w, s, k) for s in (1, 2) for w, k in ((1, 200.0), (32, 190.0))])
    stag = pd.DataFrame([_case_run("cross2", w, 1, k) for w, k in ((1, 200.0), (32, 150.0))])
    aodv = pd.DataFrame([_case_run("chain7x3", w, 1, 100.0) for w in (1, 32)])  # no run of the cross
    ctx = _FakeCtx(main, {"staggered-starts": _FakeCtx(stag), "aodv": _FakeCtx(aodv)})
    got = sides.net_case_readings(ctx, main, {}, check={"fn": "net_case", "measure": "loss_pct", "case": "cross2"})
    assert [k for k, _ in got] == ["as the entry", "flow i starts at i s"]
    assert got[0][1].mean == pytest.approx(5.0) and got[1][1].mean == pytest.approx(25.0)
    with pytest.raises(SpecError, match="case 'ring9'"):
        sides.net_case_readings(ctx, main, {}, check={"fn": "net_case", "measure": "loss_pct", "case": "ring9"})


def test_routing_readings_pool_both_aodv_side_sweeps():
    def rows(chain32, cross32):
        return [_loss_row(c, w, 1, 0, 0, [p * 100], [100]) for c, p32 in (("chain7x3", chain32), ("cross2", cross32))
                for w, p in ((1, 0.01), (4, 0.02), (32, p32))]

    main = pd.DataFrame(rows(0.05, 0.05))
    aodv = rows(0.2, 0.4)  # the chain's runs in one side sweep, the cross's in the other
    ctx = _FakeCtx(main, {"aodv": _FakeCtx(pd.DataFrame(aodv[:3])), "aodv-large": _FakeCtx(pd.DataFrame(aodv[3:]))})
    ratio = dict(sides.net_routing_readings(ctx, main, {}, check={"fn": "net_loss_load_ratio", "cases": ["cross2"]}))
    assert ratio["static routes"].mean == pytest.approx(1.0)
    assert ratio["AODV (side sweeps aodv and aodv-large)"].mean == pytest.approx(2.0)
    rises = dict(sides.net_routing_readings(ctx, main, {}, check={"fn": "net_loss_load_rises",
                                                                  "cases": ["cross2", "chain7x3"]}))
    assert rises["static routes"].mean == 1.0 and rises["AODV (side sweeps aodv and aodv-large)"].mean == 1.0
    alone = sides.net_routing_readings(_FakeCtx(main), main, {}, check={"fn": "net_loss_load_ratio",
                                                                        "cases": ["cross2"]})
    assert [k for k, _ in alone] == ["static routes"]


def test_neighbour_readings_count_wider_neighbourhoods_and_peak_drops():
    # a 5-node string 200 m apart, one placement: at MaxWin 32 the ends drop most, at MaxWin 1 the middle
    low = _loss_row("grid4", 1, 1, 0, 0, [0, 9, 9, 9, 0], [10] * 5)
    top = _loss_row("grid4", 32, 1, 0, 0, [4, 1, 1, 1, 4], [10] * 5)
    got = dict(sides.net_neighbour_drop_readings(_FakeCtx(None), pd.DataFrame([top, low]), {}))
    # within 250 m the ends have one active neighbour, the others two
    assert got["neighbours within the transmission range, drop probability at MaxWin 32"].mean == pytest.approx(-1.0)
    # largest over MaxWin: 0.4 at the ends, 0.9 in the middle (from MaxWin 1)
    assert got["neighbours within the transmission range, drop probability largest over MaxWin"].mean == 1.0
    # within 550 m: 2, 3, 4, 3, 2 neighbours
    assert got["neighbours within the carrier-sense range, drop probability at MaxWin 32"].mean < -0.8
    assert got["neighbours within the carrier-sense range, drop probability largest over MaxWin"].mean > 0.8
    with pytest.raises(SpecError, match="no runs of the cross"):
        sides.net_neighbour_drop_readings(_FakeCtx(None), pd.DataFrame([{**top, "name": "chain7x3"}]), {})
