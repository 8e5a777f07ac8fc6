import math

import hoptcp
from hoptcp.results import RunResult, flatten_metrics

RAW = {
    "seed": 4, "duration_s": 10.0, "events": 1000, "wall_time_s": 0.5, "hoptcp_version": "x",
    "flows": [
        {"id": 0, "src": 0, "dst": 3, "transport": "tcp", "app": "ftp", "hops": 3, "packets_sent": 10,
         "packets_delivered": 9, "bytes_delivered": 9000, "goodput_bps": 7200.0, "avg_cwnd": 2.5,
         "cwnd_hist": [0.0, 1.0, 9.0], "avg_rtt_s": None, "retransmissions": 1, "timeouts": 0,
         "fast_retransmits": 1},
        {"id": 1, "src": 3, "dst": 0, "transport": "udp", "app": "cbr", "hops": 3, "packets_sent": 5,
         "packets_delivered": 5, "bytes_delivered": 5000, "goodput_bps": 4000.0},
    ],
    "nodes": [{"id": 0, "x": 0.0, "y": 0.0, "queue_max": 4, "brand_new_counter": 7}],
    "drops": {"queue_overflow": 3, "ttl": 0, "by_kind": {"tcp_data": {"queue_overflow": 2}, "udp": {"queue_overflow": 1}}},
    "fairness_jain": 0.95, "aggregate_goodput_bps": 11200.0,
    "future": {"nested": {"value": 1.5}, "label": "text is not a metric"},
    "series": {"interval_s": 1.0, "flows": {"0": [1.0, 2.0], "1": [3.0, 4.0]}},
}


def test_flatten_names():
    m = flatten_metrics(RAW)
    assert m["aggregate_goodput_bps"] == 11200.0 and m["fairness_jain"] == 0.95
    assert m["drops.queue_overflow"] == 3 and m["drops.by_kind.tcp_data.queue_overflow"] == 2
    assert m["flow.0.goodput_bps"] == 7200.0 and m["flow.0.avg_cwnd"] == 2.5 and m["flow.1.goodput_bps"] == 4000.0
    assert m["node.0.queue_max"] == 4 and m["node.0.brand_new_counter"] == 7  # unknown keys flow through
    assert m["future.nested.value"] == 1.5
    assert "flow.0.avg_rtt_s" in m and m["flow.0.avg_rtt_s"] is None
    assert "seed" not in m and "hoptcp_version" not in m and "future.label" not in m
    assert not any(k.startswith("series") or "cwnd_hist" in k for k in m)


def test_tables():
    r = RunResult(RAW)
    assert list(r.flows.index) == [0, 1] and r.flows.loc[0, "goodput_bps"] == 7200.0
    assert list(r.flows.columns[:3]) == ["src", "dst", "transport"]
    assert "cwnd_hist" not in r.flows.columns
    assert math.isnan(r.flows.loc[1, "avg_cwnd"])
    assert r.nodes.loc[0, "brand_new_counter"] == 7
    d = r.drops
    assert set(d.columns) == {"cause", "kind", "count"}
    assert d[(d.cause == "queue_overflow") & (d.kind == "all")]["count"].item() == 3
    assert d[(d.cause == "queue_overflow") & (d.kind == "udp")]["count"].item() == 1
    assert r.cwnd_hist["seconds"].sum() == 10.0
    assert len(r.series) == 4 and set(r.series.flow) == {0, 1}


def test_summary_and_repr():
    r = RunResult(RAW)
    s = r.summary
    assert s["flows"] == 2 and s["drops"] == 3 and s["events_per_s"] == 2000.0 and s["speedup"] == 20.0
    text = repr(r)
    assert "seed=4" in text and "flow 0: 0->3 tcp/ftp" in text and "avg cwnd 2.5" in text


def test_run_result_from_json_text(fake_core, scenario_file):
    r = hoptcp.run(scenario_file)
    assert RunResult(r.to_json()).raw == r.raw
    assert "phy.frames_captured" in r.metrics()
