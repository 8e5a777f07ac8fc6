"""ns-2.35 export of hybrid ([wired]) scenarios and of TCP-AP's ns-2-code variant, and the
``hoptcp ns2 build`` script's checks and patch steps (without compiling ns-2)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from hoptcp.errors import SpecError
from hoptcp.ns2 import Ns2Unsupported, export
from hoptcp.ns2 import build as nb
from hoptcp.ns2 import trace as tr
from hoptcp.scenario import Scenario
from ns2_helpers import needs_ns

#: a 2-hop chain whose last node (2) is the gateway to two wired nodes 3 and 4
HYBRID = """
duration_s = 20
[topology]
kind = "chain"
hops = 2
spacing_m = 200
[radio]
data_rate_mbps = 11
[tcp]
max_window = 16
[wired]
nodes = 2
bandwidth_mbps = 10
delay_ms = 40
queue_limit = 30
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""


def scenario(text: str, **over: object) -> Scenario:
    return Scenario.from_toml(text).with_overrides(over)


def tcpap_binary() -> str | None:
    """An ns binary with the authors' Agent/TCP/Newreno/AP ($HOPTCP_NS), or None."""
    ns = os.environ.get("HOPTCP_NS")
    if not ns or not Path(ns).is_file():
        return None
    try:
        nb.probe(Path(ns), Path(os.environ.get("TMPDIR", "/tmp")))
    except SpecError:
        return None
    return ns


# --- hybrid scenarios -------------------------------------------------------------------------

@pytest.mark.core
def test_hybrid_export_is_ns2s_wired_cum_wireless_setup() -> None:
    exp = export(scenario(HYBRID))
    tcl = exp.tcl
    assert exp.gateway == 2 and exp.wired_nodes == 2 and exp.meta()["gateway"] == 2
    # Hierarchical addresses: 2 wired nodes in domain 0, the 3 wireless ones in domain 1.
    for line in ("$ns_ node-config -addressType hierarchical", "AddrParams set domain_num_ 2",
                 "AddrParams set cluster_num_ {1 1}", "AddrParams set nodes_num_ {2 3}",
                 "set node_(3) [$ns_ node 0.0.0]", "set node_(4) [$ns_ node 0.0.1]",
                 "    set node_($i) [$ns_ node 1.0.$i]"):
        assert line in tcl, line
    # Wired nodes and the gateway (a base station) get ns-2's lowest ids, mobile nodes the rest.
    i_wired = tcl.index("set node_(3) [$ns_ node 0.0.0]")
    i_config = tcl.index("$ns_ node-config -adhocRouting DSDV")
    i_gw = tcl.index("make-node 2 ")
    assert i_wired < i_config < i_gw < tcl.index("make-node 0 ") < tcl.index("make-node 1 ")
    assert tcl[:i_gw].rstrip().endswith("$ns_ node-config -wiredRouting ON ;# the gateway: a base station, "
                                         "registered for wired routing")
    for i in (0, 1):
        assert f"$node_({i}) base-station [AddrParams addr2id [$node_(2) node-addr]]" in tcl
    assert "$node_(2) base-station" not in tcl
    # The scenario's links: 10 Mb/s, 40 ms, a queue of 30 both ways.
    for a, b in ((2, 3), (3, 4)):
        assert f"$ns_ duplex-link $node_({a}) $node_({b}) 10000000.0 0.04 DropTail" in tcl
        assert f"$ns_ queue-limit $node_({a}) $node_({b}) 30" in tcl
        assert f"$ns_ queue-limit $node_({b}) $node_({a}) 30" in tcl
    # ARP only on radio links.
    assert re.findall(r"^arp-warmup (\d+) (\d+) ", tcl, re.M) == [("0", "1"), ("1", "2")]
    # The wireless sender's DSDV adds 20 B to its data; the wired sink's ACKs pass no routing agent.
    assert "$src(0) set tcpip_base_hdr_size_ 20" in tcl and "$dst(0) set packetSize_ 40 ;# ACK size" in tcl
    assert "create-god 5" in tcl


@pytest.mark.core
def test_hybrid_export_from_a_wired_sender_keeps_its_headers() -> None:
    tcl = export(scenario(HYBRID, **{"flows.0.src": 4, "flows.0.dst": 0})).tcl
    assert "$ns_ attach-agent $node_(4) $src(0)" in tcl
    assert "$src(0) set tcpip_base_hdr_size_ 40" in tcl and "$dst(0) set packetSize_ 20 ;# ACK size" in tcl
    # A wired node resets its agents when the run starts (ssthresh_ = window_): set again at time 0.
    assert '$ns_ at 0.0 "$src(0) set ssthresh_ 20" ;# after the run\'s reset of wired nodes' in tcl
    assert "$ns_ at 0.0" not in export(scenario(HYBRID)).tcl  # a mobile sender keeps the one set at creation


@pytest.mark.core
@pytest.mark.parametrize(("over", "key"), [
    # AODV itself is exported with the aodv-bs port (tests/python/test_ns2_port_aodv_bs.py); its constants are not
    ({"routing.protocol": "aodv", "routing.aodv.ttl_start": 3}, "routing.aodv.ttl_start"),
])
def test_hybrid_what_ns2_cannot_express_is_one_line(over: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        export(scenario(HYBRID, **over))
    msg = str(exc.value)
    assert msg.startswith(key) and "\n" not in msg and "allowed" in msg


def test_hybrid_trace_is_translated_to_hoptcps_node_ids() -> None:
    # ns-2 ids: wired 3 -> 0, 4 -> 1, gateway 2 -> 2, mobile 0 -> 3, 1 -> 4; addresses hierarchical.
    recorded = {"id.0": 3, "id.1": 4, "id.2": 2, "id.3": 0, "id.4": 1,
                "addr.0": 4194304, "addr.1": 4194305, "addr.2": 4194306, "addr.3": 0, "addr.4": 1}
    ids, addrs = tr.node_maps(recorded)
    assert ids == {3: 0, 4: 1, 2: 2, 0: 3, 1: 4} and addrs is not None and addrs[4194306] == 2
    assert tr.node_maps({"from": 1.0}) == (None, None)
    lines = [
        "VWST 5.0 frm 4194304 to 4194306 wst 0.0 nxthp 4194305 [of 2]",
        "VWST 5.0 frm 4194305 to 4194306 wst 0.0 nxthp 4194306 [of 1]",
        "VWST 5.0 frm 4194306 to 4194304 wst 0.0 nxthp 4194305 [of 2]",
        "VWST 5.0 frm 4194305 to 4194304 wst 0.0 nxthp 4194304 [of 1]",
        "D 21.0 _4_ IFQ  --- 10 tcp 1500 [0 0 0 0] ------- [4194304:0 1:0 32 4194305]",
        "d 22.0 2 0 tcp 1500 ------- 0 4194304.0 1.0 10 99",
        "d 23.0 0 1 ack 40 ------- 0 1.0 4194304.0 10 100",
        "d 23.5 0 1 cbr 40 ------- 0 1.0 4194304.0 10 101",
        "d 10.0 2 0 tcp 1500 ------- 0 4194304.0 1.0 1 98",
    ]
    s = tr.parse_trace(lines, t0=20.0, ids=ids, addrs=addrs)
    assert dict(s.drops) == {(1, "queue_overflow", "tcp_data"): 1}
    assert s.wired_drops == 2  # TCP data and ACKs after t0 only
    # Only the wireless part of a path is DSDV's: 0-1-2 towards the gateway and back.
    flows = [{"id": 0, "transport": "tcp", "path": [0, 1, 2, 3, 4]}]
    assert tr.check_routes(s, flows, n_wireless=3) == []
    cw = tr.parse_cwnd(["21.0 4194304 1 1 0 cwnd_ 2.000"], addrs)
    assert list(cw) == [(0, 1, 4, 0)]


@pytest.mark.core
@needs_ns
def test_hybrid_export_runs_unmodified_in_ns2(tmp_path: Path) -> None:
    from hoptcp.ns2.run import run_ns2

    rep = run_ns2(scenario(HYBRID, duration_s=5.0), 1, keep=tmp_path)
    assert rep["ns2"]["route_problems"] == []
    # Two 11 Mb/s hops and a 10 Mb/s wired path with 160 ms round trip, window 16: hundreds of kb/s.
    assert rep["flows"][0]["goodput_bps"] > 2e5
    assert rep["wired"]["link_drops"] == 0


# --- TCP-AP: the authors' agent ---------------------------------------------------------------

@pytest.mark.core
def test_tcp_ap_ns2_code_exports_the_authors_agent_and_parameters() -> None:
    sc = scenario(HYBRID, **{"tcp.variant": "tcp_ap", "tcp.ap.profile": "ns2", "tcp.ap.history": 30,
                             "tcp.ap.alpha": 0.8})
    tcl = export(sc).tcl
    for line in ("set src(0) [new Agent/TCP/Newreno/AP]", "$src(0) set n_factor_ 4", "$src(0) set history_ 30",
                 "$src(0) set alpha_ 0.8", "$src(0) set delaybound_ 0.5", "$src(0) set rate_interval_ 0.05",
                 "$src(0) set ll_bandwidth_ 11000000.0"):
        assert line in tcl, line


@pytest.mark.core
@pytest.mark.parametrize(("over", "key"), [
    ({}, "tcp.ap.variation"),  # the paper profile
    ({"tcp.ap.profile": "ns2", "tcp.ap.short_path": "h_hop"}, "tcp.ap.short_path"),
    ({"tcp.ap.profile": "ns2", "tcp.ap.timer": "on_demand"}, "tcp.ap.timer"),
    ({"tcp.ap.profile": "ns2", "tcp.ap.overhead_bytes": 40}, "tcp.ap.overhead_bytes"),
    ({"tcp.ap.profile": "ns2", "tcp.ap.history": 201}, "tcp.ap.history"),
    ({"tcp.ap.profile": "ns2", "tcp.ap.delay_bound_s": 0.0}, "tcp.ap.delay_bound_s"),
    ({"tcp.ap.profile": "ns2", "tcp.max_window": 200}, "tcp.max_window"),
])
def test_tcp_ap_what_the_authors_code_cannot_run_is_one_line(over: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        export(scenario(HYBRID, **{"tcp.variant": "tcp_ap", **over}))
    msg = str(exc.value)
    assert msg.startswith(key) and "\n" not in msg and "allowed" in msg, msg


@pytest.mark.core
@needs_ns
def test_tcp_ap_in_an_ns_without_the_authors_code_says_what_to_build(tmp_path: Path) -> None:
    from hoptcp.ns2.run import Ns2Error, ns_binary, run_ns2

    assert ns_binary() is not None
    if tcpap_binary() is not None:
        pytest.skip("the ns in use has the authors' TCP-AP")
    sc = scenario(HYBRID, **{"tcp.variant": "tcp_ap", "tcp.ap.profile": "ns2", "duration_s": 2.0})
    with pytest.raises(Ns2Error, match="has no Agent/TCP/Newreno/AP: build one with `hoptcp ns2 build`"):
        run_ns2(sc, 1)


@pytest.mark.core
@pytest.mark.skipif(tcpap_binary() is None, reason="no ns-2.35 with the authors' TCP-AP ($HOPTCP_NS)")
def test_tcp_ap_runs_in_the_patched_ns2_and_paces(tmp_path: Path) -> None:
    from hoptcp.ns2.run import run_ns2

    base = {"tcp.variant": "tcp_ap", "tcp.ap.profile": "ns2", "duration_s": 20.0, "topology.hops": 4,
            "flows.0.dst": 6}
    rep = run_ns2(scenario(HYBRID, **base), 1, keep=tmp_path)
    # With the gateway off, TCP-AP paces on a round trip with 160 ms of wired links: about one
    # packet per four-hop delay of ~0.1 s, far below NewReno's window-limited rate.
    newreno = run_ns2(scenario(HYBRID, **{**base, "tcp.variant": "newreno"}), 1)
    assert 0 < rep["aggregate_goodput_bps"] < 0.5 * newreno["aggregate_goodput_bps"]


def test_use_binary_refuses_what_is_not_an_executable(tmp_path: Path) -> None:
    from hoptcp.ns2.run import use_binary

    with pytest.raises(SpecError, match=r"^--ns-binary .*nope: not an executable file"):
        use_binary(str(tmp_path / "nope"))


# --- hoptcp ns2 build: checks and patch steps -------------------------------------------------

def make_trees(tmp_path: Path, version: str = "2.35") -> tuple[Path, Path]:
    tcpap = tmp_path / "tcpap"
    (tcpap / "tcp").mkdir(parents=True)
    for f in nb.TCP_AP_FILES:
        (tcpap / "tcp" / f).write_text("// tcp-ap\n")
    ns2 = tmp_path / "ns-2.35"
    for rel in ("configure", "tcp/tcp-newreno.cc", "tcl/lib/ns-default.tcl"):
        (ns2 / rel).parent.mkdir(parents=True, exist_ok=True)
        (ns2 / rel).write_text("\n")
    (ns2 / "VERSION").write_text(version + "\n")
    (ns2 / "Makefile.in").write_text("OBJ_CC = \\\n\ttcp/tcp-newreno.o tcp/tcp-rfc793edu.o \\\n")
    return tcpap, ns2


def test_build_checks_its_inputs_with_one_line_each(tmp_path: Path) -> None:
    tcpap, ns2 = make_trees(tmp_path)
    src = nb.check_sources(tcpap, ns2)
    assert src.version == "2.35" and src.tcpap["tcp-ap.cc"] == tcpap / "tcp" / "tcp-ap.cc"
    cases = [
        ((tmp_path / "none", ns2), "--with-tcpap"),
        ((tcpap, tmp_path / "none"), "--ns2-src"),
        ((tmp_path, ns2), "--with-tcpap"),  # a directory without the two files
    ]
    for args, key in cases:
        with pytest.raises(SpecError) as exc:
            nb.check_sources(*args)
        assert str(exc.value).startswith(key) and "\n" not in str(exc.value)
    (ns2 / "tcp" / "tcp-newreno.cc").unlink()
    with pytest.raises(SpecError, match=r"^--ns2-src .*: no tcp/tcp-newreno.cc there"):
        nb.check_sources(tcpap, ns2)
    old = tmp_path / "old"
    old.mkdir()
    tcpap2, ns229 = make_trees(old, version="2.29")
    with pytest.raises(SpecError, match=r"VERSION says '2.29' \(allowed: 2.35"):
        nb.check_sources(tcpap2, ns229)


def test_build_cli_refuses_a_missing_directory_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from hoptcp.cli import main

    assert main(["ns2", "build", "--with-tcpap", str(tmp_path / "x"), "--ns2-src", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hoptcp: error: --with-tcpap") and "no such directory" in err[0]


def test_patch_steps_add_the_object_and_the_defaults_once() -> None:
    mk = "OBJ_CC = \\\n\ttcp/tcp-newreno.o tcp/tcp-rfc793edu.o \\\n"
    once = nb.add_object(mk)
    assert "tcp/tcp-newreno.o tcp/tcp-ap.o tcp/tcp-rfc793edu.o" in once and nb.add_object(once) == once
    with pytest.raises(SpecError, match="no tcp/tcp-newreno.o"):
        nb.add_object("OBJ_CC = tcp/tcp.o\n")
    nd = nb.add_defaults("Agent/TCP set window_ 20\n")
    assert nd.count(nb.DEFAULTS_MARK) == 1 and nb.add_defaults(nd) == nd
    # Every variable tcp-ap.cc binds gets the value its constructor sets.
    for k, v in {"n_factor_": "4", "history_": "50", "delaybound_": "0.5", "alpha_": "0.7",
                 "rate_interval_": "0.05", "ll_bandwidth_": "2e6", "coeff_var_": "0", "adev_": "0"}.items():
        assert f"Agent/TCP/Newreno/AP set {k} {v}\n" in nd


def test_prepare_copies_and_patches_a_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tcpap, ns2 = make_trees(tmp_path)
    monkeypatch.setattr(nb, "stage_deps", lambda deps, libs: deps.mkdir(parents=True, exist_ok=True))
    tree = nb.prepare(nb.check_sources(tcpap, ns2), tmp_path / "out", {})
    assert (tree / "tcp" / "tcp-ap.cc").read_text() == "// tcp-ap\n"
    assert "tcp/tcp-ap.o" in (tree / "Makefile.in").read_text()
    assert nb.DEFAULTS_MARK in (tree / "tcl/lib/ns-default.tcl").read_text()
    assert "tcp/tcp-ap.o" not in (ns2 / "Makefile.in").read_text()  # the user's tree is left alone
    again = nb.prepare(nb.check_sources(tcpap, ns2), tmp_path / "out", {})
    assert (again / "Makefile.in").read_text().count("tcp/tcp-ap.o") == 1
    assert nb.configure_args(tmp_path / "d")[1:] == [f"--with-tcl={tmp_path / 'd'}", f"--with-tk={tmp_path / 'd'}",
                                                     f"--with-otcl={tmp_path / 'd'}", f"--with-tclcl={tmp_path / 'd'}",
                                                     "--with-tcl-ver=8.6", "--with-tk-ver=8.6"]


def test_probe_accepts_only_an_ns_that_creates_the_agent(tmp_path: Path) -> None:
    good = tmp_path / "good-ns"
    good.write_text("#!/bin/sh\necho 'n_factor_=4 history_=50 delaybound_=0.5'\n")
    bad = tmp_path / "bad-ns"
    bad.write_text("#!/bin/sh\necho 'invalid command name \"Agent/TCP/Newreno/AP\"' >&2\nexit 1\n")
    for p in (good, bad):
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    assert nb.probe(good, tmp_path).startswith("n_factor_=4")
    with pytest.raises(SpecError, match="does not create Agent/TCP/Newreno/AP"):
        nb.probe(bad, tmp_path)


def test_int64_steps_for_a_tclcl_without_int64_binds(tmp_path: Path) -> None:
    ah = "#define HAVE_STL 1\n#define HAVE_INT64 1\n#define SIZEOF_LONG 8\n"
    out = nb.drop_int64(ah)
    assert "#define HAVE_INT64" not in out and "#define HAVE_STL 1" in out and nb.drop_int64(out) == out
    assert nb.int_maxpkts("\tint64_t maxpkts_;\t\n\tint64_t other_;\n") == "\tint maxpkts_;\t\n\tint64_t other_;\n"
    f = tmp_path / "autoconf.h"
    f.write_text(out)
    before = f.stat().st_mtime_ns
    os.utime(f, ns=(before - 10**9, before - 10**9))
    nb.rewrite(f, nb.drop_int64)  # nothing to change: the file keeps its time (make is not retriggered)
    assert f.stat().st_mtime_ns == before - 10**9


# --- pauses and per-interval series -----------------------------------------------------------

@pytest.mark.core
def test_pauses_are_ftp_stop_and_start_and_series_sample_the_sinks() -> None:
    sc = scenario(HYBRID, **{"flows.0.pauses": [[5.0, 8.0]], "stats.throughput_interval_s": 2.0})
    exp = export(sc)
    tcl = exp.tcl
    assert '$ns_ at [t 5.0] "$app(0) stop" ;# pause' in tcl and '$ns_ at [t 8.0] "$app(0) start" ;# the same' in tcl
    # 20 s in intervals of 2 s: samples 0..9 by the proc, sample 10 at the end (finish).
    assert "    foreach {i var} {0 bytes_} { record $i s$k [$dst($i) set $var] }" in tcl
    assert "if {$k < 9}" in tcl and "    sample 10 ;# the last boundary is the run's end" in tcl
    assert exp.meta()["series_interval_s"] == 2.0
    with pytest.raises(Ns2Unsupported, match=r"^flows.0.pauses cannot be exported with flows.N.count"):
        export(scenario(HYBRID, **{"flows.0.pauses": [[5.0, 8.0]], "flows.0.count": 2}))


def test_interval_goodput_counts_whole_packets_between_boundaries() -> None:
    flow = {"id": 0, "transport": "tcp", "ns2_packet_bytes": 1500, "payload_bytes": 1460}
    # The sink counts the 40-byte setup segment too: whole packets are counter // 1500.
    st = {"s0": 0, "s1": 40 + 1500 * 10, "s2": 40 + 1500 * 10, "s3": 40 + 1500 * 25, "from": 0}
    assert tr.interval_goodput(st, flow, 2.0) == [10 * 1460 * 8 / 2.0, 0.0, 15 * 1460 * 8 / 2.0]
    udp = {"id": 1, "transport": "udp", "ns2_packet_bytes": 528, "payload_bytes": 500}
    assert tr.interval_goodput({"s0": 3, "s1": 7}, udp, 1.0) == [4 * 500 * 8.0]
    assert tr.interval_goodput({"to": 5}, udp, 1.0) == []


def test_series_travel_through_the_stored_data_as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import pandas as pd

    from hoptcp.ns2 import stored
    from hoptcp.ns2.run import ns2_metrics

    m = ns2_metrics({"aggregate_goodput_bps": 1.0, "series": {"interval_s": 1.0, "flows": {"0": [1.0, 2.5]}},
                     "ns2": {}})
    assert json.loads(m["series.0"]) == [1.0, 2.5] and m["ns2.routes_ok"] is True
    monkeypatch.setattr(stored, "data_dir", lambda: tmp_path)
    pd.DataFrame([{"seed": 1, "series.0": m["series.0"], "ns2.routes_ok": True}]).to_csv(tmp_path / "x@s.csv",
                                                                                          index=False)
    (tmp_path / "x@s.json").write_text(json.dumps({"entry": "x", "side": "s", "set": {}, "params": []}))
    df = stored.load_side("x", "s")
    assert df is not None and df["series.0"].iloc[0] == [1.0, 2.5]
