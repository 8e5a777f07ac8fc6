"""AODV to a base station and HTTP pages in exported ns-2.35 scripts: the aodv-bs port
(ns2/ports/aodv-bs; python/hoptcp/ns2/port_aodv_bs.py)."""

from __future__ import annotations

import os
import subprocess

import pytest

from hoptcp.errors import ScenarioError
from hoptcp.ns2 import export
from hoptcp.ns2 import port_aodv_bs as bs
from hoptcp.scenario import Scenario
from ports_helpers import has_port, needs_ports, tcl_settings

#: a 3-hop chain whose last node (3) is the gateway to one wired host (4); node 0 sends to the host
UP = """
duration_s = 30
[topology]
kind = "chain"
hops = 3
spacing_m = 200
[radio]
data_rate_mbps = 11
basic_rate_mbps = 1
[routing]
protocol = "aodv"
[tcp]
max_window = 32
payload_bytes = 1460
[wired]
nodes = 1
bandwidth_mbps = 10
delay_ms = 40
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""

#: the wired host serves HTTP pages to node 0 (the paper's direction)
HTTP = UP.replace('src = 0\ndst = 4', 'src = 4\ndst = 0').replace('app = "ftp"', '''app = "http"
mean_page_bytes = 20000.0
page_shape = 1.8
mean_think_s = 2.5''')

#: the same, all wireless (flat addresses: no base station)
FLAT_HTTP = HTTP.split("[wired]")[0] + """[[flows]]
src = 3
dst = 0
transport = "tcp"
app = "http"
"""


def sc(text: str = UP, **over: object) -> Scenario:
    return Scenario.from_toml(text).with_overrides(over)


def app_settings(script: str, i: int = 0) -> dict[str, str]:
    return tcl_settings(script, f"$app({i})")


def test_hybrid_aodv_is_exported_with_the_guard_and_base_stations() -> None:
    s = export(sc(), 1).tcl
    lines = s.splitlines()
    assert bs.GUARD_AODV in lines[:8] and bs.GUARD_HTTP not in s
    assert "Agent/AODV set bs_gateway_ 1" in lines
    assert "-adhocRouting AODV" in s and "AddrParams set nodes_num_ {1 4}" in s
    # every mobile node but the gateway names it; the gateway is the base station
    for i in (0, 1, 2):
        assert f"$node_({i}) base-station [AddrParams addr2id [$node_(3) node-addr]]" in lines
    assert "$node_(3) base-station" not in s
    assert s.index("Agent/AODV set bs_gateway_ 1") < s.index("make-node 3 ")


def test_static_hybrid_and_wireless_aodv_write_nothing_of_the_port() -> None:
    for s in (export(sc(**{"routing.protocol": "static"}), 1, static_routes="dsdv").tcl,
              export(sc(UP.split("[wired]")[0] + '[[flows]]\nsrc = 0\ndst = 3\ntransport = "tcp"\n'), 1).tcl):
        assert "bs_gateway_" not in s and "HttpPages" not in s


def test_http_flow_maps_to_the_page_source() -> None:
    s = export(sc(HTTP), 7).tcl
    lines = s.splitlines()
    assert bs.GUARD_HTTP in lines[:8] and bs.GUARD_AODV in lines[:8]
    assert "set app(0) [new Application/HttpPages] ;# the aodv-bs port: Pareto pages, exponential pauses" in lines
    assert "$app(0) attach-agent $src(0)" in lines and "$app(0) attach-sink $dst(0)" in lines
    # hoptcp's page ends when the sender has its last ACK (app/http.rs), the port's end_at_ sender
    assert app_settings(s) == {"flow_": "0", "page_mean_": "20000.0", "page_shape_": "1.8", "pause_mean_": "2.5",
                               "persistent_": "1", "end_at_": "sender", "seed_": "7001", "chan_": "$statsfd"}
    assert "Application/FTP" not in s
    fin = s[s.index("proc finish {}"):]
    assert "    global app" in fin and "record 0 http_pages_started [$app(0) set pages_started_]" in fin


def test_http_defaults_and_counted_flows() -> None:
    text = FLAT_HTTP.replace("[[flows]]", "[[flows]]\ncount = 2", 1)
    s = export(sc(text), 2).tcl
    for i in (0, 1):
        got = app_settings(s, i)
        assert (got["page_mean_"], got["page_shape_"], got["pause_mean_"]) == ("30000.0", "1.5", "1.0")
        assert got["seed_"] == str(2000 + i + 1)
    assert bs.GUARD_AODV not in s and bs.GUARD_HTTP in s


def test_http_over_udp_is_refused_by_hoptcp_or_the_exporter() -> None:
    text = HTTP.replace('transport = "tcp"\napp = "http"', 'transport = "udp"\napp = "http"')
    with pytest.raises(ScenarioError, match=r"flows\.0\.app.*transport = \"udp\" supports app = \"cbr\""):
        export(sc(text), 1)


def test_app_seed_is_never_zero_and_differs_per_flow() -> None:
    seeds = {bs.app_seed(r, i) for r in (1, 2, 3) for i in range(5)}
    assert len(seeds) == 15 and 0 not in seeds


def test_page_lines_become_hoptcps_http_metrics() -> None:
    lines = ["0 from 0", "http-page 0 10.000000 10.500000 1000 1", "http-page 0 12.000000 13.000000 2921 2",
             "http-page 1 11.000000 11.250000 14600 1", "garbage line"]
    pages = bs.parse_pages(lines)
    assert pages == {0: [(10.0, 10.5, 1000, 1), (12.0, 13.0, 2921, 2)], 1: [(11.0, 11.25, 14600, 1)]}
    h = bs.http_summary(pages[0], 1460, 3.0)
    # hoptcp counts whole segments: 1000 B -> 1460, 2921 B -> 4380
    assert h["page_bytes"] == [1460, 4380] and h["page_bytes_drawn"] == [1000, 2921]
    assert h["pages_started"] == 3 and h["pages_completed"] == 2
    assert h["mean_page_time_s"] == pytest.approx(0.75)
    assert h["mean_page_goodput_bps"] == pytest.approx((1460 * 8 / 0.5 + 4380 * 8 / 1.0) / 2)
    assert h["mean_page_goodput_drawn_bps"] == pytest.approx((1000 * 8 / 0.5 + 2921 * 8 / 1.0) / 2)


def test_add_http_fills_only_http_flows(tmp_path) -> None:
    stats = tmp_path / "x.stats"
    stats.write_text("http-page 1 1.0 2.0 1460 1\n0 to 5\n", encoding="utf-8")
    rep = {"flows": [{"id": 0}, {"id": 1}]}
    meta = {"flows": [{"id": 0, "app": "ftp", "payload_bytes": 1460}, {"id": 1, "app": "http", "payload_bytes": 1460}]}
    bs.add_http(rep, str(stats), meta, {1: {"http_pages_started": 2.0}})
    assert "http" not in rep["flows"][0]
    assert rep["flows"][1]["http"]["pages_completed"] == 1 and rep["flows"][1]["http"]["pages_started"] == 2


def test_the_script_stops_on_stock_ns_in_one_line() -> None:
    ns = "/usr/bin/ns"
    if not os.path.exists(ns):
        pytest.skip("no stock ns-2.35")
    for text in (UP, FLAT_HTTP):
        proc = subprocess.run([ns], input=export(sc(text), 1).tcl, capture_output=True, text=True, timeout=60,
                              check=False)
        assert proc.returncode == 1
        assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
        assert "needs ns-2.35 built with hoptcp's ports" in proc.stderr




def _has_port(ns: str) -> bool:
    return has_port(ns, "Agent/AODV set bs_gateway_")


@needs_ports
@pytest.mark.parametrize("direction", ["up", "down"])
def test_a_hybrid_aodv_run_with_the_port(monkeypatch: pytest.MonkeyPatch, direction: str) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not _has_port(ns):
        pytest.skip(f"{ns} has no aodv-bs port")
    monkeypatch.setenv("HOPTCP_NS", ns)
    over = {} if direction == "up" else {"flows.0.src": 4, "flows.0.dst": 0}
    rep = run_ns2(sc(**over), 1)
    assert rep["flows"][0]["goodput_bps"] > 1e5


@needs_ports
def test_an_http_run_with_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2.run import run_ns2

    ns = os.environ["HOPTCP_NS2_PORTS"]
    if not _has_port(ns):
        pytest.skip(f"{ns} has no aodv-bs port")
    monkeypatch.setenv("HOPTCP_NS", ns)
    rep = run_ns2(sc(HTTP, duration_s=60.0), 1)
    h = rep["flows"][0]["http"]
    assert h["pages_completed"] >= 5 and h["pages_started"] >= h["pages_completed"]
    assert all(b % 1460 == 0 and b >= 10000 for b in h["page_bytes"])
    assert 0 < h["mean_page_goodput_bps"] < 11e6
