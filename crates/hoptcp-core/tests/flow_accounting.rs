//! Flow statistics: packet conservation, the goodput time series, warm-up,
//! replicated flows and the goodput of flows with a stop time.

mod common;
use common::*;
use serde_json::json;

fn single_hop(extra_flow_keys: &str, stats: &str, duration_s: f64) -> String {
    format!(
        "duration_s = {duration_s}\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 1\nspacing_m = 200\n{stats}\n\
         [[flows]]\nsrc = 0\ndst = 1\ntransport = \"udp\"\nrate_bps = 3000000\npacket_bytes = 1460\n{extra_flow_keys}"
    )
}

#[test]
fn udp_packets_are_conserved() {
    // Overloaded 7-hop chain: every packet sent is delivered, dropped, or
    // still inside the network (a queue or a MAC) when the run ends.
    let r = run_seed(
        &example("chain7-udp.toml"),
        &[("duration_s", "30".into()), ("flows.0.rate_bps", "1000000".into()), ("flows.0.jitter", "0.5".into())],
        1,
    );
    let f = &r.flows[0];
    let udp_drops: u64 = r.drops["by_kind"]["udp"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(udp_drops, drops(&r, "total"));
    let in_flight = f.packets_sent as i64 - f.packets_delivered as i64 - udp_drops as i64;
    println!("sent {} delivered {} dropped {udp_drops} in flight {in_flight}", f.packets_sent, f.packets_delivered);
    // 8 nodes × (49 queued + 1 in the MAC).
    assert!((0..=8 * 50).contains(&in_flight), "{in_flight} packets unaccounted for");
    assert_eq!(f.bytes_delivered, f.packets_delivered * 1460);
    assert!(f.packets_delivered > 0 && udp_drops > 0);
}

#[test]
fn series_warmup_and_totals_agree() {
    let r = run(&single_hop("", "[stats]\nwarmup_s = 4\nthroughput_interval_s = 2", 20.0), &[]);
    let f = &r.flows[0];
    let s = r.series.as_ref().expect("series requested");
    assert_eq!(s.interval_s, 2.0);
    let v = &s.flows["0"];
    assert_eq!(v.len(), 10);
    // The series covers every delivery; goodput only those after warm-up.
    let all: f64 = v.iter().sum::<f64>() * 2.0 / 8.0;
    assert_eq!(all.round() as u64, f.bytes_delivered);
    let after_warmup: f64 = v[2..].iter().sum::<f64>() * 2.0;
    assert!(rel(f.goodput_bps, after_warmup / 16.0).abs() < 1e-9, "{} vs {}", f.goodput_bps, after_warmup / 16.0);
    // Steady state: every 2 s bucket carries the saturated single-hop rate.
    let m = model("single_hop", json!({}), "goodput_bps");
    for (i, g) in v.iter().enumerate() {
        assert!(rel(*g, m).abs() < 0.02, "bucket {i}: {g} vs {m}");
    }
}

#[test]
fn replicated_flows_share_the_link() {
    // `count = 3`: three flows with the same endpoints; with ns-2's random
    // CBR gaps they share the saturated link evenly.
    let r = run(
        &single_hop("count = 3\njitter = 0.5\nrate_bps = 2000000", "", 30.0).replace("rate_bps = 3000000\n", ""),
        &[],
    );
    assert_eq!(r.flows.len(), 3);
    for (i, f) in r.flows.iter().enumerate() {
        assert_eq!((f.id, f.src, f.dst), (i as u32, 0, 1));
    }
    let m = model("single_hop", json!({}), "goodput_bps");
    println!(
        "replicas: {:?}, Jain {:?}",
        r.flows.iter().map(|f| f.goodput_bps.round()).collect::<Vec<_>>(),
        r.fairness_jain
    );
    assert!(r.fairness_jain.unwrap() > 0.99);
    assert!(rel(r.aggregate_goodput_bps, m).abs() < 0.005, "{} vs {m}", r.aggregate_goodput_bps);
}

#[test]
fn goodput_of_a_stopped_flow_stays_within_capacity() {
    // A saturated flow active from 5 s to 15 s of a 20 s run. Its 49-packet
    // queue keeps draining after 15 s; those deliveries must not be credited
    // to the 10 s active period (or the period must extend to them).
    let r = run(&single_hop("start_s = 5\nstop_s = 15", "[stats]\nthroughput_interval_s = 1", 20.0), &[]);
    let f = &r.flows[0];
    let m = model("single_hop", json!({}), "goodput_bps");
    let after_stop: f64 = r.series.as_ref().unwrap().flows["0"][15..].iter().sum();
    println!("goodput {:.0} b/s, capacity {m:.0} b/s, delivered after stop: {after_stop:.0} bit", f.goodput_bps);
    assert!(after_stop > 0.0, "the scenario no longer drains a backlog after stop_s");
    assert!(f.goodput_bps < m * 1.003, "goodput {} above the link capacity {m}", f.goodput_bps);
}
