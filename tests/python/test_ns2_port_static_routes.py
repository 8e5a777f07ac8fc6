"""Static routes in exported ns-2.35 scripts: Agent/StaticRoute (ns2/ports/static-routes) or
stock ns-2.35's frozen DSDV (python/hoptcp/ns2/port_static_routes.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hoptcp.ns2 import Ns2Unsupported, export
from hoptcp.ns2 import port_static_routes as sr
from hoptcp.scenario import Scenario
from ports_helpers import last_error_on_stock_ns, needs_ports

CHAIN3 = """
duration_s = 20
[topology]
kind = "chain"
hops = 3
spacing_m = 200
[[flows]]
src = 0
dst = 3
transport = "tcp"
app = "ftp"
"""

#: a diamond (0 reaches 3 through 1 or 2) with two TCP flows 0 -> 3, one on each side
DIAMOND = """
duration_s = 20
[topology]
kind = "explicit"
positions = [[0.0, 100.0], [170.0, 0.0], [170.0, 200.0], [340.0, 100.0]]
[[flows]]
src = 0
dst = 3
transport = "tcp"
app = "ftp"
route = [0, 1, 3]
[[flows]]
src = 0
dst = 3
transport = "tcp"
app = "ftp"
route = [0, 2, 3]
"""

#: a 3x3 grid, flows 0 -> 8 and 6 -> 2 (several shortest paths each)
GRID3 = """
duration_s = 20
[topology]
kind = "grid"
rows = 3
cols = 3
spacing_m = 200
[[flows]]
src = 0
dst = 8
transport = "tcp"
app = "ftp"
[[flows]]
src = 6
dst = 2
transport = "udp"
rate_bps = 100000.0
"""


def _routes(tcl: str) -> list[str]:
    """The route lines of a script, each prefixed with the node it configures."""
    out, node = [], None
    for line in tcl.splitlines():
        if line.startswith("set r [$node_("):
            node = int(line.split("(")[1].split(")")[0])
        elif line.startswith("$r add-"):
            out.append(f"{node}: {line[3:]}")
    return out


def test_chain_routes_per_destination_both_ways() -> None:
    exp = export(Scenario.from_toml(CHAIN3), 1, static_routes="agent")
    assert _routes(exp.tcl) == [
        "0: add-route 1 1", "0: add-route 3 1",
        "1: add-route 0 0", "1: add-route 2 2", "1: add-route 3 2",
        "2: add-route 0 1", "2: add-route 1 1", "2: add-route 3 3",
        "3: add-route 0 2", "3: add-route 2 2",
    ]
    lines = exp.tcl.splitlines()
    assert lines[3] == sr.GUARD  # the first command: one clear line on a stock ns
    assert "-adhocRouting StaticRoute" in exp.tcl
    assert "Agent/DSDV" not in exp.tcl and "routing-settled" not in exp.tcl
    assert "$src(0) set fid_ 1 ;# its routes (add-flow-route) and its ACKs'" in lines
    assert exp.meta()["static_routes"] == "agent" and exp.meta()["routing"] == "static"
    # no DSDV convergence to wait for: pings at 1 s, flows 2 s after the last ping
    assert exp.t0 == 4.0


def test_dsdv_stays_available_for_stock_ns() -> None:
    exp = export(Scenario.from_toml(CHAIN3), 1, static_routes="dsdv")
    assert "-adhocRouting DSDV" in exp.tcl and "Agent/DSDV set perup_" in exp.tcl
    assert "StaticRoute" not in exp.tcl and "static_routes" not in exp.meta()
    assert _routes(exp.tcl) == []


def test_flows_that_part_get_per_flow_routes() -> None:
    exp = export(Scenario.from_toml(DIAMOND), 1, static_routes="agent")
    assert _routes(exp.tcl) == [
        # node 0 to 3: flow 0 (fid 1) via 1, flow 1 (fid 2) via 2; its pings go straight to 1 and 2
        "0: add-route 1 1", "0: add-route 2 2", "0: add-flow-route 1 3 1", "0: add-flow-route 2 3 2",
        "1: add-route 0 0", "1: add-route 3 3",
        "2: add-route 0 0", "2: add-route 3 3",
        # node 3's ACKs back to 0 part the same way
        "3: add-route 1 1", "3: add-route 2 2", "3: add-flow-route 1 0 1", "3: add-flow-route 2 0 2",
    ]
    assert "$src(1) set fid_ 2 ;# its routes (add-flow-route) and its ACKs'" in exp.tcl


def test_explicit_routes_need_the_agent() -> None:
    with pytest.raises(Ns2Unsupported, match="flows.0.route cannot be exported"):
        export(Scenario.from_toml(DIAMOND), 1, static_routes="dsdv")


def test_grid_routes_follow_hoptcps_paths() -> None:
    exp = export(Scenario.from_toml(GRID3), 1, static_routes="agent")
    flows = exp.meta()["flows"]
    per_dst, per_flow = sr.route_tables(flows, [])
    recorded = {f"r.{n}.{d}": float(h) for n, t in per_dst.items() for d, h in t.items()}
    recorded.update({f"f.{n}.{fl}.{d}": float(h) for n, t in per_flow.items() for (fl, d), h in t.items()})
    assert sr.check_routes(recorded, flows) == []
    # the UDP flow has no reverse route; the TCP flow's ACKs do
    src_udp = flows[1]["path"]
    assert sr.check_routes({}, flows)[0].startswith("flow 0 data route: ns-2 0, hoptcp ")
    first_hop = f"r.{src_udp[0]}.{src_udp[-1]}"
    broken = {k: v for k, v in recorded.items() if k != first_hop}
    assert [p for p in sr.check_routes(broken, flows) if p.startswith("flow 1")] == [
        f"flow 1 data route: ns-2 {src_udp[0]}, hoptcp {'-'.join(map(str, src_udp))}"]


def test_hybrid_keeps_dsdv_and_bad_mode_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    sc = {"routing": {"protocol": "static"}, "wired": {"nodes": 1}}
    assert sr.mode(sc, "agent") == "dsdv"
    monkeypatch.setenv(sr.ENV, "frozen")
    with pytest.raises(Ns2Unsupported, match='static routes = "frozen" is not a choice'):
        sr.mode({"routing": {"protocol": "static"}}, None)
    monkeypatch.setenv(sr.ENV, "dsdv")
    assert sr.mode({"routing": {"protocol": "static"}}, None) == "dsdv"
    assert not sr.use_agent({"routing": {"protocol": "aodv"}}, "agent")


def test_auto_picks_dsdv_without_the_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "ns"
    fake.write_text("#!/bin/sh\necho 'static-routes 0'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HOPTCP_NS", str(fake))
    monkeypatch.delenv(sr.ENV, raising=False)
    assert sr.mode({"routing": {"protocol": "static"}}) == "dsdv"
    fake.write_text("#!/bin/sh\necho 'static-routes 1'\n")
    os.utime(fake, (1, 1))  # a new mtime: the probe's cache key
    assert sr.mode({"routing": {"protocol": "static"}}) == "agent"




@needs_ports
def test_a_run_with_the_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not sr.binary_has_agent(ns):
        pytest.skip(f"{ns} has no Agent/StaticRoute")
    monkeypatch.setenv("HOPTCP_NS", ns)
    monkeypatch.setenv(sr.ENV, "agent")
    rep = run_ns2(Scenario.from_toml(DIAMOND), 1)
    assert rep["ns2"]["route_problems"] == []
    assert rep["drops"]["no_route"] == 0
    assert all(f["goodput_bps"] > 50_000 for f in rep["flows"])  # both sides of the diamond carry a flow


@needs_ports
def test_the_agent_scripts_stop_on_stock_ns(tmp_path: Path) -> None:
    assert last_error_on_stock_ns(tmp_path, export(Scenario.from_toml(CHAIN3), 1, static_routes="agent").tcl) == (
        "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports static-routes): "
        "no class Agent/StaticRoute")


def test_cli_export_chooses_the_routing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hoptcp.cli import main

    sc = tmp_path / "chain3.toml"
    sc.write_text(CHAIN3)
    assert main(["ns2", "export", str(sc), "--static-routes", "agent"]) in (0, None)
    out = capsys.readouterr().out
    assert "-adhocRouting StaticRoute" in out and "$r add-route 3 1" in out
    assert main(["ns2", "export", str(sc), "--static-routes", "dsdv"]) in (0, None)
    out = capsys.readouterr().out
    assert "-adhocRouting DSDV" in out and "StaticRoute" not in out


PORT_TESTS = Path(__file__).resolve().parents[2] / "ns2" / "ports" / "static-routes" / "tests"


@needs_ports
@pytest.mark.parametrize("name", ["chain.tcl", "flow-routes.tcl", "loops.tcl"])
def test_the_ports_tcl_tests(name: str, tmp_path: Path) -> None:
    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not sr.binary_has_agent(ns):
        pytest.skip(f"{ns} has no Agent/StaticRoute")
    proc = subprocess.run([ns, str(PORT_TESTS / name), str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=120, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert any(line.startswith("ok ") for line in proc.stdout.splitlines()), proc.stdout
