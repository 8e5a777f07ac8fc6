"""``hoptcp bench``: how its tables are put together (no timing is asserted: speed
claims live in the benchmark's output and docs/performance.md)."""

from __future__ import annotations

import pytest

from hoptcp import bench
from hoptcp.cli import main


def _peer(hoptcp_s, peer_s):
    return bench.PeerTiming("chain7-tcp", "7-hop chain", "ns-2.35", hoptcp_s, peer_s, 224_000.0, 180_000.0)


def test_paired_ratio_is_the_median_of_the_pairs_not_the_ratio_of_medians():
    p = _peer([1.0, 2.0, 3.0], [30.0, 4.0, 9.0])
    assert p.ratios == [30.0, 2.0, 3.0]
    assert p.ratio == 3.0  # the medians alone would say 9 / 2 = 4.5
    assert (p.hoptcp_median_s, p.peer_median_s) == (2.0, 9.0)


def test_markdown_puts_old_event_counts_beside_new_and_goodput_beside_time():
    t = bench.Timing("chain7-tcp", "7-hop chain, TCP", 8, 1, 300.0, 2_000_000, 0.2, 0.25, 24.0, 0.3, 1_500_000)
    start = [bench.StartUp("hoptcp run --help", 20, 0.041, 0.047),
             bench.StartUp("hoptcp run x.toml --json", 20, 0.052, 0.061)]
    md = bench.markdown([t], [], 22.0, "0.1.0", start, [_peer([1.0, 2.0, 3.0], [30.0, 4.0, 9.0])])
    row = next(line for line in md.splitlines() if line.startswith("| 7-hop chain, TCP |"))
    assert "| 2,870,230 | 2,000,000 | 1,500,000 |" in row  # before the timer slots, now, through the queue
    assert "| `hoptcp run --help` | 20 | 41 | 47 |" in md
    assert "| `hoptcp run x.toml --json` | 20 | 52 | 61 |" in md
    peer_row = next(line for line in md.splitlines() if line.startswith("| 7-hop chain | ns-2.35 |"))
    assert "| 3 | 2.000 | 9.000 | 3.0× | 224.0 | 180.0 |" in peer_row


def test_a_peer_run_that_is_not_the_same_work_shows_no_goodput_and_says_why():
    t = bench.Timing("grid13-udp", "13x13 grid", 169, 12, 300.0, 26_000_000, 5.0, 5.1, 24.0, 5.0)
    p = bench.PeerTiming("grid13-udp", "13x13 grid", "ns-2.35", [6.0], [4.0], 468_000.0, float("nan"),
                         "DSDV had not settled before the flows")
    md = bench.markdown([t], [], 22.0, "0.1.0", None, [p])
    assert "| 13x13 grid | ns-2.35 | 1 | 6.000 | 4.000 | 0.7× | 468.0 | n/a (not the same work) |" in md
    assert "13x13 grid: the ns-2.35 run is not the same work: DSDV had not settled before the flows." in md


def test_peers_without_any_peer_is_one_line_before_anything_is_timed(monkeypatch, capsys):
    from hoptcp.peers import ns3

    monkeypatch.setenv("HOPTCP_NS", "/nonexistent/ns")
    monkeypatch.setattr(ns3, "version", lambda: None)
    code = main(["bench", "--peers", "--only", "chain7-tcp"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "hoptcp: error: --peers needs ns-2.35 or ns-3 and neither is installed "
        "(Debian/Ubuntu: apt-get install ns2 libns3-dev)"]


def test_a_peer_not_installed_is_one_skip_line(monkeypatch, tmp_path):
    from hoptcp.peers import ns3

    monkeypatch.setenv("HOPTCP_NS", str(tmp_path / "ns"))  # not there
    monkeypatch.setattr(ns3, "version", lambda: "3.37")
    assert bench.installed_peers() == (["ns-3"], ["ns-2.35 not installed: skipped"])
    monkeypatch.setattr(ns3, "version", lambda: None)
    assert bench.installed_peers() == ([], ["ns-2.35 not installed: skipped", "ns-3 not installed: skipped"])
    md = bench.markdown([], [], 22.0, "0.1.0", (), [], skipped=["ns-3 not installed: skipped"])
    assert md.rstrip().endswith("\nns-3 not installed: skipped.")


def test_ns3_runs_the_chains_always_and_the_grid_only_when_named():
    assert bench.ns3_runs("chain7-tcp", None) and bench.ns3_runs("chain7-udp", ["chain7-udp"])
    assert not bench.ns3_runs("grid13-udp", None)
    assert not bench.ns3_runs("grid13-udp", ["chain7-tcp"])
    assert bench.ns3_runs("grid13-udp", ["grid13-udp"])


def test_peer_scenarios_are_bench_scenarios_the_exporter_can_write():
    names = {f.removesuffix(".toml") for f, _, _ in bench.SCENARIOS}
    assert set(bench.PEER_SCENARIOS) | set(bench.PEER_WHEN_NAMED) <= names
    assert set(bench.NS3_SCENARIOS) | set(bench.NS3_WHEN_NAMED) <= names
    assert [n for n, _ in bench.peer_scenarios(["chain7-tcp", "random10000-tcp"])] == ["chain7-tcp"]


def test_the_1000_node_networks_run_in_the_peers_only_when_named():
    assert [n for n, _ in bench.peer_scenarios(None)] == ["chain7-udp", "chain7-tcp", "grid13-udp"]
    assert [n for n, _ in bench.peer_scenarios(["random1000-aodv-tcp", "random1000-tcp"])] == [
        "random1000-tcp", "random1000-aodv-tcp"]
    # ns-3's program has static routes only: never the AODV network
    assert bench.ns3_runs("random1000-tcp", ["random1000-tcp"]) and not bench.ns3_runs("random1000-tcp", None)
    assert not bench.ns3_runs("random1000-aodv-tcp", ["random1000-aodv-tcp"])


def test_a_shorter_peer_run_says_its_simulated_time():
    assert bench.with_duration("1,000 random nodes, 50 TCP flows over AODV, 60 s", 10.0) == (
        "1,000 random nodes, 50 TCP flows over AODV, 10 s")
    assert bench.with_duration("7-hop chain, 300 s", None) == "7-hop chain, 300 s"
    assert bench.with_duration("no time given", 2.5) == "no time given, 2.5 s"


def test_hoptcp_routing_packets_are_the_sent_and_forwarded_control_messages():
    rep = {"routing": {"protocol": "aodv", "rreq_sent": 3, "rreq_forwarded": 40, "rreq_received": 300,
                       "rrep_sent": 2, "rrep_forwarded": 9, "rrep_received": 11, "rerr_sent": 1,
                       "rerr_forwarded": 4, "rerr_received": 7, "route_breaks": 5}}
    assert bench.hoptcp_routing_sent(rep) == 3 + 40 + 2 + 9 + 1 + 4  # receptions and breaks are not packets sent
    assert bench.hoptcp_routing_sent({"flows": []}) == 0  # static routes: no routing packets


def test_a_whole_run_reports_the_childs_own_peak_memory_and_cpu(tmp_path):
    """The bench's interpreter holds more memory than a small child: the child's peak must not
    start at the parent's (as the kernel's own account of a forked child does)."""
    import sys

    ballast = bytearray(120 * 1024 * 1024)  # this process: at least 120 MB
    ballast[::4096] = b"x" * len(ballast[::4096])
    small = bench.run_whole([sys.executable, "-c", "print('ok')"])
    big = bench.run_whole([sys.executable, "-c", "x = bytearray(60 * 2**20); x[::4096] = b'y' * len(x[::4096]); "
                           "import time; t = time.process_time()\nwhile time.process_time() - t < 0.2: pass"])
    del ballast
    assert small.stdout == "ok\n"
    if __import__("os").access(bench.GNU_TIME, __import__("os").X_OK):
        assert small.rss_mb < 60  # an interpreter alone, not this process's 120 MB
        assert 60 < big.rss_mb < 110
    assert big.cpu_s >= 0.2 and big.wall_s >= big.cpu_s * 0.5


def test_a_failing_whole_run_raises_with_its_output():
    import subprocess
    import sys

    try:
        bench.run_whole([sys.executable, "-c", "import sys; print('out'); sys.exit('bad input')"])
    except subprocess.CalledProcessError as exc:
        assert exc.returncode == 1 and exc.output == "out\n" and "bad input" in exc.stderr
    else:
        raise AssertionError("no error")


def test_the_same_runs_table_puts_cpu_memory_and_routing_of_both_sides_together():
    p = bench.PeerTiming("random1000-aodv-tcp", "1,000 random nodes over AODV, 10 s", "ns-2.35", [2.0, 3.0], [60.0, 80.0],
                         1.5e6, 1.4e6, None, [40.0, 41.0], [240.0, 245.0], 80_000, 95_123, 21.0, [1.5, 2.0],
                         [45.0, 70.0], 30.5)
    assert p.cpu_ratio == 32.5  # pairs: 30 and 35
    md = bench.markdown([], [], 11.0, "0.1.0", (), [p])
    assert "| 1,000 random nodes over AODV, 10 s | ns-2.35 | 2 | 2.500 | 70.000 | 28.3× | 1500.0 | 1400.0 |" in md
    assert ("| 1,000 random nodes over AODV, 10 s | ns-2.35 | 1.750 | 57.500 | 32.5× | 41 | 245 | 80,000 | 95,123 | "
            "21 s | 30.50 |" in md)
    uncounted = bench.PeerTiming("grid13-udp", "grid", "ns-2.35", [1.0], [2.0], 1.0, 1.0, None, [12.0], [30.0], 0, None)
    assert "| grid | ns-2.35 | - | - | - | 12 | 30 | 0 | not counted | 0 s | - |" in bench.markdown([], [], 11.0, "0", (),
                                                                                               [uncounted])


def test_sweep_rows_name_their_executor_and_the_cost_of_an_empty_run():
    rows = [bench.SweepRate("local thread pool", 2, 120, 150.04, 0.00123),
            bench.SweepRate("Dask LocalCluster", 2, 120, 98.76, 0.0051)]
    md = bench.markdown([], rows, 11.0, "0.1.0")
    assert "| local thread pool | 2 | 120 | 150.0 | 1.23 |" in md
    assert "| Dask LocalCluster | 2 | 120 | 98.8 | 5.10 |" in md


def test_memory_per_node_of_the_memory_row_is_above_the_interpreter():
    m = bench.ScaleRow(nodes=100_000, flows=1_000, sim_s=2.0, events=5, wall_s=1.0, rss_mb=411.0, base_mb=11.0)
    assert m.kb_per_node == 4.096  # 400 MB over 100,000 nodes
    md = bench.markdown([], [], 11.0, "0.1.0", memory=m)
    assert "| 100,000 | 1,000 | 2 s | 5 | 411 | 11 | 4.10 |" in md


def test_bench_options_that_need_peers_or_dask_say_so(capsys):
    assert main(["bench", "--only", "chain7-tcp", "--peer-duration", "5"]) == 2
    assert capsys.readouterr().err.strip() == "hoptcp: error: --peer-duration: only with --peers"
    assert main(["bench", "--only", "chain7-tcp", "--dask-jobs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "hoptcp: error: --dask-jobs '0': worker counts must be >= 1"


def test_cost_per_event_and_memory_per_node_from_a_run():
    r = bench.ScaleRow(nodes=1_000, flows=50, sim_s=10.0, events=4_000_000, wall_s=0.5, rss_mb=16.0, base_mb=11.0)
    assert r.events_per_s == 8_000_000
    assert r.ns_per_event == 125.0
    assert r.kb_per_node == 5.12  # 5 MB above the interpreter, over 1,000 nodes
    big = bench.ScaleRow(nodes=10_000, flows=500, sim_s=10.0, events=1, wall_s=1.0, rss_mb=61.0, base_mb=11.0)
    md = bench.markdown([], [], 11.0, "0.1.0", scale=[r, big], repeats=5, load=(0.3, 5.2))
    assert "| 1,000 | 50 | 4,000,000 | 0.500 | 8.0 M | 125 | 16 | 5.12 |" in md
    assert "From 1,000 to 10,000 nodes the peak grows by 5.12 KB per added node." in md  # 45 MB over 9,000 nodes
    assert "best of 5 runs, one core per run. Load average (1 min) 0.3 at the start, 5.2 at the end" in md


def test_the_huge_run_is_extrapolated_from_its_loop_time_not_its_set_up():
    h = bench.HugeRun(sim_s=30.0, events=1_000_000, wall_s=20.0, total_s=21.5, rss_mb=90.0)
    assert h.extrapolated_s == 1.5 + 20.0 * 10  # built once, the loop ten times as long
    whole = bench.HugeRun(sim_s=300.0, events=1, wall_s=100.0, total_s=101.0, rss_mb=90.0)
    assert whole.extrapolated_s == 101.0
    md = bench.markdown([], [], 11.0, "0.1.0", huge=h)
    row = next(line for line in md.splitlines() if line.startswith("| 10,000 random nodes"))
    assert "30 s (300 s extrapolated: 202 s)" in row and row.endswith("✗ |")


def test_markdown_replaces_only_the_generated_tables_of_a_file(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\nprose before\n\n<!-- generated by: hoptcp bench --markdown; old -->\n"
                   "| old | table |\n<!-- end of the generated tables -->\n\nprose after\n")
    bench.write_markdown(doc, "| new | table |\n", "hoptcp bench --peers --markdown")
    assert doc.read_text() == ("# Performance\nprose before\n\n<!-- generated by: hoptcp bench --peers --markdown; "
                               "do not edit the tables by hand -->\n| new | table |\n"
                               "<!-- end of the generated tables -->\n\nprose after\n")
    new = tmp_path / "new.md"
    bench.write_markdown(new, "| t |\n", "hoptcp bench --markdown")
    assert new.read_text().splitlines()[1:] == ["| t |", "<!-- end of the generated tables -->"]


def test_a_markdown_file_whose_tables_have_no_end_is_refused_before_timing(tmp_path, capsys):
    doc = tmp_path / "performance.md"
    doc.write_text("<!-- generated by: hoptcp bench --markdown -->\n| table |\nprose\n")
    code = main(["bench", "--only", "chain7-tcp", "--markdown", str(doc)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip() == (f"hoptcp: error: --markdown {doc}: has a '<!-- generated by: hoptcp bench' line but no "
                           "'<!-- end of the generated tables -->' line after it; add it where the generated tables end")


def test_docs_performance_md_has_one_generated_block_the_bench_can_replace():
    from conftest import ROOT

    lines = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8").splitlines()
    begins = [i for i, line in enumerate(lines) if line.startswith(bench.BEGIN)]
    ends = [i for i, line in enumerate(lines) if line.startswith(bench.END)]
    assert len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]
    bench.check_markdown_target(ROOT / "docs" / "performance.md")  # raises if the bench would refuse it


@pytest.mark.core
def test_the_sweep_rows_run_on_the_local_pool_and_on_a_dask_local_cluster(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(bench, "EMPTY_RUNS", 8)
    rows = bench.sweep_throughput([1], runs=8, dask_jobs=[1], rounds=1)
    assert [(r.executor, r.workers, r.runs) for r in rows] == [("local thread pool", 1, 8), ("Dask LocalCluster", 1, 8)]
    assert all(r.runs_per_s > 0 and r.empty_run_s is not None and r.empty_run_s > 0 for r in rows)
