"""Fu et al. (2003) network entries: fu-topologies, fu-queues, fu-buffer.

Unit tests of the builders and checks in ``hoptcp.reproduce.lib.fu_network`` with
hand-made inputs, and (with the compiled core) each entry's quick variant end to end.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.reproduce import get_entry, reproduce
from hoptcp.reproduce.lib import fu_network as fn
from hoptcp.reproduce.registry import find

ENTRIES = ("fu-topologies", "fu-queues", "fu-buffer")


# --- the grid flow builder -------------------------------------------------------------

def test_grid_flows_small_grid_by_hand():
    # 5x5 grid, node r*5+c. Two flows each way on rows/columns floor((i+0.5)*5/2) = 1, 3.
    assert fn.net_grid_flows(5, 5, 4) == [(5, 9), (19, 15), (1, 21), (23, 3)]


@pytest.mark.parametrize("n, lines", [(4, [3, 9]), (8, [1, 4, 8, 11]), (12, [1, 3, 5, 7, 9, 11])])
def test_grid_flows_on_fu_grid(n, lines):
    flows = fn.net_grid_flows(13, 13, n)
    assert len(flows) == n and len(set(flows)) == n
    rows, cols = flows[: n // 2], flows[n // 2:]
    for i, (s, d) in enumerate(rows):  # along a row: same row, opposite ends, alternating
        assert s // 13 == d // 13 == lines[i]
        assert {s % 13, d % 13} == {0, 12}
        assert (s % 13 == 0) == (i % 2 == 0)
    for i, (s, d) in enumerate(cols):  # along a column
        assert s % 13 == d % 13 == lines[i]
        assert {s // 13, d // 13} == {0, 12}
        assert (s // 13 == 0) == (i % 2 == 0)
    # evenly spaced: gaps between used lines differ by at most one, margins symmetric
    gaps = [b - a for a, b in zip(lines, lines[1:])]
    assert not gaps or max(gaps) - min(gaps) <= 1
    assert lines[0] == 12 - lines[-1]
    assert all(0 <= v < 169 for f in flows for v in f)


@pytest.mark.parametrize("args, fragment", [((13, 13, 3), "must be even"), ((3, 13, 8), "do not fit"),
                                            ((13, 13, 0), "positive integers")])
def test_grid_flows_rejects_bad_input(args, fragment):
    with pytest.raises(SpecError, match=fragment):
        fn.net_grid_flows(*args)


# --- the topology case builder --------------------------------------------------------

def test_topology_case_builder_lays_out_every_case():
    base = get_entry("fu-topologies").scenario
    out = fn.net_topology_case({"name": "chain6x6"}, base)
    assert out["topology"] == {"kind": "chain", "hops": 6, "spacing_m": 200.0}
    assert out["flows"] == [{"transport": "tcp", "app": "ftp", "src": 0, "dst": 6, "count": 6}]
    cross = fn.net_topology_case({"name": "cross2"}, base)["flows"]
    assert [(f["src"], f["dst"]) for f in cross] == [(0, 6), (7, 12)] and all("count" not in f for f in cross)
    grid = fn.net_topology_case({"name": "grid12"}, base)
    assert grid["topology"]["kind"] == "grid" and len(grid["flows"]) == 12
    rnd = fn.net_topology_case({"name": "random20"}, base)
    assert rnd["flows"] == [] and rnd["random_flows"] == {"transport": "tcp", "app": "ftp", "count": 20}
    with pytest.raises(SpecError, match="expected one of"):
        fn.net_topology_case({"name": "ring"}, base)


def test_paper_numbers_and_parameterised_checks():
    assert round(fn.CASES["grid12"].paper_loss_pct, 1) == 20.9
    assert round(fn.CASES["chain6x6"].paper_loss_pct, 1) == 8.7
    assert find("check", "net_case") is fn.net_case and find("check", "net_node_queue") is fn.net_node_queue
    with pytest.raises(SpecError, match="measure = 'best'; allowed: best_kbps"):
        fn.net_case(None, pd.DataFrame(), {}, measure="best", case="chain6x6")
    with pytest.raises(SpecError, match="case = 'ring'; allowed: chain6x6"):
        fn.net_case(None, pd.DataFrame(), {}, measure="best_kbps", case="ring")
    with pytest.raises(SpecError, match="node = 'J'; allowed: A, B"):
        fn.net_node_queue(None, pd.DataFrame(), {}, node="J", stat="queue_max")


# --- checks on hand-made runs ---------------------------------------------------------

def _topology_runs() -> pd.DataFrame:
    rows = []
    # two seeds; goodput peaks at MaxWin 2; seed 2 is 10% faster everywhere
    for seed, f in ((1, 1.0), (2, 1.1)):
        for w, kbps, cw in ((1, 200, 1.0), (2, 250, 1.9), (32, 225, 9.0)):
            rows.append({"name": "cross2", "tcp.max_window": w, "seed": seed,
                         "aggregate_goodput_bps": kbps * 1e3 * f, "flow.0.avg_cwnd_traced": cw, "flow.1.avg_cwnd_traced": cw,
                         "flow.0.avg_cwnd": cw + 5})
    df = pd.DataFrame(rows)
    df.attrs["metrics"] = ["aggregate_goodput_bps"]
    return df


def test_case_checks_by_hand():
    runs = _topology_runs()
    assert fn.net_best_window("cross2", fn._slim(runs)).mean == 2
    best = fn.net_best_kbps("cross2", fn._slim(runs))
    assert best.mean == pytest.approx(262.5) and best.n == 2
    assert fn.net_unbounded_kbps("cross2", fn._slim(runs)).mean == pytest.approx(236.25)
    loss = fn.net_loss_pct("cross2", fn._slim(runs))  # 1 - 225/250 in both seeds
    assert loss.mean == pytest.approx(10.0) and loss.ci == pytest.approx(0.0, abs=1e-9)
    assert fn.net_avg_window("cross2", fn._slim(runs)).mean == pytest.approx(18.0)
    assert math.isnan(fn.net_best_kbps("grid4", fn._slim(runs)).mean)  # case not in the runs


def test_crossover_interpolates():
    assert fn._crossover([2, 4, 6], [0.9, 0.7, 0.3], falling=True) == pytest.approx(5.0)
    assert fn._crossover([20, 60, 100], [0.1, 0.3, 0.7], falling=False) == pytest.approx(80.0)
    assert fn._crossover([2, 4], [0.4, 0.2], falling=True) == -math.inf  # before the range
    assert fn._crossover([20, 200], [0.1, 0.4], falling=False) == math.inf  # beyond the range
    assert math.isnan(fn._crossover([20], [math.nan], falling=False))


def test_drop_shares_by_hand():
    rows = []
    for seed in (1, 2):
        for q, ovf, cont in ((2, 90, 10), (4, 60, 40), (15, 0, 50), (19, 5, 45)):
            rows.append({"mac.queue_limit": q, "flows.0.count": 1, "seed": seed, "drops.queue_overflow": ovf,
                         "drops.mac_rts_retry": cont, "drops.mac_data_retry": 0})
    runs = pd.DataFrame(rows)
    share = fn.net_drop_share(None, runs, {}, over="mac.queue_limit", lo=2, hi=4, of="overflow")
    assert share.mean == pytest.approx(150 / 200)
    assert fn.net_drop_share(None, runs, {}, over="mac.queue_limit", lo=15, hi=19, of="contention").mean == pytest.approx(95 / 100)
    assert fn.net_drop_crossover(None, runs, {}, over="mac.queue_limit").mean == pytest.approx(4 + (0.5 - 0.6) * 11 / (0 - 0.6))


# --- entries, end to end with the real core -------------------------------------------

@pytest.mark.core
def test_entries_parse_and_are_listed(real_core, capsys):
    for eid in ENTRIES:
        e = get_entry(eid)
        assert e.run_count(quick=True) < e.run_count(quick=False)
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for eid in ENTRIES:
        assert eid[:9] in out


@pytest.mark.core
def test_random_topologies_of_the_sweep_are_connected(real_core):
    """Seeds 1..10 draw connected 200-node networks, so no draw is skipped."""
    from hoptcp.runner import default_run

    e = get_entry("fu-topologies")
    sc = e.scenario.with_overrides({"name": "random20", **e.derive_fn()({"name": "random20"}),
                                    "duration_s": 0.01})
    for seed in e.sweep_spec(False).seeds:
        r = json.loads(default_run(sc.toml, sc.overrides, seed))  # raises when disconnected
        assert len(r["flows"]) == 20 and r["node_count"] == 200


@pytest.mark.core
@pytest.mark.parametrize("eid", ENTRIES)
def test_quick_variant_writes_report_and_figures(real_core, tmp_path, eid):
    rep = reproduce(eid, tmp_path / eid, quick=True, store=tmp_path / "r.db", jobs=2, progress=False)
    text = rep.report.read_text()
    assert "## Claims" in text and "(quick: " in text and "| run | quick: " in text
    entry = get_entry(eid)
    assert len(rep.claims) == len(entry.claims)
    assert all(c.verdict != "error" for c in rep.claims), [c.claim.name for c in rep.claims if c.verdict == "error"]
    for f in entry.figures:
        png = tmp_path / eid / f.file
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f.file in text


# --- TR §4.3 / INFOCOM §5.2 checks on hand-made runs -------------------------------------------

def _loss_row(name: str, win: int, seed: int, over: float, cont: float, drops: list[float], handled: list[float],
              xs: list[float] | None = None, sent: list[int] | None = None) -> dict:
    row = {"name": name, "tcp.max_window": win, "seed": seed, "drops.queue_overflow": over,
           "drops.mac_rts_retry": cont, "drops.mac_data_retry": 0.0}
    for i, (d, h) in enumerate(zip(drops, handled)):
        row[f"node.{i}.mac_drops"] = d
        row[f"node.{i}.mac_packets"] = h
        row[f"node.{i}.x"] = (xs or [200.0 * k for k in range(len(drops))])[i]
        row[f"node.{i}.y"] = 0.0
        row[f"node.{i}.data_sent"] = (sent or [1] * len(drops))[i]
    return row


class _Ctx:
    @staticmethod
    def resolved(point):
        return {"radio": {"tx_range_m": 250.0}}


def test_overflow_share_is_the_worst_case_pooled_over_its_runs():
    rows = [_loss_row("cross2", 1, 1, 0, 0, [0], [1]), _loss_row("cross2", 32, 1, 1, 99, [0], [1]),
            _loss_row("grid4", 32, 1, 3, 7, [0], [1]), _loss_row("grid4", 32, 2, 0, 10, [0], [1])]
    est = fn.net_overflow_share(_Ctx(), pd.DataFrame(rows), {}, cases=("cross2", "grid4"))
    assert math.isclose(est.mean, 15.0) and est.n == 2  # grid4: 3 of 20; cross2: 1 of 100
    with pytest.raises(SpecError, match="random20"):
        fn.net_overflow_share(_Ctx(), pd.DataFrame(rows), {}, cases=("random20",))


def test_active_neighbours_count_senders_in_range_only():
    # a 4-node string 200 m apart; node 3 sends nothing; node 2 handled no packets
    row = _loss_row("x", 32, 1, 0, 0, [1, 4, 0, 0], [10, 10, 0, 5], sent=[1, 1, 1, 0])
    ks, ps = fn.active_neighbours_vs_drops(row, 250.0)
    assert ks == [1, 2, 1]  # nodes 0, 1, 3: neighbours that send (node 3 hears only node 2)
    assert ps == [0.1, 0.4, 0.0]


def test_neighbour_correlation_is_positive_when_busier_nodes_drop_more():
    # a 5-node string: the middle nodes have two active neighbours, the ends one
    up = _loss_row("grid4", 32, 1, 0, 0, [1, 3, 4, 3, 1], [10] * 5)
    down = _loss_row("grid4", 32, 2, 0, 0, [4, 1, 1, 1, 4], [10] * 5)
    assert fn.net_neighbour_drop_correlation(_Ctx(), pd.DataFrame([up]), {}, cases=("grid4",)).mean > 0.8
    assert fn.net_neighbour_drop_correlation(_Ctx(), pd.DataFrame([down]), {}, cases=("grid4",)).mean < -0.8
    with pytest.raises(SpecError, match="MaxWin 32"):
        fn.net_neighbour_drop_correlation(_Ctx(), pd.DataFrame([up]), {}, cases=("cross2",))


def test_loss_load_ratio_and_rise_against_the_chain():
    rows = []
    for win, p_chain, p_cross in ((1, 0.0, 0.0), (4, 0.02, 0.03), (32, 0.05, 0.15)):
        rows.append(_loss_row("chain7x3", win, 1, 0, 0, [p_chain * 100], [100]))
        rows.append(_loss_row("cross2", win, 1, 0, 0, [p_cross * 100], [100]))
    df = pd.DataFrame(rows)
    est = fn.net_loss_load_ratio(_Ctx(), df, {}, cases=("cross2",))
    assert math.isclose(est.mean, 3.0)
    assert fn.net_loss_load_rises(_Ctx(), df, {}, cases=("cross2", "chain7x3")).mean == 1.0
    falling = pd.DataFrame([_loss_row("cross2", w, 1, 0, 0, [d], [100]) for w, d in ((1, 5), (4, 3), (32, 1))])
    assert fn.net_loss_load_rises(_Ctx(), falling, {}, cases=("cross2",)).mean == -1.0
