"""TCP-GAP's gateway in exported ns-2.35 scripts: the tcp-gap port (ns2/ports/tcp-gap;
python/hoptcp/ns2/port_tcp_gap.py)."""

from __future__ import annotations

import os

import pytest

from hoptcp.ns2 import Ns2Unsupported, export
from hoptcp.ns2 import port_tcp_gap as gp
from hoptcp.scenario import Scenario
from ports_helpers import has_port, needs_ports, tcl_settings

#: a 3-hop chain whose last node (3) is the gateway to one wired host (4); the host sends to node 0
DOWN = """
duration_s = 20
[topology]
kind = "chain"
hops = 3
spacing_m = 200
[radio]
data_rate_mbps = 11
basic_rate_mbps = 1
[routing]
protocol = "static"
[tcp]
max_window = 32
payload_bytes = 1460
[wired]
nodes = 1
bandwidth_mbps = 10
delay_ms = 40
[wired.tcp_gap]
enabled = true
[[flows]]
src = 4
dst = 0
transport = "tcp"
app = "ftp"
"""


def sc(**over: object) -> Scenario:
    return Scenario.from_toml(DOWN).with_overrides(over)


def gap_settings(script: str) -> dict[str, str]:
    return tcl_settings(script, "$gap")


def test_off_writes_nothing_of_the_port() -> None:
    s = export(sc(**{"wired.tcp_gap.enabled": False}), 1, static_routes="dsdv").tcl
    assert "TcpGap" not in s and "$gap" not in s and "-39" not in s


def test_defaults_map_to_the_ports_names() -> None:
    s = export(sc(), 1, static_routes="dsdv").tcl
    assert gp.GUARD in s.splitlines()[:6]
    assert "set gap [$node_(3) tcp-gap]" in s
    assert gap_settings(s) == {
        "gc_": "1", "gc_threshold_": "1.1", "gc_interval_": "5.0", "gc_aging_": "1.1", "gc_aging_kind_": "0",
        "flow_timeout_": "120.0",
        "qlimit_": "0", "alpha_": "0.7", "hop_factor_": "4", "short_path_": "0", "cov_history_": "50",
        "cov_kind_": "0", "fhd_bound_": "0.0", "timer_": "0", "initial_gap_": "0.0", "overhead_bytes_": "0"}
    # the gateway comes after the wired link into the base station, the counters in finish
    assert s.index("set gap [") > s.index("$ns_ duplex-link $node_(3) $node_(4)")
    assert s.index('puts $statsfd "-39 $i.$c') > s.index("proc finish {}")


@pytest.mark.parametrize("key,value,var,want", [
    ("wired.tcp_gap.goodput_control", False, "gc_", "0"),
    ("wired.tcp_gap.threshold", 1.3, "gc_threshold_", "1.3"),
    ("wired.tcp_gap.period_s", 2.0, "gc_interval_", "2.0"),
    ("wired.tcp_gap.flow_timeout_s", 60.0, "flow_timeout_", "60.0"),
    ("wired.tcp_gap.aging_rule", "multiplicative", "gc_aging_kind_", "1"),
    ("tcp.ap.short_path", "one_hop", "short_path_", "1"),
    ("tcp.ap.variation", "mad", "cov_kind_", "1"),
    ("tcp.ap.overhead_bytes", 112, "overhead_bytes_", "72"),
    ("tcp.ap.history", 20, "cov_history_", "20"),
    ("tcp.ap.delay_bound_s", 0.5, "fhd_bound_", "0.5"),
    ("tcp.ap.timer", "free_running", "timer_", "1"),
    ("tcp.ap.initial_interval_s", 0.05, "initial_gap_", "0.05"),
])
def test_each_key(key: str, value: object, var: str, want: str) -> None:
    s = export(sc(**{key: value}), 1, static_routes="dsdv").tcl
    assert gap_settings(s)[var] == want


@pytest.mark.parametrize("over,key", [
    ({"wired.tcp_gap.buffer_packets": 10}, "wired.tcp_gap.buffer_packets"),
    ({"tcp.ap.overhead_bytes": 20}, "tcp.ap.overhead_bytes"),
])
def test_what_the_port_cannot_run_is_one_line(over: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        export(sc(**over), 1, static_routes="dsdv")
    msg = str(exc.value)
    assert msg.startswith(key) and "\n" not in msg and "allowed" in msg


def test_a_wireless_tcp_ap_sender_takes_rtt_wired_off() -> None:
    up = sc(**{"flows.0.src": 0, "flows.0.dst": 4, "tcp.variant": "tcp_ap", "tcp.ap.profile": "ns2"})
    assert "[new Agent/TCP/Newreno/AP/Gap]" in export(up, 1, static_routes="dsdv").tcl
    off = up.with_overrides({"wired.tcp_gap.enabled": False})
    assert "[new Agent/TCP/Newreno/AP]" in export(off, 1, static_routes="dsdv").tcl


def test_recorded_counters_become_hoptcps_keys() -> None:
    rep: dict = {}
    gp.add_gateway(rep, {"0.rate": 31.5, "0.fhd": 0.014, "0.cov": 0.6, "0.throttles": 2.0, "0.cap": 0.0,
                         "0.rate_avg": 40.0, "0.cap_avg": 30.0, "0.down": 1.0, "1.rate": 0.0, "1.down": 0.0,
                         "1.stamps": 9.0, "gw.gc_rounds": 3.0, "gw.gc_resets": 1.0})
    g = rep["wired"]["tcp_gap"]
    assert g["control_periods"] == 3.0 and g["resets"] == 1.0 and g["throttles"] == 2.0
    f0, f1 = g["flows"]
    assert f0["direction"] == "wired_to_wireless" and f1["direction"] == "wireless_to_wired"
    assert f0["rate_pps"] == 31.5 and f0["fhd_s"] == 0.014 and f0["variation"] == 0.6
    assert f0["throttle_pps"] is None and f0["rate_avg_pps"] == 40.0 and f1["stamps"] == 9.0


def test_hoptcp_time_averages_from_the_series() -> None:
    names = ["rtt_wireless_s", "fhd_s", "variation", "rate_pps", "queue", "rtt_wired_s", "goodput_bps", "cap_pps"]
    # rate 10 pkt/s on [0, 2), 20 on [2, 4); a cap of 5 on [3, 4): effective 10, 20, 5 -> (20 + 20 + 5) / 4
    ts = {"metrics": names, "time_s": [0.0, 2.0, 3.0], "flow": [0, 0, 0], "metric": [3, 3, 7],
          "value": [10.0, 20.0, 5.0]}
    got = gp.hoptcp_gateway({"duration_s": 4.0, "time_series": {"gateway": ts}})
    assert got[0]["rate_avg_pps"] == pytest.approx(45.0 / 4.0)
    assert got[0]["cap_avg_pps"] == pytest.approx(5.0)




def _has_port(ns: str) -> bool:
    return has_port(ns, "Connector/TcpGap info class")


@needs_ports
def test_a_run_with_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not _has_port(ns):
        pytest.skip(f"{ns} has no tcp-gap port")
    monkeypatch.setenv("HOPTCP_NS", ns)
    rep = run_ns2(sc(), 1)
    (f,) = rep["wired"]["tcp_gap"]["flows"]
    assert f["direction"] == "wired_to_wireless" and f["hops"] == 3
    assert f["paced_packets"] > 100 and f["rate_pps"] > 0 and f["rate_avg_pps"] > 0
    assert rep["wired"]["tcp_gap"]["control_periods"] >= 3
    assert rep["flows"][0]["goodput_bps"] > 1e5
