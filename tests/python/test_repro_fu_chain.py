"""Fu et al. chain reproductions: entries parse, quick variants run, and the helper
functions of hoptcp.reproduce.lib.fu_chain work on hand-made DataFrames."""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import hoptcp
from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.reproduce import get_entry
from hoptcp.reproduce.lib import fu_chain as fc

pytestmark = pytest.mark.core

IDS = ["fu-window", "fu-avgwin", "fu-wstar", "fu-vegas", "fu-linkdrop"]
FIGURES = {
    "fu-window": ["throughput-vs-maxwin.png"],
    "fu-avgwin": ["avgwin-vs-maxwin.png"],
    "fu-wstar": ["wstar-vs-hops.png"],
    "fu-vegas": ["vegas-vs-newreno.png"],
    "fu-linkdrop": ["linkdrop-vs-window.png", "linkdrop-vs-load.png", "linkdrop-model.png"],
}


# --- entries -----------------------------------------------------------------------------

@pytest.mark.parametrize("eid", IDS)
def test_entry_parses_with_both_sweeps(real_core, eid):
    e = get_entry(eid)
    assert e.id == eid and e.claims and e.figures
    full, quick = e.run_count(False), e.run_count(True)
    assert 0 < quick < full
    # every point resolves with the core (derive included)
    from hoptcp.sweep import plan

    for q in (False, True):
        assert plan(e.sweep_spec(q), e.derive_fn()).tasks


def test_list_shows_entries_with_run_counts(real_core, capsys, monkeypatch):
    from rich.console import Console

    import hoptcp.cli

    # the CLI prints 200 columns wide into a pipe; with many entries rich squeezes the id
    # column, so give the table room here
    monkeypatch.setattr(hoptcp.cli, "_console", lambda stderr=False: Console(width=400, soft_wrap=False))
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for eid in IDS:
        e = get_entry(eid)
        line = next((row for row in out.splitlines() if row.split("│")[0].strip() == eid or eid in row.split()), None)
        assert line is not None, (eid, out)
        assert str(e.run_count(True)) in line and str(e.run_count(False)) in line, line


@pytest.mark.parametrize("eid", IDS)
def test_quick_variant_writes_report_and_figures(real_core, tmp_path, eid):
    out = tmp_path / eid
    assert main(["reproduce", eid, "--quick", "--out", str(out), "--store", str(tmp_path / "q.db"), "-q"]) == 0
    report = (out / "report.md").read_text()
    assert "## Claims" in report and "hoptcp (mean ± 95% CI)" in report
    assert "| **error** |" not in report and "| **no data** |" not in report, report
    for f in FIGURES[eid]:
        assert (out / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({f})" in report
    assert (out / "results.csv").exists()


# --- builders ----------------------------------------------------------------------------

def test_chain_flow_to_end(real_core):
    e = get_entry("fu-wstar")
    assert e.derive_fn()({"topology.hops": 12, "tcp.max_window": 3}) == {"flows.0.src": 0, "flows.0.dst": 12}
    sc = e.scenario.with_overrides({"topology.hops": 12, "flows.0.dst": 12})
    assert sc.resolved()["flows"][0]["dst"] == 12


def test_linkdrop_flow_builder(real_core):
    e = get_entry("fu-linkdrop")
    d = e.derive_fn()
    tcp = d({"flows.0.transport": "tcp", "tcp.max_window": 4, "flows.0.rate_bps": 0.0, "flows.0.jitter": 0.0})
    assert tcp == {"flows": [{"src": 0, "dst": 7, "transport": "tcp", "app": "ftp"}]}
    udp = d({"flows.0.transport": "udp", "tcp.max_window": 32, "flows.0.rate_bps": 3e5, "flows.0.jitter": 0.5})
    f = udp["flows"][0]
    assert (f["transport"], f["rate_bps"], f["jitter"], f["packet_bytes"], f["dst"]) == ("udp", 3e5, 0.5, 1460, 7)
    for over in (tcp, udp):  # both resolve after the point's own overrides
        point = {"flows.0.transport": over["flows"][0]["transport"], "flows.0.rate_bps": 1.0}
        assert e.scenario.with_overrides(point).with_overrides(over).resolved()["flows"][0]["dst"] == 7
    with pytest.raises(SpecError, match="rate_bps"):
        d({"flows.0.transport": "udp", "flows.0.rate_bps": 0.0})
    one = d({"flows.0.transport": "udp", "flows.0.rate_bps": 1e5, "flows.0.jitter": 0.5, "flows.0.dst": 1})["flows"]
    assert [(f["src"], f["dst"]) for f in one] == [(i, i + 1) for i in range(7)]
    assert all(f["rate_bps"] == 1e5 and f["transport"] == "udp" for f in one)
    with pytest.raises(SpecError, match="flows.0.dst"):
        d({"flows.0.transport": "udp", "flows.0.rate_bps": 1e5, "flows.0.dst": 3})


# --- statistics helpers ------------------------------------------------------------------

def _window_runs(means: dict[int, list[float]], size: int = 1460) -> pd.DataFrame:
    rows = []
    for w, vals in means.items():
        for seed, v in enumerate(vals, 1):
            rows.append({"tcp.max_window": w, "tcp.payload_bytes": size, "seed": seed, "aggregate_goodput_bps": v})
    return pd.DataFrame(rows)


def test_chain_means_and_best():
    df = _window_runs({1: [100, 110], 3: [200, 210], 32: [180, 190]})
    t = fc.chain_means(df, "tcp.max_window", "aggregate_goodput_bps")
    assert list(t["tcp.max_window"]) == [1, 3, 32] and list(t["mean"]) == [105, 205, 185]
    assert t["ci"].iloc[0] == pytest.approx(12.706 * 5 * math.sqrt(2) / math.sqrt(2), rel=1e-3)
    w, best, _ = fc.chain_best(df)
    assert (w, best) == (3, 205)
    with pytest.raises(SpecError):
        fc.chain_means(df, "tcp.max_window", "nope")


def test_relative_loss_and_window_checks():
    df = pd.concat([_window_runs({1: [100, 100, 100], 3: [200, 202, 198], 32: [180, 182, 178]}),
                    _window_runs({2: [300, 300, 300], 32: [150, 150, 150]}, size=576)])
    e = fc.fu_window_loss(df[df["tcp.payload_bytes"] == 1460], 32)
    # paired by seed: 100 (1 - 180/200), 100 (1 - 182/202), 100 (1 - 178/198)
    per_seed = [100 * (1 - a / b) for a, b in ((180, 200), (182, 202), (178, 198))]
    assert e.mean == pytest.approx(sum(per_seed) / 3) and e.n == 3
    sd = math.sqrt(sum((x - e.mean) ** 2 for x in per_seed) / 2)
    assert e.ci == pytest.approx(4.302653 * sd / math.sqrt(3), rel=1e-5)  # t(0.975, 2)
    assert fc.fu_window_best(None, df, {}, payload_bytes=1460).mean == 3
    assert fc.fu_window_best(None, df, {}, payload_bytes=576).mean == 2
    assert fc.fu_window_loss32(None, df, {}, payload_bytes=576).mean == pytest.approx(50.0)
    with pytest.raises(SpecError):
        fc.fu_window_best(None, df, {}, payload_bytes=1024)
    no_spread = fc.chain_relative_loss(pd.Series([100.0], index=[1]), pd.Series([90.0], index=[1]))
    assert no_spread.mean == pytest.approx(10.0) and math.isnan(no_spread.ci)


def test_spearman():
    assert fc.chain_spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(fc.chain_spearman([1, 2], [1, 2]))
    # a constant series: undefined, said as NaN without scipy's ConstantInputWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(fc.chain_spearman([4, 6, 8], [0.5, 0.5, 0.5]))
        assert math.isnan(fc.chain_spearman([1, 1, 1], [1, 2, 3]))


def test_variant_table_and_vegas_checks():
    rows = []
    for h, nr, ve, vw in ((4, 300, 290, 3.5), (9, 200, 170, 3.4), (16, 180, 150, 3.1)):
        for seed in (1, 2):
            rows.append({"topology.hops": h, "tcp.variant": "newreno", "tcp.max_window": 32, "seed": seed,
                         "aggregate_goodput_bps": nr + seed, "flow.0.avg_cwnd": 9.0})
            rows.append({"topology.hops": h, "tcp.variant": "vegas", "tcp.max_window": 32, "seed": seed,
                         "aggregate_goodput_bps": ve + seed, "flow.0.avg_cwnd": vw})
            rows.append({"topology.hops": h, "tcp.variant": "newreno", "tcp.max_window": 3, "seed": seed,
                         "aggregate_goodput_bps": 1.0, "flow.0.avg_cwnd": 3.0})
    df = pd.DataFrame(rows)
    t = fc.chain_variant_table(df)
    assert list(t["hops"]) == [4, 9, 16]
    # paired by seed: the mean of the per-seed ratios (seeds 1 and 2)
    short = fc.fu_vegas_short_ratio(None, df, {})
    assert short.mean == pytest.approx((291 / 301 + 292 / 302) / 2) and short.n == 2
    d = fc.fu_vegas_long_deficit(None, df, {}).mean
    assert d == pytest.approx(100 * ((1 - 171 / 201) + (1 - 172 / 202) + (1 - 151 / 181) + (1 - 152 / 182)) / 4)
    assert fc.fu_vegas_window_16(None, df, {}).mean == pytest.approx(3.1)


def test_avgwin_claim_takes_the_paper_number_per_point():
    from hoptcp.reproduce.catalogue import get_entry

    claim = next(c for c in get_entry("fu-avgwin").claims if c.paper_by)
    assert claim.paper_at({"tcp.max_window": 16}) == 9.2
    assert claim.paper_at({"tcp.max_window": 32.0}) == 9.6
    assert claim.paper_at({"tcp.max_window": 3}) is None


def test_wstar_table(real_core):
    rows = []
    for h, curve in ((4, {1: 100, 2: 180, 3: 200, 4: 199}), (16, {2: 100, 4: 150, 6: 160, 8: 150})):
        for w, v in curve.items():
            for seed in (1, 2):
                rows.append({"topology.hops": h, "tcp.max_window": w, "seed": seed,
                             "aggregate_goodput_bps": v + seed})
    df = pd.DataFrame(rows)
    t = fc.chain_wstar_table(df)
    assert list(t["wstar"]) == [3, 6] and list(t["h4"]) == [1.0, 4.0]
    assert (t["near_lo"].iloc[0], t["near_hi"].iloc[0]) == (3, 4)
    assert fc.fu_wstar_max_dev(None, df, {}).mean == 2.0
    assert fc.fu_wstar_short_excess(None, df, {}).mean == 2.0
    assert fc.fu_wstar_trend(None, df, {}).n == 2


# --- link drops --------------------------------------------------------------------------

def _row(drops, packets, rts, cts_to=None, backlog=None, src=0, dst=2):
    r = {"flow.0.src": src, "flow.0.dst": dst}
    for i in range(len(drops)):
        r[f"node.{i}.mac_drops"] = drops[i]
        r[f"node.{i}.mac_packets"] = packets[i]
        r[f"node.{i}.rts_sent"] = rts[i]
        r[f"node.{i}.cts_timeouts"] = (cts_to or [0] * len(drops))[i]
        r[f"node.{i}.backlog_frac"] = (backlog or [0.0] * len(drops))[i]
        r[f"node.{i}.drops.mac_rts_retry"] = 999  # must not be mistaken for a node counter
    return r


def test_link_drop_definitions():
    r = _row(drops=[4, 2, 0], packets=[100, 96, 10], rts=[150, 120, 10])
    assert fc.chain_link_drop(r, "packet") == pytest.approx(6 / 110)  # source 100 + destination (ACKs) 10
    assert fc.chain_link_drop(r, "hop") == pytest.approx(6 / 206)
    assert fc.chain_link_drop(r, "rts") == pytest.approx(6 / 280)
    with pytest.raises(SpecError):
        fc.chain_link_drop(r, "frame")
    assert math.isnan(fc.chain_link_drop(_row([0], [0], [0], src=0, dst=0), "hop"))
    multi = {**r, "flow.1.src": 1, "flow.1.dst": 2}  # several (one-hop) flows: per packet = per hop
    assert fc.chain_link_drop(multi, "packet") == pytest.approx(6 / 206)
    assert fc.chain_link_drop({**r, "flow.1.src": float("nan")}, "packet") == pytest.approx(6 / 110)


def test_markov_drop_matches_the_core_model(real_core):
    assert fc.chain_markov_drop(0.0) == 0.0
    assert fc.chain_markov_drop(0.5) == pytest.approx(1 / 255)
    assert fc.chain_markov_drop(1.0) == pytest.approx(1 / 8)
    # the core's load model at m = 10 (printed, B* = 4, C* = 12) has H = 0.7
    core = hoptcp.model("linkdrop", b_star=4, c_star=12, m=10.0)
    assert fc.chain_markov_drop(core["hidden"]) == pytest.approx(core["p_r"], rel=1e-9)
    r = _row(drops=[0, 0], packets=[1, 1], rts=[100, 300], cts_to=[50, 0])
    assert fc.chain_markov_prediction(r) == pytest.approx(100 / 400 / 255)


def test_backlog_and_core_model(real_core):
    r = _row([0] * 8, [1] * 8, [1] * 8, backlog=[0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.6])
    assert fc.chain_backlog(r) == [0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.6]
    p = fc.chain_linkdrop_model(fc.chain_backlog(r), 2, 3)
    assert p["m"] == pytest.approx(6.0) and p == pytest.approx(hoptcp.model("linkdrop", b_star=2, c_star=3, m=6.0))


def test_knee_fit_recovers_a_ramp():
    x = [100, 200, 300, 350, 400, 450, 500, 600, 800]
    y = [0, 0, 0, 0.025, 0.05, 0.075, 0.1, 0.1, 0.1]
    k1, k2, s = fc.chain_knees(x, y)
    assert k1 == pytest.approx(300, abs=5) and k2 == pytest.approx(500, abs=5) and s == pytest.approx(0.1, rel=0.02)
    step = fc.chain_knees([100, 200, 300, 301, 400], [0, 0, 0, 0.1, 0.1])
    assert step[1] / step[0] < 1.05


def test_udp_checks_on_a_hand_made_curve():
    rows = []
    for rate, p in ((1e5, 0.0), (2e5, 0.0), (3e5, 0.0), (4e5, 0.05), (5e5, 0.1), (8e5, 0.1)):
        for seed in (1, 2):
            r = _row(drops=[p * 1000, 0], packets=[1000, 1000], rts=[2000, 2000], src=0, dst=1)
            rows.append({**r, "flows.0.transport": "udp", "flows.0.rate_bps": rate, "flows.0.jitter": 0.5,
                         "seed": seed, "tcp.max_window": 32})
    df = pd.DataFrame(rows)
    # drop per packet = drops / (src + dst packets) = p/2
    assert fc.fu_linkdrop_udp_saturation(None, df, {}).mean == pytest.approx(0.05, rel=0.05)
    assert fc.fu_linkdrop_udp_low(None, df, {}).mean == 0.0
    assert fc.fu_linkdrop_udp_ramp(None, df, {}).mean == pytest.approx(5 / 3, rel=0.05)


# --- the unspecified ranges' readings (hand-made runs) -------------------------------------

from hoptcp.reproduce.lib import fu_chain_sides as fs  # noqa: E402


def _tcp_run(win, seed, drops_data, drops_ack, sent):
    r = _row(drops=[drops_data + drops_ack, 0, 0], packets=[sent, sent, 50], rts=[2 * sent, 2 * sent, 100])
    return {**r, "flows.0.transport": "tcp", "tcp.max_window": win, "seed": seed, "flow.0.packets_sent": sent,
            "drops.mac_rts_retry": drops_data + drops_ack, "drops.mac_data_retry": 0,
            "drops.by_kind.tcp_data.mac_rts_retry": drops_data, "drops.by_kind.tcp_data.mac_data_retry": 0}


def test_linkdrop_denominator_readings():
    df = pd.DataFrame([_tcp_run(32, 1, 6, 2, 100), _tcp_run(2, 1, 0, 0, 100)])
    got = dict(fs.fu_linkdrop_tcp_high_readings(None, df, {}))
    assert got["per packet entering the chain"].mean == pytest.approx(8 / 150)  # source 100 + ACKs 50
    assert got["all drops per data segment sent"].mean == pytest.approx(8 / 100)
    assert got["data-segment drops per data segment sent"].mean == pytest.approx(6 / 100)
    assert got["per packet handed to a MAC (per hop)"].mean == pytest.approx(8 / 250)
    assert got["per RTS sent"].mean == pytest.approx(8 / 500)
    with pytest.raises(SpecError, match="MaxWin 32"):
        fs.fu_linkdrop_tcp_high_readings(None, df[df["tcp.max_window"] == 2], {})


def test_cbr_readings_fit_each_curve_on_its_own():
    rows = []
    for jitter, curve in ((0.5, ((1e5, 0.0), (2e5, 0.0), (3e5, 0.0), (4e5, 0.05), (5e5, 0.1), (8e5, 0.1))),
                          (0.0, ((1e5, 0.0), (2e5, 0.0), (3e5, 0.0), (3.1e5, 0.1), (5e5, 0.1), (8e5, 0.1)))):
        for rate, p in curve:
            r = _row(drops=[p * 1000, 0], packets=[1000, 1000], rts=[2000, 2000], src=0, dst=1)
            rows.append({**r, "flows.0.transport": "udp", "flows.0.rate_bps": rate, "flows.0.jitter": jitter,
                         "seed": 1, "tcp.max_window": 32})
    got = dict(fs.fu_linkdrop_udp_ramp_readings(None, pd.DataFrame(rows), {}))
    assert got["random CBR (jitter 0.5)"].mean == pytest.approx(5 / 3, rel=0.05)
    assert got["periodic CBR"].mean < 1.1  # a step


def _chain_run(hops, win, seed, queue, backlog):
    r = {"topology.hops": hops, "tcp.max_window": win, "seed": seed}
    for i in range(hops + 1):
        r[f"node.{i}.queue_avg"], r[f"node.{i}.backlog_frac"] = queue[i], backlog[i]
    return r


def test_queue_spread_readings_by_hand():
    # 3 intermediate nodes: queue 0, 1, 2 plus the MAC's 1, 1, 1 -> occupancies 1, 2, 3
    row = _chain_run(4, 0, 1, [5, 0, 1, 2, 0], [1, 1, 1, 1, 0])
    assert fs.chain_queue_spread(row, "largest / mean", "queue + the MAC's packet") == pytest.approx(1.5)
    assert fs.chain_queue_spread(row, "1 + CV", "queue + the MAC's packet") == pytest.approx(1 + math.sqrt(2 / 3) / 2)
    assert fs.chain_queue_spread(row, "standard deviation", "queue only") == pytest.approx(math.sqrt(2 / 3))
    assert fs.chain_queue_spread(row, "largest / mean", "queue only") == pytest.approx(2.0)
    with pytest.raises(SpecError, match="allowed"):
        fs.chain_queue_spread(row, "range", "queue only")
    # readings over both windows of the sweep; the trend over three chain lengths
    even = [0.5] * 9
    runs = pd.DataFrame([row, _chain_run(4, 32, 1, [0, 1, 1, 1, 0], [1] * 5),
                         _chain_run(6, 0, 1, [0, 0, 1, 1, 1, 0, 0], [1] * 7), _chain_run(6, 32, 1, [0] * 7, [1] * 7),
                         _chain_run(8, 0, 1, even, even), _chain_run(8, 32, 1, [0] * 9, [1] * 9)])
    ctx = type("C", (), {"runs": runs})()
    got = dict(fs.fu_qdev_readings(ctx, runs, {}, hops=4))
    assert len(got) == 12 and got["largest / mean, queue + the MAC's packet, MaxWin ceil(h/4)"].mean == 1.5
    assert got["largest / mean, queue + the MAC's packet, MaxWin 32"].mean == 1.0
    trend = dict(fs.fu_qdev_trend_readings(ctx, runs, {}))
    assert trend["largest / mean, queue + the MAC's packet, MaxWin ceil(h/4)"].mean == pytest.approx(-1.0)


def test_peak_drop_readings_at_the_peak_and_below_the_first_knee():
    rows = []
    for rate, p, kbps in ((1e5, 0.0, 100), (2e5, 0.0, 200), (3e5, 0.002, 300), (4e5, 0.05, 320), (5e5, 0.1, 280),
                          (8e5, 0.1, 250)):
        r = _row(drops=[p * 1000, 0, 0], packets=[1000, 1000, 0], rts=[2000, 2000, 0], src=0, dst=2)
        rows.append({**r, "flows.0.transport": "udp", "flows.0.rate_bps": rate, "flows.0.jitter": 0.5,
                     "flows.0.dst": 2, "seed": 1, "tcp.max_window": 32, "aggregate_goodput_bps": kbps * 1e3})
    got = dict(fs.fu_udp_peak_drop_readings(None, pd.DataFrame(rows), {}))
    # peak throughput at 400 kb/s: 50 drops per 1000 packets entering (source 1000, no ACKs), per hop 50 of 2000
    assert got["per packet entering the chain, at peak throughput"].mean == pytest.approx(5.0)
    assert got["per hop, at peak throughput"].mean == pytest.approx(2.5)
    assert got["per packet entering the chain, below the first knee"].mean < 1.0
