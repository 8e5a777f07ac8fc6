"""``hoptcp bench``: how its tables are put together (no timing is asserted: speed
claims live in the benchmark's output and docs/performance.md)."""

from __future__ import annotations

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
    t = bench.Timing("chain7-tcp", "7-hop chain, TCP", 8, 1, 300.0, 2_000_000, 0.2, 0.25, 24.0, 0.3)
    start = bench.StartUp("hoptcp run --help", 20, 0.041, 0.047)
    md = bench.markdown([t], [], 22.0, "0.1.0", start, [_peer([1.0, 2.0, 3.0], [30.0, 4.0, 9.0])])
    row = next(line for line in md.splitlines() if line.startswith("| 7-hop chain, TCP |"))
    assert "| 2,870,230 | 2,000,000 |" in row  # before the timer slots, now
    assert "| `hoptcp run --help` | 20 | 41 | 47 |" in md
    peer_row = next(line for line in md.splitlines() if line.startswith("| 7-hop chain | ns-2.35 |"))
    assert "| 3 | 2.000 | 9.000 | 3.0× | 224.0 | 180.0 |" in peer_row


def test_a_peer_run_that_is_not_the_same_work_shows_no_goodput_and_says_why():
    t = bench.Timing("grid13-udp", "13x13 grid", 169, 12, 300.0, 26_000_000, 5.0, 5.1, 24.0, 5.0)
    p = bench.PeerTiming("grid13-udp", "13x13 grid", "ns-2.35", [6.0], [4.0], 468_000.0, float("nan"),
                         "DSDV had not settled before the flows")
    md = bench.markdown([t], [], 22.0, "0.1.0", None, [p])
    assert "| 13x13 grid | ns-2.35 | 1 | 6.000 | 4.000 | 0.7× | 468.0 | n/a (not the same work) |" in md
    assert "13x13 grid: the ns-2.35 run is not the same work: DSDV had not settled before the flows." in md


def test_peers_without_ns2_is_one_line_before_anything_is_timed(monkeypatch, capsys):
    monkeypatch.setenv("HOPTCP_NS", "/nonexistent/ns")
    code = main(["bench", "--peers", "--only", "chain7-tcp"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [
        "hoptcp: error: --peers needs ns-2.35: no `ns` on PATH (Debian/Ubuntu: apt-get install ns2)"]


def test_peer_scenarios_are_bench_scenarios_the_exporter_can_write():
    names = {f.removesuffix(".toml") for f, _, _ in bench.SCENARIOS}
    assert set(bench.PEER_SCENARIOS) <= names
    assert [n for n, _ in bench.peer_scenarios(["chain7-tcp", "random1000-tcp"])] == ["chain7-tcp"]
