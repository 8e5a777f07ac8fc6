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


def _pairs_of_nodes(separation: int) -> dict:
    """Two one-hop CBR flows, senders ``separation`` m apart, receivers 200 m outward."""
    resolved = Scenario.load(BENCH / "chain7-udp.toml").with_(duration_s=3).resolved()
    cbr = {"start_s": 0.0, "transport": "udp", "app": "cbr", "rate_bps": 2e6, "packet_bytes": 1460, "jitter": 0.0}
    plan = {"positions": [[0.0, 0.0], [-200.0, 0.0], [float(separation), 0.0], [separation + 200.0, 0.0]],
            "flows": [{**cbr, "src": 0, "dst": 1, "path": [0, 1]}, {**cbr, "src": 2, "dst": 3, "path": [2, 3]}]}
    proc = subprocess.run([str(ns3.build()), *ns3.scenario_args(resolved, plan)], capture_output=True, text=True,
                          check=True)
    return ns3.parse_output(proc.stdout)


@needs_ns3
@pytest.mark.core
def test_senders_inside_the_carrier_sense_range_share_the_medium_and_beyond_it_do_not():
    """ns-2's CSThresh: senders 400 m apart (inside 550 m, beyond the 250 m reception range)
    defer to each other; 700 m apart both send as if alone (their receivers are 600 m and
    900 m from the other sender: no frame is lost to interference either way)."""
    alone = _run(200.0, "udp")["goodput_bps"]
    near, far = _pairs_of_nodes(400)["goodput_bps"], _pairs_of_nodes(700)["goodput_bps"]
    assert far > 1.9 * alone
    assert near < 0.8 * far


def test_an_empty_list_is_left_out_of_the_arguments():
    """ns-3's command line refuses `--routes=`: a scenario without routes passes none."""
    resolved = Scenario.load(BENCH / "chain7-udp.toml").resolved()
    args = ns3.scenario_args(resolved, {"positions": [[0.0, 0.0], [200.0, 0.0]], "flows": []})
    assert [a.split("=")[0] for a in args[:2]] == ["--positions", "--txPowerW"]


def test_a_failed_build_ends_bench_peers_before_anything_is_timed(monkeypatch, tmp_path, capsys):
    from hoptcp.cli import main

    monkeypatch.setenv("HOPTCP_NS", str(tmp_path / "no-ns"))  # ns-2.35 skipped
    monkeypatch.setenv(ns3.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(ns3, "version", lambda: "3.99")
    monkeypatch.setattr(ns3, "compiler", lambda: "/bin/false")
    code = main(["bench", "--peers", "--only", "chain7-tcp", "--sweep-jobs", ""])
    out, err = capsys.readouterr()
    assert code == 1 and "timing" not in out and "hoptcp bench" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: building the ns-3 program failed (/bin/false ")
    assert lines[0].endswith(": exit status 1")
    assert not any((tmp_path / "cache").iterdir())  # no half-built program left behind


@needs_ns3
def test_a_new_build_replaces_builds_of_older_sources(monkeypatch, tmp_path):
    monkeypatch.setenv(ns3.CACHE_ENV, str(tmp_path))
    stale = tmp_path / "static-ns3.37-0000000000000000"
    stale.write_text("an older build")
    other = tmp_path / "notes.txt"
    other.write_text("not a build")
    built = ns3.build()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([built.name, "notes.txt"])
    assert ns3.build() == built  # the second call finds it


# --- BBR against ns-3.37's TcpBbr on a wired path (hoptcp.peers.ns3.bbr_check) -----------

VALIDATION_NS3 = ROOT / "validation" / "ns3"


def _wired_args(sc: Scenario) -> dict[str, str]:
    from hoptcp.peers.ns3 import bbr_check

    plan = json.loads(_bridge.plan_json(sc.toml, sc.overrides))
    return dict(a.removeprefix("--").split("=", 1) for a in bbr_check.wired_args(sc.resolved(), plan))


@pytest.mark.core
def test_the_wired_program_gets_every_link_and_the_bbr_flow():
    a = _wired_args(Scenario.load(VALIDATION_NS3 / "bbr-wired.toml"))
    assert a["nodes"] == "6"  # wireless 0, 1 (the gateway); wired 2..5
    assert a["links"].split(";") == ["1,2,100000000.0,0.001,50", "2,3,100000000.0,0.001,50",
                                     "3,4,10000000.0,0.02,1000", "4,5,100000000.0,0.001,50"]
    assert a["flows"] == "tcp,2,5,1.0"
    assert (a["variant"], a["payload"], a["initialWindow"], a["maxWindow"]) == ("bbr", "1460", "10", "10000")
    cross = _wired_args(Scenario.load(VALIDATION_NS3 / "bbr-wired-cross.toml"))
    assert cross["flows"] == "tcp,2,5,1.0;udp,3,5,5.0,3000000.0,1000,0.5"


@pytest.mark.core
def test_a_flow_through_the_wireless_part_is_refused_in_one_line():
    from hoptcp.peers.ns3 import bbr_check

    sc = Scenario.load(VALIDATION_NS3 / "bbr-wired.toml").with_(flows__0__src=0)
    plan = json.loads(_bridge.plan_json(sc.toml, sc.overrides))
    with pytest.raises(ns3.PeerError) as e:
        bbr_check.wired_args(sc.resolved(), plan)
    assert str(e.value) == ("the ns-3 wired program cannot run this scenario: flows[0].src = 0; "
                            "it runs flows between wired nodes (behind the gateway)")


@pytest.mark.core
def test_bbr_phases_out_of_range_is_one_line_and_absent_phases_stay_out_of_the_canonical_form():
    from hoptcp.errors import ScenarioError

    sc = Scenario.load(VALIDATION_NS3 / "bbr-wired.toml")
    with pytest.raises(ScenarioError) as e:
        sc.with_(tcp__bbr_phases=[0, 8]).resolved()
    assert "tcp.bbr_phases[1]" in str(e.value) and "8" in str(e.value) and "0..=7" in str(e.value)
    assert sc.resolved()["tcp"]["bbr_phases"] == [0, 6, 5]
    assert "bbr_phases" not in Scenario.load(VALIDATION_NS3 / "bbr-wired-cross.toml").resolved()["tcp"]


@needs_ns3
def test_bbr_follows_ns3_point_by_point_on_the_deterministic_path():
    # The first 4 s of the committed check: Startup, Drain and ProbeBW's first cycles.
    from hoptcp.peers.ns3 import bbr_check

    sc = Scenario.load(VALIDATION_NS3 / "bbr-wired.toml").with_(duration_s=4)
    flow, series = bbr_check.run_hoptcp(sc)
    res, rows = bbr_check.run_ns3(sc)
    dev = bbr_check.compare_trajectories(series, rows)
    assert len(rows) > 2000  # ~800 ACKs per second from 1.05 s
    assert dev["state"]["acks_differing"] == 0
    assert dev["btl_bw_pps"]["rel"] < 1e-3
    assert dev["rt_prop_s"]["rel"] < 1e-3
    assert dev["pacing_rate_pps_same_gain"]["rel"] < 1e-3
    assert abs(flow["goodput_bps"] - res["flows_bps"][0]) < 1e-3 * res["flows_bps"][0]


# --- BBR against NewReno on the wireless stack (hoptcp.peers.ns3.bbr_wireless) ------------

@pytest.mark.core
def test_the_scenario_programs_variant_follows_tcp_variant_and_others_are_refused_in_one_line():
    def args(sc: Scenario) -> list[str]:
        return ns3.scenario_args(sc.resolved(), json.loads(_bridge.plan_json(sc.toml, sc.overrides)))

    sc = Scenario.load(VALIDATION_NS3 / "bbr-chain7.toml")
    assert "--variant=newreno" in args(sc)
    assert "--variant=bbr" in args(sc.with_(tcp__variant="bbr"))
    with pytest.raises(ns3.PeerError) as e:
        args(sc.with_(tcp__variant="vegas"))
    assert str(e.value) == ("the ns-3 peer program cannot run this scenario: flows[0].tcp.variant = 'vegas'; "
                            "it runs newreno or bbr")


@needs_ns3
@pytest.mark.core
def test_the_scenario_program_runs_a_two_hop_bbr_flow_and_reports_its_estimates():
    from hoptcp.peers.ns3 import bbr_wireless

    sc = Scenario.load(VALIDATION_NS3 / "bbr-chain7.toml").with_(topology__hops=2, flows__0__dst=2, duration_s=5)
    proc = subprocess.run(bbr_wireless.ns3_command(sc.with_(tcp__variant="bbr")), capture_output=True, text=True,
                          check=True)
    out = ns3.parse_output(proc.stdout)
    assert out["variant"] == "bbr" and len(out["tcp"]) == 1
    flow = out["tcp"][0]
    assert flow["goodput_bps"] > 300_000  # 2 hops carry more than half the 7-hop chain's 290 kb/s
    # RTprop is the smallest RTT seen, below the smoothed RTT; within 10 s it is the SYN's:
    # 4 exchanges RTS, CTS, 40-byte segment, ACK (1 Mb/s, 2 Mb/s for the data) of at least
    # 1.5 ms each without backoff
    assert 0.006 < flow["rt_prop_mean_s"] < flow["srtt_mean_s"] / 5
    startup, drain, probe_bw, probe_rtt = flow["bbr_state_s"]
    assert startup > 0 and probe_bw > 3 and probe_rtt == 0  # no ProbeRTT within 10 s
    assert 4.9 < sum(flow["bbr_state_s"]) < 5  # from the first ACK to the end
    newreno = ns3.parse_output(subprocess.run(bbr_wireless.ns3_command(sc), capture_output=True, text=True,
                                              check=True).stdout)
    assert newreno["variant"] == "newreno" and "rt_prop_mean_s" not in newreno["tcp"][0]
    assert newreno["flows_bps"] != out["flows_bps"]


def test_ratios_are_bbr_over_newreno_per_seed_and_undefined_where_newreno_has_none():
    from hoptcp.peers.ns3 import bbr_wireless

    newreno = {"goodput_bps": 200.0, "srtt_mean_s": 0.5, "rt_prop_mean_s": float("nan"), "jain": 0.8,
               "max_share": 0.0}
    bbr = {"goodput_bps": 150.0, "srtt_mean_s": 0.25, "rt_prop_mean_s": 0.1, "jain": 1.0, "max_share": 0.5}
    r = bbr_wireless.ratios(bbr, newreno)
    assert r["goodput"] == 0.75 and r["srtt"] == 0.5 and r["rt_prop_over_newreno_srtt"] == 0.2
    assert r["jain"] == 1.25
    assert r["max_share"] != r["max_share"]  # NaN: nothing to divide by


def test_counts_are_pooled_over_seeds_before_the_ratio():
    from hoptcp.peers.ns3 import bbr_wireless

    # NewReno retransmits nothing in seed 1: its ratio alone is undefined, the pooled one is not
    runs = {"newreno": {1: {"retransmissions": 0.0}, 2: {"retransmissions": 4.0}},
            "bbr": {1: {"retransmissions": 6.0}, 2: {"retransmissions": 2.0}}}
    assert bbr_wireless.pooled_ratio(runs, "retransmissions", [1, 2]) == 2.0
    assert bbr_wireless.pooled_ratio(runs, "retransmissions", [2, 2]) == 0.5
    ci = bbr_wireless.pooled_interval95(lambda seeds: bbr_wireless.pooled_ratio(runs, "retransmissions", seeds),
                                        [1, 2])
    assert ci["mean"] == 2.0 and ci["low95"] == 0.5  # a resample of seed 1 alone has no ratio
    assert ci["high95"] == 2.0


def test_the_interval_is_the_t_interval_of_the_mean_over_seeds():
    from hoptcp.peers.ns3 import bbr_wireless

    ci = bbr_wireless.interval95([1.0, 2.0, 3.0, float("nan")])
    # mean 2, standard error 1/sqrt(3), t(0.975, 2 df) = 4.303
    assert ci["n"] == 3 and ci["mean"] == 2.0
    assert ci["high95"] - 2.0 == pytest.approx(4.3027 / 3 ** 0.5, rel=1e-4)
    assert ci["low95"] == pytest.approx(4.0 - ci["high95"])


def test_the_smoothed_rtt_is_time_averaged_from_the_first_sample():
    from hoptcp.peers.ns3 import bbr_wireless

    # samples 1.0 at t = 0 and 9.0 at t = 1: srtt 1.0 for 1 s, then 1 + 8/8 = 2.0 until t = 3
    assert bbr_wireless._srtt_mean([0.0, 1.0], [1.0, 9.0], 3.0) == pytest.approx((1.0 + 2 * 2.0) / 3)
    assert bbr_wireless._share([300.0, 100.0]) == (400.0 ** 2 / (2 * (300.0 ** 2 + 100.0 ** 2)), 0.75)
