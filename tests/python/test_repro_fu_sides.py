"""Side experiments of the Fu et al. network entries: the variant builders, and the
evidence functions' verdict logic on hand-made runs (no simulation)."""

from __future__ import annotations

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.reproduce import Context, get_entry
from hoptcp.reproduce.lib import fu_network_sides as sides


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
