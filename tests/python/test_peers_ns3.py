"""ns-3 as a benchmark peer (hoptcp.peers.ns3): the arguments written from a scenario,
and, where ns-3 is installed, the shipped program's behaviour (skipped otherwise: CI
does not install ns-3). No timing is asserted."""

from __future__ import annotations

import json
import subprocess

import pytest

from hoptcp import _bridge
from hoptcp.peers import ns3
from hoptcp.scenario import Scenario

from conftest import ROOT

BENCH = ROOT / "python" / "hoptcp" / "scenarios" / "bench"
needs_ns3 = pytest.mark.skipif(not ns3.available(), reason="ns-3 is not installed (Debian: apt-get install libns3-dev)")


def _args(name: str) -> dict[str, str]:
    sc = Scenario.load(BENCH / f"{name}.toml")
    plan = json.loads(_bridge.plan_json(sc.toml, sc.overrides))
    return dict(a.removeprefix("--").split("=", 1) for a in ns3.scenario_args(sc.resolved(), plan))


@pytest.mark.core
def test_the_tcp_chain_routes_data_forward_and_acks_back_along_hoptcps_path():
    a = _args("chain7-tcp")
    assert a["positions"] == ";".join(f"{200.0 * i!r},0.0" for i in range(8))
    routes = set(a["routes"].split(";"))
    assert {f"{i},7,{i + 1}" for i in range(7)} <= routes  # data
    assert {f"{i},0,{i - 1}" for i in range(1, 8)} <= routes  # ACKs
    assert len(routes) == 14
    assert a["flows"] == "tcp,0,7,0.0"
    assert (a["maxWindow"], a["payload"], a["initialWindow"], a["minRto"]) == ("32", "1460", "2", "0.2")
    assert (a["rxRange"], a["csRange"], a["dataMbps"], a["basicMbps"], a["queue"]) == ("250.0", "550.0", "2.0", "1.0",
                                                                                         "50")


@pytest.mark.core
def test_udp_flows_route_forward_only_and_carry_rate_size_and_jitter():
    a = _args("grid13-udp")
    flows = a["flows"].split(";")
    assert len(flows) == 12 and flows[0] == "udp,13,25,0.0,2000000.0,1460,0.5"
    routes = set(a["routes"].split(";"))
    assert {f"{n},25,{n + 1}" for n in range(13, 25)} <= routes
    assert not any(r.split(",")[1] == "13" for r in routes)  # nothing routes back to a CBR source
    assert "maxWindow" not in a


@pytest.mark.core
def test_a_scenario_the_program_cannot_run_is_one_line_naming_the_key():
    sc = Scenario.load(BENCH / "chain7-aodv-tcp.toml")
    plan = json.loads(_bridge.plan_json(sc.toml, sc.overrides))
    with pytest.raises(ns3.PeerError) as e:
        ns3.scenario_args(sc.resolved(), plan)
    assert str(e.value) == "the ns-3 peer program cannot run this scenario: routing.protocol = 'aodv'; it runs static routes"


def test_flags_leave_out_files_pkg_config_names_but_are_not_installed(monkeypatch, tmp_path):
    lib = tmp_path / "libsqlite3.so"
    lib.write_text("")
    monkeypatch.setattr(ns3, "_pkg_config", lambda *a: f"-I/usr\\; -I{tmp_path} -lns3-core -lns3-wifi -lns3-core "
                                                          f"/nonexistent/libgsl.so {lib}")
    assert ns3._flags() == [f"-I{tmp_path}", "-lns3-core", "-lns3-wifi", str(lib)]


def _plan(spacing: float, transport: str) -> tuple[dict, dict]:
    """Two nodes ``spacing`` m apart, one flow from the first to the second (hand-made plan)."""
    resolved = Scenario.load(BENCH / f"chain7-{transport}.toml").with_(duration_s=3).resolved()
    flow = {"src": 0, "dst": 1, "start_s": 0.0, "path": [0, 1], "transport": transport}
    if transport == "tcp":
        flow.update(app="ftp", tcp=resolved["tcp"])
    else:
        flow.update(app="cbr", rate_bps=2e6, packet_bytes=1460, jitter=0.0)
    return resolved, {"positions": [[0.0, 0.0], [spacing, 0.0]], "flows": [flow]}


def _run(spacing: float, transport: str) -> dict:
    resolved, plan = _plan(spacing, transport)
    proc = subprocess.run([str(ns3.build()), *ns3.scenario_args(resolved, plan)], capture_output=True, text=True,
                          check=True)
    return ns3.parse_output(proc.stdout)


@needs_ns3
@pytest.mark.core
@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_one_hop_is_received_inside_the_reception_range_and_not_beyond(transport):
    """ns-2's RXThresh becomes ns-3's reception threshold: 240 m carries the flow, 260 m nothing."""
    near, far = _run(240.0, transport), _run(260.0, transport)
    assert near["goodput_bps"] > 100_000 and far["goodput_bps"] == 0.0
    assert _run(240.0, transport) == near  # same scenario and seed, same result
