"""Link RED and adaptive pacing in exported ns-2.35 scripts: the lred-pacing port
(ns2/ports/lred-pacing; python/hoptcp/ns2/port_lred_pacing.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hoptcp.ns2 import Ns2Unsupported, export
from hoptcp.ns2 import port_lred_pacing as lp
from hoptcp.scenario import Scenario
from ports_helpers import has_port, last_error_on_stock_ns, needs_ports, tcl_settings

CHAIN4 = """
duration_s = 20
[topology]
kind = "chain"
hops = 4
spacing_m = 200
[tcp]
ecn = true
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""


def tcl(extra: str = "", **kw: object) -> str:
    return export(Scenario.from_toml(CHAIN4 + extra), 1, static_routes="dsdv", **kw).tcl


def mac_settings(script: str) -> dict[str, str]:
    return tcl_settings(script, "Mac/802_11", lambda v: v.startswith(("lred", "pace")))


def test_off_writes_nothing_of_the_port() -> None:
    s = tcl()
    assert "lred" not in s and "pace_" not in s and "lred-pacing-stats" not in s


def test_link_red_and_pacing_defaults() -> None:
    s = tcl("[mac.link_red]\nenabled = true\n[mac.adaptive_pacing]\nenabled = true\n")
    assert s.splitlines()[2] == lp.GUARD or lp.GUARD in s.splitlines()[:6]
    assert mac_settings(s) == {
        "lred_": "1", "lred_min_th_": "1.0", "lred_max_th_": "1.5", "lred_max_p_": "0.02", "lred_weight_": "0.125",
        "lred_drop_": "1", "pace_": "1", "pace_trigger_": "1", "pace_wait_": "0", "pace_len_": "1"}
    assert "lred-pacing-stats" in s


@pytest.mark.parametrize("key,value,var,want", [
    ("link_red.action", "mark_ect_only", "lred_drop_", "0"),
    ("link_red.action", "drop", "lred_drop_", "2"),
    ("adaptive_pacing.trigger", "at_or_above_min_th", "pace_trigger_", "2"),
    ("adaptive_pacing.trigger", "always", "pace_trigger_", "0"),
    ("adaptive_pacing.wait", "timer", "pace_wait_", "2"),
    ("adaptive_pacing.extra", "data", "pace_len_", "0"),
])
def test_each_reading(key: str, value: str, var: str, want: str) -> None:
    sc = Scenario.from_toml(CHAIN4 + "[mac.link_red]\nenabled = true\n[mac.adaptive_pacing]\nenabled = true\n")
    s = export(sc.with_overrides({f"mac.{key}": value}), 1, static_routes="dsdv").tcl
    assert mac_settings(s)[var] == want


def test_pacing_alone_keeps_link_red_off_but_its_threshold() -> None:
    s = tcl("[mac.adaptive_pacing]\nenabled = true\n")
    m = mac_settings(s)
    assert m["lred_"] == "0" and m["pace_"] == "1"


def test_thresholds_pass_through() -> None:
    s = tcl("[mac.link_red]\nenabled = true\nmin_th = 0.25\nmax_th = 0.75\nmax_p = 0.1\nweight = 0.5\n")
    m = mac_settings(s)
    assert (m["lred_min_th_"], m["lred_max_th_"], m["lred_max_p_"], m["lred_weight_"]) == ("0.25", "0.75", "0.1",
                                                                                           "0.5")
    assert m["pace_"] == "0"


def test_unknown_reading_is_refused_with_one_line() -> None:
    with pytest.raises(Ns2Unsupported) as e:
        lp.mac_lines({"link_red": {"enabled": True}, "adaptive_pacing": {"enabled": True, "wait": "sometimes"}})
    assert "\n" not in str(e.value) and "adaptive_pacing.wait" in str(e.value)


def test_add_counters_names() -> None:
    rep = {"nodes": [{"id": 0}, {"id": 1}]}
    rep["flows"] = [{"id": 0}]
    lp.add_counters(rep, {"1.marks": 3.0, "1.paced": 10.0, "1.pace_time": 0.07, "1.avg_retry_seen": 0.5,
                          "1.avg_retry": 0.25, "0.drops": 2.0, "f0.necn": 4.0})
    assert rep["nodes"][1] == {"id": 1, "lred_marks": 3, "pacing_backoffs": 10, "pacing_extra_s": 0.07,
                               "lred_avg_retry": 0.5, "lred_avg_retry_last": 0.25}
    assert rep["nodes"][0]["lred_drops"] == 2
    assert rep["flows"][0]["ecn_reductions"] == 4




def _has_port(ns: str) -> bool:
    return has_port(ns, "Mac/802_11 set lred_min_th_")


@needs_ports
def test_a_run_with_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not _has_port(ns):
        pytest.skip(f"{ns} has no lred-pacing port")
    monkeypatch.setenv("HOPTCP_NS", ns)
    sc = Scenario.from_toml(CHAIN4 + "[mac.link_red]\nenabled = true\nmin_th = 0.0\nmax_th = 0.5\n"
                            "[mac.adaptive_pacing]\nenabled = true\ntrigger = \"always\"\n")
    rep = run_ns2(sc, 1)
    nodes = rep["nodes"]
    assert sum(n["lred_marks"] for n in nodes) > 0  # min_th 0: marking from the first retry on
    assert all(n["pacing_backoffs"] > 0 for n in nodes)  # every node sends (data or ACKs) and paces
    assert rep["aggregate_goodput_bps"] > 0


@needs_ports
def test_port_scripts_stop_on_stock_ns(tmp_path: Path) -> None:
    assert last_error_on_stock_ns(tmp_path, tcl("[mac.adaptive_pacing]\nenabled = true\n")) == (
        "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports lred-pacing): "
        "Mac/802_11 has no lred_min_th_")


def test_link_red_drops_are_their_own_cause() -> None:
    from hoptcp.ns2.trace import parse_trace

    lines = ["D 20.000000000 _3_ IFQ LRD 812 ack 60 [0 0 0 0] ------- [4:0 0:0 32 0] [300 0] 0 0",
             "D 21.000000000 _3_ IFQ --- 813 tcp 1540 [0 0 0 0] ------- [0:0 4:0 32 4] [301 0] 0 0"]
    s = parse_trace(lines, 10.0)
    assert s.drops[(3, "link_red", "tcp_ack")] == 1
    assert s.drops[(3, "queue_overflow", "tcp_data")] == 1
