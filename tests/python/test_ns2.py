"""ns-2.35 in the loop: export, trace parsing, Welch's t, crosscheck.

Export tests need the compiled core (they build the network plan); tests that run
`ns` skip cleanly when ns-2 is not installed.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from hoptcp import _bridge
from hoptcp.errors import SpecError
from hoptcp.ns2 import Ns2Unsupported, available, export, welch
from hoptcp.ns2 import trace as tr
from hoptcp.ns2.cli import parse_seeds
from hoptcp.ns2.compare import compare
from hoptcp.scenario import Scenario
from ns2_helpers import needs_ns

DATA = Path(__file__).resolve().parent / "data" / "ns2"


def scenario(text: str, **over: object) -> Scenario:
    return Scenario.from_toml(text).with_overrides(over)


CHAIN_TCP = """
duration_s = 20
[topology]
kind = "chain"
hops = 3
spacing_m = 200
[tcp]
max_window = 8
[[flows]]
src = 0
dst = 3
transport = "tcp"
app = "ftp"
"""

#: one scenario per topology kind and traffic kind (kept small: they run in ns for 1 s)
KINDS = {
    "chain-tcp": CHAIN_TCP,
    "chain-cbr-jitter": """
[topology]
kind = "chain"
hops = 2
spacing_m = 200
[[flows]]
src = 0
dst = 2
transport = "udp"
rate_bps = 200000
packet_bytes = 1460
jitter = 0.5
stop_s = 0.6
""",
    "grid-reno-delack": """
[topology]
kind = "grid"
rows = 3
cols = 3
spacing_m = 200
[tcp]
variant = "reno"
delayed_ack = true
[[flows]]
src = 0
dst = 2
transport = "tcp"
app = "ftp"
[[flows]]
src = 6
dst = 8
transport = "udp"
rate_bps = 100000
packet_bytes = 512
""",
    "cross-vegas": """
[topology]
kind = "cross"
hops = 4
spacing_m = 200
[tcp]
variant = "vegas"
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
[[flows]]
src = 5
dst = 8
transport = "tcp"
app = "ftp"
count = 2
""",
    "random-flows": """
[topology]
kind = "random"
nodes = 12
width_m = 600
height_m = 600
[random_flows]
count = 2
transport = "tcp"
app = "ftp"
min_hops = 1
""",
    "star-basic-access": """
[topology]
kind = "star"
leaves = 3
radius_m = 100
[mac]
rts_threshold_bytes = 3000
queue_limit = 10
[[flows]]
src = 1
dst = 0
transport = "udp"
rate_bps = 300000
packet_bytes = 1000
""",
    "explicit-ecn": """
[topology]
kind = "explicit"
positions = [[0, 0], [150, 0], [300, 0]]
[radio]
cs_range_m = 250
data_rate_mbps = 1
[tcp]
ecn = true
payload_bytes = 512
[[flows]]
src = 0
dst = 2
transport = "tcp"
app = "ftp"
start_s = 0.2
""",
}


def _tcl_complete(script: str) -> bool | None:
    """Tcl's own parser on the script (None when tkinter's Tcl is not available)."""
    try:
        import tkinter
    except ImportError:
        return None
    try:
        interp = tkinter.Tcl()
    except Exception:  # no Tcl library
        return None
    return bool(int(interp.call("info", "complete", script)))


@pytest.mark.core
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_export_of_each_kind_is_well_formed(kind: str, tmp_path: Path) -> None:
    sc = scenario(KINDS[kind])
    exp = export(sc)
    plan_flows = json.loads(_bridge.plan_json(sc.toml, sc.overrides))["flows"]
    tcl = exp.tcl
    assert _tcl_complete(tcl) in (True, None)
    # One node per position, one source and sink per flow, the run's end and finish.
    assert len(re.findall(r"^make-node \d+ ", tcl, re.M)) == exp.n_nodes
    assert len(exp.flows) == len(plan_flows)
    for f in exp.flows:
        assert f"set src({f.id}) [new " in tcl and f"set dst({f.id}) [new " in tcl
        assert f"\"$app({f.id}) start\"" in tcl
        # Flow paths are hoptcp's routes; every link of them is warmed up for ARP.
        for a, b in zip(f.path, f.path[1:]):
            assert f"arp-warmup {min(a, b)} {max(a, b)} " in tcl
    assert "$ns_ at $opt(end) \"finish\"" in tcl and tcl.rstrip().endswith("$ns_ run")
    if available():
        short = export(sc.with_overrides({"duration_s": 1.0}))
        script = tmp_path / "s.tcl"
        script.write_text(short.tcl)
        import subprocess

        proc = subprocess.run(["ns", str(script), str(tmp_path / "out")], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr[-500:]
        stats = tr.parse_stats((tmp_path / "out.stats").read_text().splitlines())
        assert set(stats) == {f.id for f in short.flows}


@pytest.mark.core
def test_export_maps_radio_mac_and_tcp_keys() -> None:
    sc = scenario(CHAIN_TCP, **{"radio.cs_range_m": 400.0, "radio.capture_db": 6.0, "mac.queue_limit": 20,
                                "mac.short_retry_limit": 14, "tcp.min_rto_s": 1.0, "tcp.initial_ssthresh": 5})
    tcl = export(sc).tcl
    radio = {"tx_power_w": 0.28183815, "antenna_height_m": 1.5, "system_loss": 1.0, "frequency_hz": 914e6}
    # ns-2's own thresholds for 250 m and 550 m come out of the same two-ray formula.
    assert tr_close(tr_power(250.0, radio), 3.652e-10) and tr_close(tr_power(550.0, radio), 1.559e-11)
    assert f"RXThresh_ {tr_power(250.0, radio)!r}" in tcl
    assert f"CSThresh_ {tr_power(400.0, radio)!r}" in tcl
    assert f"CPThresh_ {10 ** 0.6!r}" in tcl
    for line in ("-ifqLen 20", "ShortRetryLimit_ 14", "LongRetryLimit_ 4", "dataRate_ 2000000.0",
                 "basicRate_ 1000000.0", "RTSThreshold_ 0", "$src(0) set window_ 8", "$src(0) set ssthresh_ 5",
                 "$src(0) set minrto_ 1.0", "$src(0) set packetSize_ 1460", "-adhocRouting DSDV",
                 # DSDV adds a 20-byte IP header: TCP header and ACK sizes are compensated to 40 B on the air.
                 "$src(0) set tcpip_base_hdr_size_ 20", "$dst(0) set packetSize_ 20"):
        assert line in tcl, line


def tr_power(d: float, radio: dict) -> float:
    from hoptcp.ns2.exporter import two_ray_power

    return two_ray_power(d, radio)


def tr_close(a: float, b: float) -> bool:
    return abs(a / b - 1) < 1e-3


@pytest.mark.core
def test_cbr_sizes_and_rate_match_hoptcp() -> None:
    tcl = export(scenario(KINDS["chain-cbr-jitter"])).tcl
    # 1460 B payload + 28 B UDP/IP on the air; DSDV adds 20, so the agent sends 1468 B, unsplit.
    assert "$src(0) set packetSize_ 1468" in tcl and "$app(0) set packetSize_ 1468" in tcl
    rate = float(re.search(r"\$app\(0\) set rate_ (\S+)", tcl).group(1))
    assert 1468 * 8 / rate == pytest.approx(1460 * 8 / 200000, rel=1e-12)  # hoptcp's interval
    assert "$app(0) set random_ 1" in tcl
    assert "\"$app(0) stop\"" in tcl


@pytest.mark.core
@pytest.mark.parametrize(("over", "key"), [
    ({"radio.standard": "ofdm"}, "radio.standard"),
    ({"mac.frame_format": "standard"}, "mac.frame_format"),
    ({"flows.0.route": [0, 1, 2, 3]}, "flows.0.route"),
    ({"seed": 0}, "seed"),
    ({"radio.standard": "erp"}, "radio.standard"),
    ({"tcp.variant": "tcp_ap"}, "tcp.ap.variation"),
    ({"stats.batches": 10, "stats.batch_packets": 100}, "stats.batches"),
    ({"ip.ldm.enabled": True, "ip.ldm.initial_ttls": [30]}, "ip.ldm.initial_ttls"),  # static: ns-2 starts at 32
    ({"flows.0.pauses": [[5.0, 10.0]], "flows.0.count": 2}, "flows.0.pauses"),
])
def test_what_ns2_cannot_express_is_one_error_naming_the_key(over: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        export(scenario(CHAIN_TCP, **over))
    assert str(exc.value).startswith(key), str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.core
def test_cbr_over_tcp_writes_a_cbr_application_into_the_agent() -> None:
    tcl = export(scenario(CHAIN_TCP, **{"flows.0.app": "cbr", "flows.0.rate_bps": 50000.0})).tcl
    assert "set app(0) [new Application/Traffic/CBR]" in tcl and "Application/FTP" not in tcl
    assert "$app(0) attach-agent $src(0)" in tcl and "$app(0) set packetSize_ 1460" in tcl
    rate = float(re.search(r"\$app\(0\) set rate_ (\S+)", tcl).group(1))
    assert 1460 * 8 / rate == pytest.approx(1460 * 8 / 50000, rel=1e-12)
    assert "$app(0) set random_ 0" in tcl


@pytest.mark.core
def test_jitter_other_than_ns2s_is_refused() -> None:
    with pytest.raises(Ns2Unsupported, match=r"^flows\.0\.jitter = 0\.3 .*allowed: 0 or 0\.5"):
        export(scenario(KINDS["chain-cbr-jitter"], **{"flows.0.jitter": 0.3}))


@pytest.mark.core
def test_non_unique_shortest_paths_are_noted() -> None:
    exp = export(scenario(KINDS["grid-reno-delack"], **{"flows.0.dst": 8}))
    assert any(n.startswith("flows.0 (0 -> 8)") for n in exp.notes)
    assert not export(scenario(CHAIN_TCP)).notes


# --- trace parsing -----------------------------------------------------------------------

def test_drops_are_classified_by_layer_reason_and_kind() -> None:
    s = tr.parse_trace((DATA / "drops.tr").read_text().splitlines(), t0=20.0)
    d = dict(s.drops)
    # An RTS dropped at the retry limit, then its packet: a short-retry (RTS) drop.
    assert d[(1, "mac_rts_retry", "tcp_data")] == 1
    # A packet dropped alone at the retry limit: a long-retry (DATA) drop.
    assert d[(2, "mac_data_retry", "tcp_ack")] == 1
    assert d[(0, "queue_overflow", "tcp_data")] == 1
    assert d[(1, "ttl", "udp")] == 1
    # Before t0 (warm-up), callback copies, collisions, busy and duplicates are not losses.
    assert sum(d.values()) == 4
    assert s.arp_drops == 1


def test_dsdv_routes_are_read_back_and_checked() -> None:
    s = tr.parse_trace((DATA / "drops.tr").read_text().splitlines(), t0=20.0)
    assert tr.route_of(s.routes, 0, 2) == [0, 1, 2]
    assert tr.route_of(s.routes, 2, 0) == [2, 1, 0]
    assert s.late_route_changes == 0
    flows = [{"id": 0, "transport": "tcp", "path": [0, 1, 2]}]
    assert tr.check_routes(s, flows) == []
    # A route DSDV does not have (1 -> 0 -> 2?) is reported, both ways for TCP.
    wrong = [{"id": 3, "transport": "tcp", "path": [0, 2]}]
    problems = tr.check_routes(s, wrong)
    assert problems == ["flow 3 data route: ns-2 0-1-2, hoptcp 0-2", "flow 3 ACK route: ns-2 2-1-0, hoptcp 2-0"]
    late = tr.parse_trace(["VWST 25.0 frm 0 to 2 wst 0.0 nxthp 1 [of 2]"], t0=20.0)
    assert tr.check_routes(late, [])[0].startswith("DSDV changed 1 routes after")


def test_cwnd_average_is_time_weighted_and_capped() -> None:
    c = tr.parse_cwnd((DATA / "cwnd.tr").read_text().splitlines())
    assert sorted(c) == [(0, 1, 2, 1), (0, 2, 2, 2)]
    ch = c[(0, 1, 2, 1)]
    # From 20 s to 25 s: 1 for 0.5 s, 2 for 0.5 s, 40 capped to 8 for 2 s, 3.5 for 2 s.
    assert tr.time_average(ch, 20.0, 25.0, 8.0) == pytest.approx((0.5 + 1.0 + 16.0 + 7.0) / 5.0)
    assert tr.time_average(ch, 20.0, 25.0, 100.0) == pytest.approx((0.5 + 1.0 + 80.0 + 7.0) / 5.0)
    assert math.isnan(tr.time_average([], 0, 1, 8))


def test_report_has_hoptcp_keys_and_counts_goodput_from_the_sink() -> None:
    meta = {"t0": 20.0, "duration_s": 5.0, "warmup_s": 0.0, "n_nodes": 3, "routing": "static",
            "flows": [{"id": 0, "transport": "tcp", "app": "ftp", "src": 0, "dst": 2, "path": [0, 1, 2],
                       "start_s": 0.0, "stop_s": 5.0, "payload_bytes": 1000, "ns2_packet_bytes": 1020,
                       "max_window": 8},
                      {"id": 1, "transport": "udp", "app": "cbr", "src": 2, "dst": 0, "path": [2, 1, 0],
                       "start_s": 1.0, "stop_s": 5.0, "payload_bytes": 500, "ns2_packet_bytes": 508}]}
    trace = tr.parse_trace((DATA / "drops.tr").read_text().splitlines(), t0=20.0)
    stats = tr.parse_stats((DATA / "run.stats").read_text().splitlines())
    cwnd = tr.parse_cwnd((DATA / "cwnd.tr").read_text().splitlines())
    rep = tr.report(meta, trace, stats, cwnd, seed=3)
    f0, f1 = rep["flows"]
    # The sink counted the setup segment (40 B) and 1500 packets of 1020 B.
    assert f0["goodput_bps"] == pytest.approx(1500 * 1000 * 8 / 5.0)
    assert f1["goodput_bps"] == pytest.approx(300 * 500 * 8 / 4.0)
    assert (f0["timeouts"], f0["retransmissions"], f0["packets_sent"]) == (2, 17, 1530)
    assert f0["avg_cwnd_traced"] == pytest.approx((0.5 + 1.0 + 16.0 + 7.0) / 5.0)
    assert rep["drops"]["total"] == 4 and rep["drops"]["mac_rts_retry"] == 1
    assert rep["drops"]["by_kind"]["tcp_ack"]["mac_data_retry"] == 1
    assert rep["nodes"][1]["drops_rts_retry"] == 1 and rep["nodes"][2]["mac_drops"] == 1
    from hoptcp.results import flatten_metrics

    m = flatten_metrics(rep)
    for name in ("aggregate_goodput_bps", "flow.0.goodput_bps", "flow.0.timeouts", "drops.mac_rts_retry",
                 "node.1.mac_drops", "drops.by_kind.tcp_data.queue_overflow"):
        assert name in m


# --- Welch's t ----------------------------------------------------------------------------

def test_welch_on_known_numbers() -> None:
    # The first example of the Wikipedia article on Welch's t-test: t = 2.46, nu = 24.99, p = 0.021.
    a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    w = welch(a, b)
    assert w.t == pytest.approx(2.4554, abs=1e-4)
    assert w.df == pytest.approx(24.9885, abs=1e-4)
    assert w.p == pytest.approx(0.02138, abs=1e-5)
    assert not w.within_noise
    # Hand-computed: means 2 and 3, variances 1 and 1, n = 3: t = 1/sqrt(2/3), df = 4.
    w2 = welch([1, 2, 3], [2, 3, 4])
    assert w2.t == pytest.approx(math.sqrt(1.5)) and w2.df == pytest.approx(4.0)
    assert w2.within_noise and w2.rel_diff == pytest.approx(0.5)


def test_welch_without_spread() -> None:
    assert welch([5, 5, 5], [5, 5]).p == 1.0
    w = welch([5, 5], [6, 6])
    assert w.p == 0.0 and math.isinf(w.t) and not w.within_noise
    assert math.isnan(welch([], [1.0]).p)


def test_compare_picks_common_metrics_and_says_one_line_each() -> None:
    a = [{"aggregate_goodput_bps": 100.0 + i, "drops.total": 10, "only.ns2": 1} for i in range(5)]
    b = [{"aggregate_goodput_bps": 101.0 + i, "drops.total": 30, "flow.0.goodput_bps": 1} for i in range(5)]
    cs = compare(a, b)
    assert [c.metric for c in cs] == ["aggregate_goodput_bps", "drops.total"]
    assert cs[0].sentence().startswith("aggregate_goodput_bps: hoptcp +1.0% from ns-2.35, within seed noise "
                                       "(p = 0.35, Holm 0.35); equivalence within ±10% of ns-2.35: agree (TOST")
    assert cs[1].sentence().startswith("drops.total: hoptcp +200.0% from ns-2.35, outside seed noise")
    assert cs[1].agreement is None  # the equivalence test is for goodput


def test_holm_corrects_the_per_metric_verdicts_and_check_keeps_welchs_rule() -> None:
    from hoptcp.ns2.compare import holm

    # Holm by hand: sorted 0.01, 0.02, 0.04 times 3, 2, 1 -> 0.03, 0.04, 0.04 (monotone); NaN left out.
    assert holm([0.04, 0.01, math.nan, 0.02]) == pytest.approx([0.04, 0.03, math.nan, 0.04], nan_ok=True)
    # 20 metrics; one at p ~ 0.03 by chance: uncorrected "NO", after Holm within noise.
    a = [{f"m{k}": float(i) for k in range(20)} for i in range(10)]
    b = [{f"m{k}": float(i) + (3.2 if k == 0 else 0.0) for k in range(20)} for i in range(10)]  # m0: p = 0.03
    cs = compare(a, b, [f"m{k}" for k in range(20)])
    m0 = cs[0]
    assert 0.01 < m0.test.p < 0.05 and not m0.test.within_noise
    assert m0.p_holm == pytest.approx(min(1.0, 20 * m0.test.p)) and m0.within_noise
    assert "within seed noise (p = 0.0" in m0.sentence() and "Holm" in m0.sentence()
    # a real difference stays outside after the correction
    b2 = [dict(r, m1=r["m1"] + 50) for r in b]
    assert not compare(a, b2, [f"m{k}" for k in range(20)])[1].within_noise


def test_seed_ranges() -> None:
    assert parse_seeds("1-5") == [1, 2, 3, 4, 5]
    assert parse_seeds("1,3, 7-8,3") == [1, 3, 7, 8]
    for bad in ("0-2", "a", "5-1", ""):
        with pytest.raises(SpecError):
            parse_seeds(bad)


# --- end to end -----------------------------------------------------------------------------

@pytest.mark.core
def test_cli_export_writes_a_script_and_refuses_bad_keys(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from hoptcp.cli import main

    src = tmp_path / "c.toml"
    src.write_text(CHAIN_TCP)
    out = tmp_path / "c.tcl"
    assert main(["ns2", "export", str(src), "--seed", "3", "-o", str(out)]) == 0
    assert "$defaultRNG seed 3" in out.read_text()
    capsys.readouterr()
    assert main(["ns2", "export", str(src), "--set", "radio.standard=\"ofdm\""]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hoptcp: error: radio.standard")


@pytest.mark.core
@needs_ns
def test_crosscheck_runs_both_simulators(tmp_path: Path) -> None:
    from hoptcp.ns2 import crosscheck

    sc = scenario(CHAIN_TCP, duration_s=15.0)
    cc = crosscheck(sc, [1, 2], store=tmp_path / "r.db", jobs=2, progress=False)
    assert cc.ns2_ran and cc.routes_ok and len(cc.ns2) == len(cc.hoptcp) == 2
    good = next(c for c in cc.comparisons if c.metric == "aggregate_goodput_bps")
    # Both simulators move hundreds of kb/s over 3 hops; they agree within 10 %.
    assert good.test.mean_a > 2e5 and abs(good.test.rel_diff) < 0.10


def test_a_run_stopped_because_dsdv_had_not_settled_is_a_route_problem(tmp_path: Path) -> None:
    meta = {"t0": 20.0, "duration_s": 5.0, "n_nodes": 3, "routing": "static",
            "flows": [{"id": 0, "transport": "udp", "app": "cbr", "src": 0, "dst": 2, "path": [0, 1, 2],
                       "start_s": 0.0, "stop_s": 5.0, "payload_bytes": 500, "ns2_packet_bytes": 508}]}
    out = tmp_path / "out"
    Path(f"{out}.tr").write_text("VWST 14.0 frm 0 to 2 wst 0.0 nxthp 1 [of 2]\n")
    Path(f"{out}.stats").write_text("-1 unsettled 7\n")
    Path(f"{out}.cwnd").write_text("")
    rep, problems = tr.read_run(out, meta, seed=1)
    assert problems[0].startswith("DSDV had not settled before the flows (7 route changes")
    assert math.isnan(rep["aggregate_goodput_bps"]) and math.isnan(rep["flows"][0]["goodput_bps"])


def test_aodv_drops_flush_and_route_breaks() -> None:
    s = tr.parse_trace((DATA / "aodv.tr").read_text().splitlines(), t0=20.0)
    d = dict(s.drops)
    # The callback's copy of the failed packet (uid 90) is not a loss of its own; the two
    # packets AODV flushed from the queue for the broken link are.
    assert d[(2, "mac_rts_retry", "tcp_data")] == 1
    assert d[(2, "link_failure_flush", "tcp_data")] == 1 and d[(2, "link_failure_flush", "tcp_ack")] == 1
    assert d[(0, "no_route", "tcp_data")] == 1
    assert d[(0, "route_buffer_timeout", "tcp_data")] == 1 and d[(0, "route_buffer_overflow", "tcp_data")] == 1
    assert d[(3, "mac_data_retry", "aodv")] == 1
    assert d[(1, "mac_data_retry", "tcp_ack")] == 1
    # Link breaks are retry-limit drops of data packets, not of routing messages.
    assert s.route_breaks == 2
    meta = {"t0": 20.0, "duration_s": 20.0, "n_nodes": 6, "routing": "aodv", "flows": []}
    rep = tr.report(meta, s, {}, {}, seed=1)
    assert rep["routing"] == {"protocol": "aodv", "route_breaks": 2}
    assert rep["drops"]["by_kind"]["aodv"]["mac_data_retry"] == 1 and rep["drops"]["total"] == 8


@pytest.mark.core
def test_ns2_g_exports_ns2s_own_54_mbps_timing() -> None:
    tcl = export(scenario(CHAIN_TCP, **{"radio.standard": "ns2_g"})).tcl
    assert "Mac/802_11 set dataRate_ 54000000.0" in tcl and "Mac/802_11 set basicRate_ 1000000.0" in tcl
    assert "Mac/802_11 set CWMin_ 31" in tcl


def test_aodv_table_sums_no_route_causes_and_tests_equivalence():
    from hoptcp.ns2 import validation as v

    ns2 = [{"aggregate_goodput_bps": g, "routing.route_breaks": 100.0, "drops.no_route": 50.0,
            "drops.link_failure_flush": 10.0, "fairness_jain": 1.0} for g in (100e3, 102e3, 98e3, 101e3, 99e3)]
    hop = [{**r, "drops.no_route": 30.0, "drops.route_discovery_failed": 20.0} for r in ns2]
    figs = dict((label, (a, b)) for label, a, b in v.aodv_figures(ns2, hop))
    assert figs["drops without a route"] == ([50.0] * 5, [50.0] * 5)
    assert figs["goodput (kb/s)"][0] == [100.0, 102.0, 98.0, 101.0, 99.0]
    row = v.aodv_row("c", 5, "goodput (kb/s)", *figs["goodput (kb/s)"])
    assert row.startswith("| c | 5 | goodput (kb/s) | 100 ± 1.58 | 100 ± 1.58 | +0.0 % |") and row.endswith("| agree |")
    far = v.aodv_row("c", 5, "goodput (kb/s)", figs["goodput (kb/s)"][0], [x * 1.2 for x in figs["goodput (kb/s)"][0]])
    assert "+20.0 %" in far and far.endswith("| differ |")
    # the table appears in the page for cases with AODV metrics only
    case = v.Case("c", "AODV", "a chain over AODV", Scenario.from_toml("duration_s = 1.0\n"))
    page = v.render(v.Suite(Path("suite.toml"), [1], [case]),
                    {"cases": {"c": {"seeds": [1, 2, 3, 4, 5], "ns2": ns2, "hoptcp": hop}}})
    assert "## AODV" in page and "| c | 5 | route breaks | 100 ± 0 | 100 ± 0 |" in page
    plain = [{k: r[k] for k in ("aggregate_goodput_bps", "fairness_jain")} for r in ns2]
    page = v.render(v.Suite(Path("suite.toml"), [1], [case]),
                    {"cases": {"c": {"seeds": [1, 2, 3, 4, 5], "ns2": plain, "hoptcp": plain}}})
    assert "## AODV" not in page


@pytest.mark.core
@needs_ns
def test_crosscheck_header_names_its_correction_and_the_lines_say_routes_and_times(tmp_path: Path, capsys) -> None:
    from hoptcp.cli import main

    sc = tmp_path / "c.toml"
    sc.write_text(CHAIN_TCP)
    code = main(["crosscheck", str(sc), "--seeds", "1-3", "--set", "duration_s=5", "-q", "--store",
                 str(tmp_path / "r.db")])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert "p Holm-corrected over the" in out and "p Holm" in out
    assert "runs DSDV until its tables settle and then stops its updates" in out
    assert "starts the scenario at ns-2 time" in out and "compare to hoptcp's from time 0" in out
    assert "aggregate_goodput_bps: hoptcp" in out and "equivalence within ±10% of ns-2.35:" in out
    assert "at least 10 seeds a side" in out


def test_routing_sends_counts_the_routing_agents_own_and_forwarded_packets_from_t0() -> None:
    lines = [
        "s 1.000000000 _0_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] [0x2 1 1 [1 0] [0 4]] (REQUEST)",
        "s 17.000000000 _0_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] [0x2 1 2 [3 0] [0 6]] (REQUEST)",
        "r 17.010000000 _1_ RTR  --- 0 AODV 48 [0 ffffffff 0 800] ------- [0:255 -1:255 30 0] (REQUEST)",
        "s 17.010511316 _1_ RTR  --- 0 AODV 48 [0 ffffffff 0 800] ------- [1:255 -1:255 29 0] (REQUEST)",
        "f 17.015094676 _2_ RTR  --- 0 AODV 44 [13a 2 3 800] ------- [3:255 0:255 29 1] [0x4 2 [3 6] 10.0] (REPLY)",
        "f 17.020000000 _2_ RTR  --- 7 tcp 1040 [13a 2 3 800] ------- [0:0 3:0 29 3] [1 0] 0 0",
        "s 17.030000000 _2_ MAC  --- 0 AODV 106 [13a 2 3 800] ------- [3:255 0:255 29 1] (REPLY)",
        "D 17.040000000 _2_ MAC  COL 0 AODV 106 [0 ffffffff 3d5 800] ------- [981:255 -1:255 11 0] (REQUEST)",
    ]
    # Before t0 (the warm-up), receptions, data packets, MAC frames and drops do not count.
    assert tr.routing_sends(lines, t0=17.0) == 3
    assert tr.routing_sends(lines, t0=0.0) == 4


@pytest.mark.core
@needs_ns
def test_one_route_discovery_is_the_same_routing_packets_in_ns2_and_hoptcp(tmp_path: Path) -> None:
    """A 3-hop chain whose small window never breaks a link: one route discovery, so the source's
    RREQ, the two forwarded copies (the destination answers, it does not forward), the
    destination's RREP and its two forwarded copies: 6 routing packets on each side."""
    import subprocess

    from hoptcp import bench

    sc = scenario(CHAIN_TCP, **{"routing.protocol": "aodv", "tcp.max_window": 2, "duration_s": 3.0})
    exp = export(sc, router_trace=True)
    assert "-routerTrace ON" in exp.tcl and export(sc).tcl == exp.tcl.replace("-routerTrace ON", "-routerTrace OFF")
    (tmp_path / "s.tcl").write_text(exp.tcl)
    subprocess.run(["ns", str(tmp_path / "s.tcl"), str(tmp_path / "out")], cwd=tmp_path, check=True,
                   capture_output=True, timeout=120)
    rep, _ = tr.read_run(tmp_path / "out", exp.meta(), 1)
    assert rep["routing"]["route_breaks"] == 0
    with open(tmp_path / "out.tr") as fh:
        assert tr.routing_sends(fh, exp.t0) == 6
    mine = json.loads(_bridge.run_json(sc.toml, sc.overrides))
    assert mine["routing"]["route_breaks"] == 0 and bench.hoptcp_routing_sent(mine) == 6
