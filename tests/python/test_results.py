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


def test_split_metric_reads_ids_back_in_one_place():
    from hoptcp.results import split_metric

    assert split_metric("flow.3.goodput_bps") == ("flow", 3, "goodput_bps")
    assert split_metric("node.12.drops.mac_rts_retry") == ("node", 12, "drops.mac_rts_retry")
    assert split_metric("drops.by_kind.tcp_data.ttl") == (None, None, "drops.by_kind.tcp_data.ttl")
    assert split_metric("flow.x.goodput_bps") == (None, None, "flow.x.goodput_bps")  # not an id
    assert split_metric("flows") == (None, None, "flows")


def test_long_format_of_a_run_and_of_a_frame():
    import pandas as pd

    from hoptcp.results import LONG_COLUMNS, id_table, long_frame, per_id

    long = RunResult(RAW).long
    assert tuple(long.columns) == LONG_COLUMNS
    row = long[(long["flow"] == 1) & (long["metric"] == "goodput_bps")]
    assert row["value"].tolist() == [4000.0] and row["node"].isna().all() and row["run"].tolist() == [0]
    assert long[(long["node"] == 0) & (long["metric"] == "brand_new_counter")]["value"].tolist() == [7.0]
    assert long[long["metric"] == "drops.by_kind.tcp_data.queue_overflow"]["value"].tolist() == [2.0]
    assert not ((long["metric"] == "avg_rtt_s") & (long["flow"] == 0)).any()  # None is no value
    # a sweep's frame: ids per run, missing values left out, columns in the frame's order
    df = pd.DataFrame({"seed": [1, 2], "node.10.queue_avg": [1.0, None], "node.2.queue_avg": [0.5, 0.25],
                       "node.2.queue_max": [3, 4], "aggregate_goodput_bps": [10.0, 20.0]})
    assert per_id(df, "node", "queue_avg") == {10: "node.10.queue_avg", 2: "node.2.queue_avg"}
    assert id_table(df, "node", "queue_avg").columns.tolist() == [10, 2]
    lf = long_frame(df, ["node.10.queue_avg", "node.2.queue_avg", "aggregate_goodput_bps"])
    assert lf[lf["node"] == 10][["run", "value"]].values.tolist() == [[0, 1.0]]
    assert lf[lf["node"] == 2]["value"].tolist() == [0.5, 0.25]
    assert lf[lf["metric"] == "aggregate_goodput_bps"]["flow"].isna().all()
    assert lf.pivot_table(index="run", columns="node", values="value", aggfunc="sum").loc[1, 2] == 0.25
