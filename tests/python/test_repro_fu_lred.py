"""Fu et al. (2003) Link RED and adaptive pacing entries.

Unit tests of the functions in ``hoptcp.reproduce.lib.fu_lred`` on hand-made frames,
the entries' sweeps resolved by the core, some quick variants end to end, and the
warnings of ``hoptcp run``.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.reproduce import get_entry, reproduce
from hoptcp.reproduce.lib import fu_lred as fl
from hoptcp.reproduce.registry import find
from hoptcp.stats import Estimate

ENTRIES = ("lred-calibration", "fu-lred-window", "fu-pacing", "fu-lred-chains", "fu-lred-topologies",
           "fu-queue-deviation", "fu-varsize", "fu-contention-throughput")
#: the quick variants run in CI (the others' functions are tested on hand-made frames)
QUICK = ("lred-calibration", "fu-lred-window", "fu-pacing", "fu-varsize")


# --- schemes and small helpers ---------------------------------------------------------

@pytest.mark.parametrize("row, scheme", [
    ({}, "NewReno"),
    ({fl.LRED_ON: False, fl.PACE_ON: False, fl.TRIGGER: "always"}, "NewReno"),
    ({fl.LRED_ON: True}, "LRED"),
    ({fl.LRED_ON: True, fl.ACTION: "drop"}, "LRED (drop)"),
    ({fl.PACE_ON: True, fl.TRIGGER: "below_min_th"}, "pacing (TR)"),
    ({fl.PACE_ON: True, fl.TRIGGER: "at_or_above_min_th"}, "pacing (INFOCOM)"),
    ({fl.LRED_ON: True, fl.PACE_ON: True, fl.TRIGGER: "always"}, "LRED+pacing (always)"),
    ({fl.LRED_ON: "true", fl.PACE_ON: "false"}, "LRED"),
    # the readings of pacing's wait (default: frozen backoff, one exchange; NaN = column absent)
    ({fl.PACE_ON: True, fl.TRIGGER: "always", fl.WAIT: "timer"}, "pacing (always, timer)"),
    ({fl.PACE_ON: True, fl.TRIGGER: "below_min_th", fl.EXTRA: "data"}, "pacing (TR, DATA)"),
    ({fl.LRED_ON: True, fl.PACE_ON: True, fl.TRIGGER: "at_or_above_min_th", fl.WAIT: "timer", fl.EXTRA: "data"},
     "LRED+pacing (INFOCOM, timer, DATA)"),
    ({fl.PACE_ON: True, fl.WAIT: "frozen_backoff", fl.EXTRA: math.nan}, "pacing (TR)"),
    ({fl.LRED_ON: False, fl.PACE_ON: False, fl.WAIT: "timer"}, "NewReno"),
])
def test_scheme_names(row, scheme):
    assert fl.lred_scheme(row) == scheme


def test_ratio_and_gain_by_hand():
    r = fl.lred_ratio(pd.Series([110.0], index=[1]), pd.Series([100.0], index=[1]))
    assert r.mean == pytest.approx(1.1) and math.isnan(r.ci) and r.n == 1
    # paired by seed: per-seed ratios 1.1, 1.2, 1.0 (seed 4 only in the numerator: left out)
    num = pd.Series([110.0, 240.0, 300.0, 50.0], index=[1, 2, 3, 4])
    den = pd.Series([100.0, 200.0, 300.0], index=[1, 2, 3])
    r = fl.lred_ratio(num, den)
    assert r.mean == pytest.approx(1.1) and r.n == 3
    # Student-t over the 3 per-seed ratios: sd 0.1, t(0.975, 2) = 4.302653
    assert r.ci == pytest.approx(4.302653 * 0.1 / math.sqrt(3), rel=1e-5)
    g = fl._gain_pct(num, den)
    assert g.mean == pytest.approx(10.0) and g.ci == pytest.approx(100 * r.ci)
    assert math.isnan(fl.lred_ratio(num, pd.Series([0.0], index=[1])).mean)


def test_failed_attempts_and_windows_by_hand():
    row = {"node.0.retries": 4, "node.0.mac_drops": 1, "node.0.mac_packets": 10,
           "node.1.retries": 0, "node.1.mac_drops": 0, "node.1.mac_packets": 10,
           "flow.0.goodput_bps": 1.0, "flow.0.avg_cwnd": 2.5, "flow.1.goodput_bps": 1.0, "flow.1.avg_cwnd": 1.5}
    assert fl.lred_failed_per_packet(row) == pytest.approx(5 / 20)
    assert fl.lred_sum_windows(row) == pytest.approx(4.0)


# --- calibration ---------------------------------------------------------------------------

def _cal_frame(scores: dict[tuple[float, float, float], list[float]], base: float = 100.0) -> pd.DataFrame:
    """Runs on one chain (7 hops): NewReno without LRED at ``base`` and each setting at
    base x its factor, one run per seed."""
    rows = []
    for seed in (1, 2):
        rows.append({fl.HOPS: 7, fl.LRED_ON: False, fl.ACTION: "mark", fl.MIN_TH: 0.1, fl.MAX_TH: 1.5,
                     fl.MAX_P: 0.02, "seed": seed, fl.GOODPUT: base, "flow.0.avg_cwnd": 8.0})
        for (mn, mx, p), fs in scores.items():
            rows.append({fl.HOPS: 7, fl.LRED_ON: True, fl.ACTION: "mark", fl.MIN_TH: mn, fl.MAX_TH: mx, fl.MAX_P: p,
                         "seed": seed, fl.GOODPUT: base * fs[seed - 1], "flow.0.avg_cwnd": 3.0})
    return pd.DataFrame(rows)


def test_calibration_criterion_prefers_the_best_then_the_least_active():
    df = _cal_frame({(0.2, 1.5, 0.1): [1.05, 1.05], (0.5, 1.5, 0.1): [1.048, 1.048], (0.5, 1.5, 0.02): [1.047, 1.047],
                     (0.7, 3.0, 0.02): [1.01, 1.01], (1.0, 1.5, 0.02): [0.99, 0.99]})
    t = fl.lred_calibration_table(df)
    assert len(t) == 5 and t["chains"].iloc[0] == 1
    assert t.set_index(["min_th", "max_th", "max_p"]).loc[(0.2, 1.5, 0.1), "score"] == pytest.approx(1.05)
    c = fl.lred_calibration_choice(t)
    # best 1.05; within 0.005: min_th 0.2 and the two at 0.5; the largest min_th wins, then the smaller max_p
    assert (c["min_th"], c["max_th"], c["max_p"]) == (0.5, 1.5, 0.02)
    c = fl.lred_calibration_choice(t, tie=0.0)
    assert (c["min_th"], c["max_p"]) == (0.2, 0.1)


def test_calibration_filters_the_action_and_needs_both_arms():
    df = _cal_frame({(0.5, 1.5, 0.1): [1.0, 1.0]})
    with pytest.raises(SpecError, match="mark_ect_only"):
        fl.lred_calibration_table(df, "mark_ect_only")
    with pytest.raises(SpecError, match="enabled = false and = true"):
        fl.lred_calibration_table(df[df[fl.LRED_ON]])


# --- window distributions -----------------------------------------------------------------

def test_window_distribution_pools_runs_and_finds_the_mode():
    hists = [[0.0, 1.0, 2.0, 7.0], [0.0, 3.0, 5.0]]
    d = fl.lred_window_distribution(hists)
    assert d == pytest.approx([0.0, 4 / 18, 7 / 18, 7 / 18])
    assert fl.lred_window_mode([0.1, 0.5, 0.4]) == 1
    with pytest.raises(SpecError):
        fl.lred_window_mode([])
    df = pd.DataFrame({"flow.0.cwnd_hist": [[0.0, 1.0], [0.0, 0.0, 2.0]]})
    assert fl.lred_cwnd_hist(df) == [[0.0, 1.0], [0.0, 0.0, 2.0]]
    with pytest.raises(SpecError, match="store"):
        fl.lred_cwnd_hist(pd.DataFrame({"seed": [1]}))


# --- chains -------------------------------------------------------------------------------

def test_chain_gains_by_hand():
    rows = []
    for h, nr, lp in ((5, 200.0, 210.0), (20, 100.0, 120.0)):
        for seed in (1, 2):
            for scheme, g, w in (("nr", nr, 10.0), ("lp", lp, h / 4)):
                rows.append({fl.HOPS: h, fl.COUNT: 1, "seed": seed, fl.GOODPUT: g, fl.LRED_ON: scheme == "lp",
                             fl.PACE_ON: scheme == "lp", fl.TRIGGER: "below_min_th", "flow.0.goodput_bps": g,
                             "flow.0.avg_cwnd": w})
    t = fl.lred_chain_gains(pd.DataFrame(rows), "LRED+pacing (TR)", 1)
    assert list(t["hops"]) == [5, 20]
    assert [g.mean for g in t["gain"]] == pytest.approx([5.0, 20.0])
    assert [w.mean for w in t["win"]] == pytest.approx([1.25, 5.0])
    with pytest.raises(SpecError):
        fl.lred_chain_gains(pd.DataFrame(rows), "LRED+pacing (INFOCOM)", 1)


# --- queue deviation ----------------------------------------------------------------------

def test_queue_deviation_readings_by_hand():
    # 4-hop chain: nodes 0..4; intermediate nodes 1, 2, 3 hold 0.5, 1.0, 1.5 packets on average
    row = {}
    for i, (q, b) in enumerate([(2.0, 0.9), (0.2, 0.3), (0.5, 0.5), (1.0, 0.5), (0.0, 0.1)]):
        row[f"node.{i}.queue_avg"], row[f"node.{i}.backlog_frac"] = q, b
    assert fl.lred_occupancy(row, [1, 2, 3]) == pytest.approx([0.5, 1.0, 1.5])
    assert fl.lred_queue_deviation(row) == pytest.approx(1.5)
    sd = math.sqrt(((0.5 - 1) ** 2 + 0 + (1.5 - 1) ** 2) / 3)
    assert fl.lred_queue_deviation(row, "one_plus_cv") == pytest.approx(1 + sd)
    with pytest.raises(SpecError, match="reading"):
        fl.lred_queue_deviation(row, "range")


def test_wstar_window_builder(real_core):
    e = get_entry("fu-queue-deviation")
    assert e.derive_fn()({"topology.hops": 48}) == {"flows.0.src": 0, "flows.0.dst": 48, "tcp.max_window": 12}
    assert e.derive_fn()({"topology.hops": 7})["tcp.max_window"] == 2


# --- variable packet sizes ----------------------------------------------------------------

def test_byte_window_by_hand():
    row = {"flow.0.avg_cwnd": 2.0, "flow.1.avg_cwnd": 4.0}
    assert fl.lred_byte_window(row, [1460, 576]) == pytest.approx(2 * 1500 + 4 * 616)


# --- topologies ---------------------------------------------------------------------------

def test_topology_builder_adds_the_two_flow_grid(real_core):
    e = get_entry("fu-lred-topologies")
    out = e.derive_fn()({"name": "grid2"})
    assert out["topology"]["kind"] == "grid" and out["topology"]["rows"] == 13
    assert [(f["src"], f["dst"]) for f in out["flows"]] == [(78, 90), (6, 162)]  # row 6 and column 6
    assert all(f["transport"] == "tcp" for f in out["flows"])
    assert e.derive_fn()({"name": "cross2"})["topology"]["kind"] == "cross"


def test_topology_flow_ranks_and_fairness_by_hand():
    df = pd.DataFrame([{"flow.0.goodput_bps": 1000.0, "flow.1.goodput_bps": 3000.0},
                       {"flow.0.goodput_bps": 2000.0, "flow.1.goodput_bps": 2000.0}])
    assert fl.lred_topo_flows(df) == [[3.0, 1.0], [2.0, 2.0]]
    assert fl._fairness(df) == pytest.approx([16 / 20, 1.0])


def test_parameterised_checks_resolve_and_no_generated_names_remain():
    for name in ("lred_most_time_window", "lred_avg_window", "lred_vs_best_fixed", "lred_pacing_gain",
                 "lred_chain_gain", "lred_topo", "lred_topo_rank", "lred_qdev"):
        assert callable(find("check", name)), name
    for old in ("lred_mode__lred", "lred_pacing_gain3__always", "lred_topo_rank4__grid4_tr", "lred_qdev__48"):
        assert find("check", old) is None, old
    # every claim of the Fu LRED entries names its function and arguments
    for eid in ("fu-pacing", "fu-lred-window", "fu-lred-chains", "fu-lred-topologies", "fu-queue-deviation"):
        for c in get_entry(eid).claims:
            assert c.check is None or find("check", c.check) is not None, (eid, c.name)


# --- entries, end to end ------------------------------------------------------------------

@pytest.mark.core
@pytest.mark.parametrize("eid", ENTRIES)
def test_entry_sweeps_resolve(real_core, eid):
    from hoptcp.sweep import plan

    e = get_entry(eid)
    assert e.claims and e.figures
    assert 0 < e.run_count(True) < e.run_count(False)
    for q in (False, True):
        assert plan(e.sweep_spec(q), e.derive_fn()).tasks


@pytest.mark.core
def test_calibration_defaults_are_the_cores(real_core):
    """The claim compares the choice with these: the core's [mac.link_red] defaults."""
    from hoptcp.scenario import Scenario

    sc = get_entry("lred-calibration").scenario.with_overrides({"mac.link_red.enabled": True})
    lr = sc.resolved()["mac"]["link_red"]
    assert lr["weight"] == 0.125 and lr["action"] == "mark"
    assert 0 <= lr["min_th"] < lr["max_th"] and 0 < lr["max_p"] <= 1
    assert "link_red" not in Scenario.from_dict({"topology": {"kind": "chain", "hops": 2},
                                                 "flows": [{"src": 0, "dst": 2, "transport": "tcp"}]}
                                                ).resolved()["mac"]


@pytest.mark.core
@pytest.mark.parametrize("eid", QUICK)
def test_quick_variant_writes_report_and_figures(real_core, tmp_path, eid):
    rep = reproduce(eid, tmp_path / eid, quick=True, store=tmp_path / "r.db", jobs=2, progress=False)
    text = rep.report.read_text()
    assert "## Claims" in text and "(quick: " in text and "| run | quick: " in text
    entry = get_entry(eid)
    assert len(rep.claims) == len(entry.claims)
    bad = [c.claim.name for c in rep.claims if c.verdict in ("error", "no data")]
    assert not bad, bad
    for f in entry.figures:
        assert (tmp_path / eid / f.file).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f.file in text


# --- hoptcp run: warnings -------------------------------------------------------------------

@pytest.mark.core
def test_run_prints_the_ecn_warning(real_core, capsys, tmp_path):
    import hoptcp

    sc = tmp_path / "c.toml"
    sc.write_text('duration_s = 2\n[topology]\nkind = "chain"\nhops = 3\n'
                  '[[flows]]\nsrc = 0\ndst = 3\ntransport = "tcp"\n')
    assert main(["run", str(sc), "--set", "tcp.ecn=true"]) == 0
    out = capsys.readouterr().out
    assert "warning:" in out and "tcp.ecn = true" in out
    assert main(["run", str(sc), "--set", "tcp.ecn=true", "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert len(raw["warnings"]) == 1
    r = hoptcp.run(hoptcp.Scenario.load(sc).with_(tcp__ecn=True, mac__link_red__enabled=True))
    assert r.warnings == []
    assert {"lred_marks", "lred_drops", "lred_avg_retry", "pacing_active_s"} <= set(r.nodes.columns)
    assert main(["run", str(sc)]) == 0
    assert "warning" not in capsys.readouterr().out


# --- the unspecified ranges (lib/fu_lred_ranges.py) -----------------------------------------

def _ctx(eid: str, runs: pd.DataFrame, sides: dict[str, pd.DataFrame]):
    from hoptcp.reproduce.report import Context

    e = get_entry(eid)
    side = {name: Context(e, e.side(name).sweep_spec(eid), df, None, False, name=name) for name, df in sides.items()}
    return Context(e, e.sweep_spec(), runs, None, False, sides=side)


def _chain_row(h, seed, goodput, lred, trigger="below_min_th", wait="frozen_backoff", extra="exchange", **th):
    return {fl.HOPS: h, fl.COUNT: 1, "seed": seed, fl.GOODPUT: goodput, "flow.0.goodput_bps": goodput,
            "flow.0.avg_cwnd": 3.0, fl.LRED_ON: lred, fl.PACE_ON: lred, fl.ECN: lred, fl.TRIGGER: trigger,
            fl.WAIT: wait, fl.EXTRA: extra, **th}


def test_chain_gain_settings_cover_the_readings_and_the_sides_thresholds():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    # NewReno: 100 kb/s at seed 1, 200 at seed 2; the main sweep's four readings of the wait at
    # 165, 150, 135 and 120 at both seeds: paired gains, mean of g/100 - 1 and g/200 - 1 (%):
    # 0.75 g - 100 = +23.75, +12.5, +1.25, -10; the side's two threshold settings at seed 1 only,
    # so each is compared with NewReno's seed 1 (100): +30 % and -50 %
    main = [_chain_row(20, s, 100.0 * s, False) for s in (1, 2)]
    for g, (wait, extra) in zip((165.0, 150.0, 135.0, 120.0), (("frozen_backoff", "exchange"), ("timer", "exchange"),
                                                               ("frozen_backoff", "data"), ("timer", "data"))):
        main += [_chain_row(20, s, g, True, wait=wait, extra=extra) for s in (1, 2)]
    side = [_chain_row(20, 1, 130.0, True, **{fl.MIN_TH: 0.1, fl.MAX_TH: 1.5, fl.MAX_P: 0.5}),
            _chain_row(20, 1, 50.0, True, **{fl.MIN_TH: 0.5, fl.MAX_TH: 1.5, fl.MAX_P: 0.1})]
    ctx = _ctx("fu-lred-chains", pd.DataFrame(main), {"thresholds": pd.DataFrame(side)})
    got = fr.lred_chain_gain_settings(ctx, ctx.runs, {}, trigger="TR", flows=1, long=True, side="thresholds")
    labels = [label for label, _ in got]
    d = fl._defaults(ctx)
    assert labels[0] == f"defaults (min_th {d['min_th']:g}, max_th {d['max_th']:g}, max_p {d['max_p']:g}); " \
                        "frozen backoff, exchange"
    assert labels[4:] == ["min_th 0.1, max_th 1.5, max_p 0.5; frozen backoff, exchange",
                          "min_th 0.5, max_th 1.5, max_p 0.1; frozen backoff, exchange"]
    assert [e.mean for _, e in got] == pytest.approx([23.75, 12.5, 1.25, -10.0, 30.0, -50.0])
    # a declared setting the runs lack is an error, never left out
    with pytest.raises(SpecError, match="no hop count"):
        fr.lred_chain_gain_settings(ctx, ctx.runs, {}, trigger="INFOCOM", flows=1, long=True, side="thresholds")


def test_topology_rank_settings_give_each_settings_seeds():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    def row(seed, lred, f0, f1, wait="frozen_backoff", extra="exchange", **th):
        return {"name": "cross2", "seed": seed, fl.LRED_ON: lred, fl.PACE_ON: lred, fl.TRIGGER: "below_min_th",
                fl.WAIT: wait, fl.EXTRA: extra, fl.GOODPUT: f0 + f1, "flow.0.goodput_bps": f0,
                "flow.1.goodput_bps": f1, **th}

    main = [row(s, False, 1000.0 * s, 0.0) for s in (1, 2)]
    for wait, extra in (("frozen_backoff", "exchange"), ("timer", "exchange"), ("frozen_backoff", "data"),
                        ("timer", "data")):
        main += [row(s, True, 100e3 + s, 90e3, wait, extra) for s in (1, 2)]
    side = [row(s, True, 200e3, 150e3 + 10e3 * s, **{fl.MIN_TH: 0.1, fl.MAX_TH: 3.0, fl.MAX_P: 0.02}) for s in (1, 2)]
    ctx = _ctx("fu-lred-topologies", pd.DataFrame(main), {"thresholds": pd.DataFrame(side)})
    got = fr.lred_topo_rank_settings(ctx, ctx.runs, {}, case="cross2", trigger="TR", rank=2, side="thresholds")
    assert len(got) == 5
    label, est, seeds = got[-1]
    assert label == "min_th 0.1, max_th 3, max_p 0.02; frozen backoff, exchange"
    assert seeds == pytest.approx([160.0, 170.0]) and est.mean == pytest.approx(165.0)
    assert got[0][2] == pytest.approx([90.0, 90.0])


def test_calibration_settings_list_every_setting_of_both_actions():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    df = _cal_frame({(0.2, 1.5, 0.1): [1.05, 1.05], (1.0, 3.0, 0.5): [0.9, 0.8]})
    ect = df[df[fl.LRED_ON]].assign(**{fl.ACTION: "mark_ect_only", fl.GOODPUT: 50.0})
    ctx = _ctx("lred-calibration", pd.concat([df, ect], ignore_index=True), {})
    got = dict((label, e.mean) for label, e in fr.lred_cal_settings(ctx, ctx.runs, {}))
    assert got == pytest.approx({"mark: min_th 0.2, max_th 1.5, max_p 0.1": 1.05,
                                 "mark: min_th 1, max_th 3, max_p 0.5": 0.85,
                                 "mark_ect_only: min_th 0.2, max_th 1.5, max_p 0.1": 0.5,
                                 "mark_ect_only: min_th 1, max_th 3, max_p 0.5": 0.5})


def _pacing_row(win, seed, goodput, trigger=None, wait="frozen_backoff", extra="exchange", **th):
    return {fl.WIN: win, "seed": seed, fl.GOODPUT: goodput, fl.PACE_ON: trigger is not None,
            fl.TRIGGER: trigger or "below_min_th", fl.WAIT: wait, fl.EXTRA: extra, "flow.0.avg_rtt_s": 0.1,
            "flow.0.avg_cwnd": 3.0, **th}


def test_pacing_settings_read_min_th_except_for_an_always_on_switch():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    readings = (("frozen_backoff", "exchange"), ("timer", "exchange"), ("frozen_backoff", "data"), ("timer", "data"))
    main = [_pacing_row(3, 1, 100.0)]
    for trig in ("below_min_th", "always"):
        main += [_pacing_row(3, 1, 100.0 + 10 * i, trig, w, x) for i, (w, x) in enumerate(readings)]
    side = [_pacing_row(3, 1, 111.0, "below_min_th", w, x, **{fl.MIN_TH: 0.3}) for w, x in readings]
    ctx = _ctx("fu-pacing", pd.DataFrame(main), {"min-th": pd.DataFrame(side)})
    tr = fr.lred_pacing_settings(ctx, ctx.runs, {}, trigger="TR", measure="gain", window=3, side="min-th")
    assert [round(e.mean, 6) for _, e in tr] == [0.0, 10.0, 20.0, 30.0, 11.0, 11.0, 11.0, 11.0]
    assert tr[-1][0] == "min_th 0.3; timer, DATA"
    # the always-on switch never reads min_th: only the main sweep's four readings
    assert len(fr.lred_pacing_settings(ctx, ctx.runs, {}, trigger="always", measure="gain", window=3,
                                       side="min-th")) == 4
    with pytest.raises(SpecError, match="measure 'loss'"):
        fr.lred_pacing_settings(ctx, ctx.runs, {}, trigger="TR", measure="loss", side="min-th")


def test_topology_layouts_compare_the_entrys_layout_with_the_side_sweeps():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    def row(seed, f0, f1):
        return {"name": "grid4", "seed": seed, fl.GOODPUT: f0 + f1, "flow.0.goodput_bps": f0, "flow.1.goodput_bps": f1}

    ctx = _ctx("fu-lred-topologies", pd.DataFrame([row(1, 100e3, 100e3), row(2, 120e3, 80e3)]),
               {"placement": pd.DataFrame([row(1, 250e3, 50e3), row(2, 260e3, 40e3)])})
    got = fr.lred_topo_layouts(ctx, ctx.runs, {}, case="grid4", scheme="NewReno", measure="kbps", placement="placement")
    assert [(label, e.mean) for label, e in got] == [(fr.LAYOUTS[0], pytest.approx(200.0)),
                                                      (fr.LAYOUTS[1], pytest.approx(300.0))]
    got = fr.lred_topo_layouts(ctx, ctx.runs, {}, case="grid4", scheme="NewReno", measure="rank", rank=1,
                               placement="placement")
    assert got[1][2] == pytest.approx([250.0, 260.0]) and got[0][2] == pytest.approx([100.0, 120.0])


def test_settings_table_has_a_row_per_label_and_a_dash_where_a_column_lacks_it():
    from hoptcp.reproduce.lib import fu_lred_ranges as fr

    a = [("x", Estimate(1.0, 0.5, 3, 1.0)), ("y", Estimate(2.0, math.nan, 1, math.nan))]
    b = [("y", Estimate(-3.0, 0.25, 3, 1.0))]
    assert fr._table_by_label(["setting", "a", "b"], [a, b], "+.1f").split("\n") == [
        "| setting | a | b |", "|---|---|---|", "| x | +1.0 ± 0.5 | — |", "| y | +2.0 | -3.0 ± 0.2 |"]
