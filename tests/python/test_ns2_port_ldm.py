"""Low Delay Marking in exported ns-2.35 scripts: the ldm port (ns2/ports/ldm;
python/hoptcp/ns2/port_ldm.py)."""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import pytest

from hoptcp.ns2 import Ns2Unsupported, export
from hoptcp.ns2 import port_ldm as ldm
from hoptcp.scenario import Scenario
from ports_helpers import has_port, last_error_on_stock_ns, needs_ports, tcl_settings

CHAIN4 = """
duration_s = 20
[topology]
kind = "chain"
hops = 4
spacing_m = 200
[routing]
protocol = "aodv"
[tcp]
ecn = true
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""

LDM = "[ip.ldm]\nenabled = true\n"


def tcl(extra: str = "", base: str = CHAIN4, **kw: object) -> str:
    return export(Scenario.from_toml(base + extra), 1, **kw).tcl


def queue_settings(script: str) -> dict[str, str]:
    return tcl_settings(script, ldm.QUEUE_CLASS)


def test_off_writes_nothing_of_the_port() -> None:
    s = tcl()
    assert ldm.QUEUE_CLASS not in s and "ldm-" not in s and "rtt_" not in s and "-38 " not in s
    assert "-ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna" in s


def test_defaults() -> None:
    s = tcl(LDM)
    assert ldm.GUARD in s.splitlines()[:8]
    assert f"-ifqType {ldm.QUEUE_CLASS} -ifqLen 50" in s
    assert queue_settings(s) == {
        "ldm_": "1", "oracle_": "0", "k_": "0.76", "hops_per_win_": "4.0", "wmin_rule_": "0", "min_win_": "1.0",
        "floor_win_": "2.0", "target_win_": "0", "bits_": "64", "clear_period_": "4.0", "action_": "1",
        "flow_key_": "0", "eq4_": "0", "policy_": "0"}
    # AODV: both simulators start at 30, hoptcp's conventions go to every queue
    assert "proc ldm-ttls {q} { $q ldm-initial-ttls 30 64 128 255 }" in s
    assert "for {set i 0} {$i < 5} {incr i} { ldm-ttls [$node_($i) set ifq_(0)] }" in s
    assert "$src(0) trace rtt_" in s
    assert "oracle_flows_" not in s
    assert 'puts $statsfd "-38 $i.$k [$q set $k]"' in s


@pytest.mark.parametrize("key,value,var,want", [
    ("estimate", '"oracle"', "oracle_", "1"),
    ("k", "0.5", "k_", "0.5"),
    ("hops_per_window", "3.0", "hops_per_win_", "3.0"),
    ("min_window", "0.5", "min_win_", "0.5"),
    ("floor_window", "3.0", "floor_win_", "3.0"),
    ("target_window", "4.0", "target_win_", "4.0"),
    ("flow_bits", "256", "bits_", "256"),
    ("clear_period_s", "2.5", "clear_period_", "2.5"),
    ("action", '"mark_ect_only"', "action_", "0"),
    ("action", '"drop"', "action_", "2"),
])
def test_each_key(key: str, value: str, var: str, want: str) -> None:
    assert queue_settings(tcl(LDM + f"{key} = {value}\n"))[var] == want


def test_oracle_counts_per_node() -> None:
    base = CHAIN4 + '[[flows]]\nsrc = 0\ndst = 4\ntransport = "tcp"\napp = "ftp"\n'
    s = tcl(LDM + 'estimate = "oracle"\n', base=base)
    lines = s.splitlines()
    for node in range(5):  # two planned flows over every node of the chain (endpoints included)
        assert f"[$node_({node}) set ifq_(0)] set oracle_flows_ 2" in lines
    for node in (1, 2, 3):  # forwarders: both flows are 4 hops
        assert f"[$node_({node}) set ifq_(0)] ldm-oracle-hops 0 4 4" in lines
    assert "[$node_(0) set ifq_(0)] ldm-oracle-hops 0 4 4" not in lines


def test_static_routes_ttl() -> None:
    static = CHAIN4.replace('protocol = "aodv"', 'protocol = "static"')
    s = tcl(LDM, base=static, static_routes="dsdv")  # ip.ttl 64 is a convention: ns-2's 32 alone
    assert "proc ldm-ttls {q} { $q ldm-initial-ttls 32 }" in s


@pytest.mark.parametrize("extra,base,key", [
    ("initial_ttls = [30]\n", "static", "ip.ldm.initial_ttls"),
    ("initial_ttls = [30, 62, 64]\n", "static", "ip.ldm.initial_ttls"),  # 62 undercuts 64 within 4 hops
])
def test_refused_with_one_line(extra: str, base: str, key: str) -> None:
    text = CHAIN4.replace('protocol = "aodv"', f'protocol = "{base}"')
    with pytest.raises(Ns2Unsupported) as exc:
        export(Scenario.from_toml(text + LDM + extra), 1, static_routes="dsdv")
    msg = str(exc.value)
    assert msg.startswith(key) and "\n" not in msg, msg


@pytest.mark.parametrize("ldm_table,key", [
    ({"action": "shout"}, "ip.ldm.action"),  # (hoptcp's schema refuses these before the exporter)
    ({"estimate": "guess"}, "ip.ldm.estimate"),
    ({"flow_bits": 70000}, "ip.ldm.flow_bits"),
    ({"colour": "red"}, "ip.ldm.colour"),
])
def test_port_refuses_what_it_cannot_express(ldm_table: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        ldm.class_lines({"ip": {"ldm": {"enabled": True, **ldm_table}}, "routing": {"protocol": "aodv"}})
    assert str(exc.value).startswith(key)


def test_add_counters_and_rtt(tmp_path: Path) -> None:
    rep = {"nodes": [{"id": 0}, {"id": 1}],
           "flows": [{"id": 0, "src": 0, "dst": 4, "transport": "tcp"},
                     {"id": 1, "src": 0, "dst": 4, "transport": "tcp"},
                     {"id": 2, "src": 0, "dst": 4, "transport": "udp"}]}
    cwnd = tmp_path / "out.cwnd"
    cwnd.write_text("0.00000  0  1  4  1  rtt_ 0.000 \n"  # the second flow's agent (port 1): no sample yet
                    "1.0 0  0  4  0  cwnd_ 2.000\n"
                    "1.0 0  1  4  1  cwnd_ 2.000\n"
                    "2.0 0  0  4  0  rtt_ 0.080 \n"
                    "3.0 0  0  4  0  rtt_ 0.120 \n")
    ldm.add_counters(rep, {"1.data_pkts_": 10.0, "1.marks_": 3.0, "1.drops_": 0.0, "1.mean_hops_": 4.0,
                           "0.data_pkts_": 0.0}, cwnd)
    assert rep["nodes"][1] == {"id": 1, "ldm_packets": 10, "ldm_marks": 3, "ldm_drops": 0, "ldm.mean_hops": 4.0}
    assert rep["nodes"][0]["ldm_packets"] == 0
    f0, f1, f2 = rep["flows"]
    assert f0["rtt_samples"] == 2 and f0["avg_rtt_s"] == pytest.approx(0.1)
    assert f1["rtt_samples"] == 0 and math.isnan(f1["avg_rtt_s"])
    assert "avg_rtt_s" not in f2


def test_rtt_lines_only_parse_rtt() -> None:
    rep = {"flows": [{"src": 3, "dst": 0, "transport": "tcp"}]}
    ldm.add_rtt(rep, io.StringIO("5.0 3 0 0 0 rtt_ 0.250\n5.1 3 0 0 0 srtt_ 0.3\n"))
    assert rep["flows"][0]["avg_rtt_s"] == pytest.approx(0.25) and rep["flows"][0]["rtt_samples"] == 1




def _has_port(ns: str) -> bool:
    return has_port(ns, f"{ldm.QUEUE_CLASS} info class")


@needs_ports
def test_a_run_with_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not _has_port(ns):
        pytest.skip(f"{ns} has no ldm port")
    monkeypatch.setenv("HOPTCP_NS", ns)
    rep = run_ns2(Scenario.from_toml(CHAIN4 + LDM), 1)
    nodes = rep["nodes"]
    assert [n["ldm_packets"] > 0 for n in nodes] == [False, True, True, True, False]  # forwarders only
    assert sum(n["ldm_marks"] for n in nodes) > 0 and sum(n["ldm_drops"] for n in nodes) == 0
    assert all(n["ldm.mean_hops"] == 4.0 for n in nodes[1:4])  # TTLs from 30, both directions
    f = rep["flows"][0]
    assert f["rtt_samples"] > 0 and 0.01 < f["avg_rtt_s"] < 2.0
    assert rep["aggregate_goodput_bps"] > 0


@needs_ports
def test_port_scripts_stop_on_stock_ns(tmp_path: Path) -> None:
    assert last_error_on_stock_ns(tmp_path, tcl(LDM)) == (
        "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports ldm): "
        f"no class {ldm.QUEUE_CLASS}")
