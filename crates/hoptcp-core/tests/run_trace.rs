//! The run trace (`stats.series` kinds cwnd .. mac, and the air trace):
//! it records what happened, on every change, and asking for it changes
//! nothing else in the run.

mod common;
use common::*;
use hoptcp_core::RunReport;
use hoptcp_core::SeriesTable;

const ALL: &str = r#"["cwnd","ssthresh","rtt","rto","goodput","queue","mac","air"]"#;

/// One TCP flow over one hop (2 nodes 200 m apart), `duration_s` long.
fn single_hop_tcp(series: Option<&str>, duration_s: f64, max_window: u32) -> RunReport {
    let toml = example("single-hop.toml").replace(
        "transport = \"udp\"\napp = \"cbr\"\nrate_bps = 3000000\npacket_bytes = 1460",
        "transport = \"tcp\"\napp = \"ftp\"",
    );
    let mut ov = vec![("duration_s", duration_s.to_string()), ("tcp.max_window", max_window.to_string())];
    if let Some(s) = series {
        ov.push(("stats.series", s.to_string()));
    }
    run(&toml, &ov)
}

fn table<'a>(r: &'a RunReport, kind: &str) -> &'a SeriesTable {
    r.time_series.as_ref().and_then(|m| m.get(kind)).unwrap_or_else(|| panic!("series {kind} missing"))
}

/// The points of metric `metric` of flow/node `id`: (time s, value).
fn points(t: &SeriesTable, id: u32, metric: &str) -> Vec<(f64, f64)> {
    let m = t.metrics.iter().position(|x| *x == metric).expect("metric") as u8;
    (0..t.time_s.len()).filter(|&i| t.flow[i] == id && t.metric[i] == m).map(|i| (t.time_s[i], t.value[i])).collect()
}

/// Time average of a step function from its first point to `end`, values capped at `cap`.
fn time_average(p: &[(f64, f64)], end: f64, cap: f64) -> f64 {
    let mut area = 0.0;
    for (k, &(t, v)) in p.iter().enumerate() {
        let next = p.get(k + 1).map_or(end, |q| q.0);
        area += v.min(cap) * (next - t);
    }
    area / (end - p[0].0)
}

#[test]
fn single_hop_slow_start_steps_by_one_per_ack_and_averages_to_the_report() {
    // A window of 8 over one hop loses nothing: cwnd goes 1, 2, 3, ... one
    // step per new ACK, then stays above the window cap.
    let r = single_hop_tcp(Some(ALL), 5.0, 8);
    let f = &r.flows[0];
    let tcp = f.tcp.as_ref().unwrap();
    assert_eq!(tcp.retransmissions, 0);
    let cwnd = points(table(&r, "cwnd"), 0, "cwnd");
    assert_eq!(cwnd[0].1, 1.0, "starts from one segment");
    for w in cwnd.windows(2) {
        assert!(w[1].0 >= w[0].0);
        // Slow start adds 1; congestion avoidance (past ssthresh) 1/cwnd.
        let step = w[1].1 - w[0].1;
        assert!(step == 1.0 || (step - 1.0 / w[0].1).abs() < 1e-12, "step {step} from {}", w[0].1);
    }
    // Every step is at an ACK's arrival at the sender (node 0).
    let air = r.air.as_ref().expect("air trace");
    let ack_arrivals: Vec<u64> = (0..air.packet_events.t_ns.len())
        .filter(|&i| {
            let p = air.packet_events.packet[i] as usize;
            air.packet_events.event[i] == 1 && air.packet_events.node[i] == 0 && air.packets.kind[p] == 2
        })
        .map(|i| air.packet_events.t_ns[i])
        .collect();
    for &(t, _) in &cwnd[1..] {
        let ns = (t * 1e9).round() as u64;
        assert!(ack_arrivals.iter().any(|&a| a.abs_diff(ns) <= 1), "cwnd step at {t} s is no ACK arrival");
    }
    assert_eq!(cwnd.last().unwrap().1, tcp.final_cwnd);
    let avg = time_average(&cwnd, r.duration_s, 8.0);
    assert!((avg - tcp.avg_cwnd).abs() < 1e-9 * tcp.avg_cwnd, "series {avg} vs report {}", tcp.avg_cwnd);
    // RTT: one point per sample, their mean the reported one.
    let rtt = points(table(&r, "rtt"), 0, "rtt_s");
    assert_eq!(rtt.len() as u64, tcp.rtt_samples);
    let mean = rtt.iter().map(|p| p.1).sum::<f64>() / rtt.len() as f64;
    assert!((mean - tcp.avg_rtt_s).abs() < 1e-12);
    // Goodput: the cumulative bytes end at the delivered total.
    let g = points(table(&r, "goodput"), 0, "bytes_delivered");
    assert_eq!(g.last().unwrap().1 as u64, f.bytes_delivered);
    assert!(g.windows(2).all(|w| w[1].1 > w[0].1));
}

#[test]
fn air_trace_counts_match_the_mac_counters() {
    let r = single_hop_tcp(Some(ALL), 5.0, 8);
    let air = r.air.as_ref().unwrap();
    let count = |k: u8| air.frames.kind.iter().filter(|&&x| x == k).count() as u64;
    assert_eq!(count(0), node_sum(&r, |n| n.mac.rts_sent));
    assert_eq!(count(1), node_sum(&r, |n| n.mac.cts_sent));
    assert_eq!(count(2), node_sum(&r, |n| n.mac.data_sent));
    assert_eq!(count(3), node_sum(&r, |n| n.mac.ack_sent));
    // Two nodes, one exchange at a time: every frame reaches its addressee
    // (all but one still on the air when the run ends).
    let end_ns = (r.duration_s * 1e9) as u64;
    let done = (0..air.frames.kind.len())
        .filter(|&i| air.frames.start_ns[i] + air.frames.airtime_ns[i] + 667 <= end_ns)
        .count();
    assert_eq!(air.rx.frame.len(), done);
    // The two contend for the medium (data one way, TCP ACKs the other):
    // when both pick the same slot each is transmitting as the other's
    // frame arrives (half duplex); every such loss costs a timeout.
    assert!(air.rx.fate.iter().all(|&f| f == 0 || f == 4));
    let lost = air.rx.fate.iter().filter(|&&f| f == 4).count() as u64;
    let timeouts = node_sum(&r, |n| n.mac.cts_timeouts + n.mac.ack_timeouts);
    println!("{lost} frames lost, {timeouts} timeouts");
    assert!(lost > 0);
    assert_eq!(lost, timeouts);
    for (i, &fr) in air.rx.frame.iter().enumerate() {
        let fr = fr as usize;
        assert_eq!(air.frames.ra[fr], air.rx.node[i] as i64);
        // Decided when the frame's last bit arrives (200 m: 667 ns later).
        assert_eq!(air.rx.t_ns[i], air.frames.start_ns[fr] + air.frames.airtime_ns[fr] + 667);
    }
    // DATA frames carry the segments the agent sent; the MAC state series
    // ends with the retry count the report has.
    let data_rows: Vec<usize> = (0..air.frames.kind.len()).filter(|&i| air.frames.kind[i] == 2).collect();
    assert!(data_rows.iter().all(|&i| air.frames.packet[i] >= 0));
    let mac = table(&r, "mac");
    assert!(mac.value.iter().zip(&mac.metric).filter(|(_, &m)| m == 0).all(|(&v, _)| (0.0..5.0).contains(&v)));
    let states: std::collections::BTreeSet<u64> = points(mac, 0, "state").iter().map(|p| p.1 as u64).collect();
    assert!(states.contains(&3) && states.contains(&0), "node 0 states {states:?}");
    let q = points(table(&r, "queue"), 0, "queue");
    let qmax = q.iter().map(|p| p.1 as u32).max().unwrap();
    assert_eq!(qmax, r.nodes[0].queue_max);
}

#[test]
fn chain_drops_and_collisions_are_marked() {
    let r = run_seed(
        &example("chain7.toml"),
        &[("duration_s", "30".into()), ("stats.series", r#"["air","mac"]"#.into())],
        1,
    );
    let air = r.air.as_ref().unwrap();
    let retry_drops = drops(&r, "mac_rts_retry") + drops(&r, "mac_data_retry");
    assert!(retry_drops > 0, "the chain loses frames at its retry limits");
    let marked = air.frames.retry_drop.iter().filter(|&&d| d == 1).count() as u64;
    assert_eq!(marked, retry_drops);
    // The marked frame is the last attempt: an RTS or DATA sent by the dropping node.
    for i in (0..air.frames.kind.len()).filter(|&i| air.frames.retry_drop[i] == 1) {
        assert!(matches!(air.frames.kind[i], 0 | 2));
        assert!(air.frames.retry[i] == 1);
    }
    assert_eq!(air.drops.t_ns.len() as u64, drops(&r, "total"));
    let collided = air.rx.fate.iter().filter(|&&f| f == 1).count() as u64;
    assert!(collided > 0 && collided <= node_sum(&r, |n| n.mac.rx_collisions));
    // The per-node drop counter of the mac series ends at the node's drops.
    let mac = table(&r, "mac");
    for n in &r.nodes {
        let d = points(mac, n.id, "drops");
        let total: u64 = n.drops.values().sum();
        assert_eq!(d.last().map_or(0, |p| p.1 as u64), total, "node {}", n.id);
    }
}

#[test]
fn asking_for_series_changes_nothing_else() {
    let mut a = serde_json::to_value(single_hop_tcp(None, 3.0, 8)).unwrap();
    let mut b = serde_json::to_value(single_hop_tcp(Some(ALL), 3.0, 8)).unwrap();
    assert!(b.get("air").is_some() && b.get("time_series").is_some());
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().unwrap();
        for k in ["wall_time_s", "air", "time_series", "warnings"] {
            o.remove(k);
        }
    }
    assert_eq!(a, b);
    let c = serde_json::to_value(run_seed(
        &example("chain7.toml"),
        &[("duration_s", "20".into()), ("stats.series", ALL.into())],
        2,
    ))
    .unwrap();
    let d = serde_json::to_value(run_seed(&example("chain7.toml"), &[("duration_s", "20".into())], 2)).unwrap();
    for k in ["events", "flows", "nodes", "drops", "link_drops"] {
        assert_eq!(c[k], d[k], "{k}");
    }
}

#[test]
fn the_air_window_keeps_only_its_events() {
    let toml = example("chain7.toml");
    let r = run(
        &toml,
        &[
            ("duration_s", "10".into()),
            ("stats.series", r#"["air"]"#.into()),
            ("stats.air_window_s", "[4.0, 5.5]".into()),
        ],
    );
    let air = r.air.as_ref().unwrap();
    assert!(!air.frames.start_ns.is_empty());
    assert!(air.frames.start_ns.iter().all(|&t| (4_000_000_000..=5_500_000_000).contains(&t)));
    assert!(air.packet_events.t_ns.iter().all(|&t| (4_000_000_000..=5_500_000_000).contains(&t)));
    assert!(air.rx.frame.iter().all(|&f| (f as usize) < air.frames.start_ns.len()));
    let ov: Vec<(String, String)> = vec![("stats.air_window_s".into(), "[5, 2]".into())];
    let e = hoptcp_core::run_scenario(&toml, &ov, &Default::default()).unwrap_err().to_string();
    assert!(e.contains("stats.air_window_s") && e.contains("to > from"), "{e}");
}

/// The first object anywhere in `v` that has the key `key`.
fn find_with<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    match v {
        serde_json::Value::Object(m) if m.contains_key(key) => Some(v),
        serde_json::Value::Object(m) => m.values().find_map(|x| find_with(x, key)),
        serde_json::Value::Array(a) => a.iter().find_map(|x| find_with(x, key)),
        _ => None,
    }
}

#[test]
fn name_tables_keep_their_strings_and_order() {
    // The tables are derived from the enums; readers (Python, pcap, the
    // viewer) index them by number, so neither a name nor a place may move.
    let r = single_hop_tcp(Some(r#"["air"]"#), 1.0, 8);
    let v = serde_json::to_value(&r).unwrap();
    let air = find_with(&v, "frame_kinds").expect("the air trace");
    let names = |k: &str| -> Vec<String> {
        air[k].as_array().unwrap_or_else(|| panic!("{k}")).iter().map(|s| s.as_str().unwrap().to_string()).collect()
    };
    assert_eq!(names("frame_kinds"), ["rts", "cts", "data", "ack"]);
    assert_eq!(names("fates"), ["received", "collided", "captured", "below_threshold", "half_duplex"]);
    assert_eq!(names("events"), ["agent_send", "agent_recv", "forward"]);
    assert_eq!(names("packet_kinds"), ["udp", "tcp_data", "tcp_ack", "aodv"]);
    let causes = [
        "queue_overflow",
        "mac_rts_retry",
        "mac_data_retry",
        "no_route",
        "ttl",
        "link_red",
        "link_failure_flush",
        "route_buffer_overflow",
        "route_buffer_timeout",
        "route_discovery_failed",
        "route_loop",
        "ldm",
    ];
    assert_eq!(names("drop_causes"), causes);
    assert_eq!(hoptcp_core::DROP_CAUSES, causes);
    assert_eq!(hoptcp_core::PACKET_KINDS, ["udp", "tcp_data", "tcp_ack", "aodv"]);
}
