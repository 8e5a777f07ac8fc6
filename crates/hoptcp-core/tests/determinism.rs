//! A run is a deterministic function of the scenario and the seed: the JSON
//! report is identical apart from `wall_time_s`; another seed changes it; the
//! seed may come from the file, an override or `RunOptions` alike.

mod common;
use common::*;
use hoptcp_core::{load_scenario, run_scenario, RunOptions, RunReport};
use serde_json::Value;

/// The report as JSON without the one non-deterministic field.
fn json(r: &RunReport) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    let obj = v.as_object_mut().unwrap();
    assert!(obj.remove("wall_time_s").is_some(), "report lost wall_time_s");
    v
}

fn ov(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn go(text: &str, overrides: &[(&str, &str)], seed: Option<u64>) -> RunReport {
    run_scenario(text, &ov(overrides), &RunOptions { seed, pcap: None, pcap_node: None }).unwrap()
}

/// A 5×5 grid with two crossing CBR flows with jitter (random CBR gaps,
/// backoffs, collisions) and a goodput series.
fn grid() -> String {
    let mut s = "duration_s = 20\nseed = 1\n[topology]\nkind = \"grid\"\nrows = 5\ncols = 5\nspacing_m = 200\n\
                 [stats]\nthroughput_interval_s = 1\n"
        .to_string();
    for (a, b) in [(10, 14), (2, 22)] {
        s += &format!("[[flows]]\nsrc = {a}\ndst = {b}\ntransport = \"udp\"\nrate_bps = 400000\njitter = 0.5\n");
    }
    s
}

fn tcp_chain() -> String {
    example("chain7.toml")
}

#[test]
fn same_seed_same_report_udp() {
    let a = go(&grid(), &[], None);
    let b = go(&grid(), &[], None);
    assert!(a.events > 100_000, "too small a run to mean anything: {} events", a.events);
    assert!(drops(&a, "total") > 0 && a.nodes.iter().any(|n| n.mac.cts_timeouts > 0), "no randomness exercised");
    assert!(a.series.is_some());
    assert_eq!(json(&a), json(&b));
}

#[test]
fn same_seed_same_report_tcp() {
    let o = [("duration_s", "30")];
    let a = go(&tcp_chain(), &o, None);
    let b = go(&tcp_chain(), &o, None);
    let t = a.flows[0].tcp.as_ref().unwrap();
    assert!(t.retransmissions > 0, "no loss recovery exercised: {t:?}");
    assert_eq!(json(&a), json(&b));
}

#[test]
fn another_seed_changes_the_results() {
    for (text, o) in [(grid(), vec![]), (tcp_chain(), vec![("duration_s", "30")])] {
        let a = go(&text, &o, Some(1));
        let b = go(&text, &o, Some(2));
        assert_eq!((a.seed, b.seed), (1, 2));
        assert_ne!(a.events, b.events, "event count unchanged by the seed");
        let (mut ja, mut jb) = (json(&a), json(&b));
        // Beyond the seed field itself, the measurements differ.
        ja.as_object_mut().unwrap().remove("seed");
        jb.as_object_mut().unwrap().remove("seed");
        assert_ne!(ja["nodes"], jb["nodes"]);
        assert_ne!(ja["flows"], jb["flows"]);
    }
}

#[test]
fn seed_from_file_override_or_options_is_the_same_run() {
    let file7 = grid().replace("seed = 1\n", "seed = 7\n");
    assert_ne!(file7, grid());
    let from_file = go(&file7, &[], None);
    let from_override = go(&grid(), &[("seed", "7")], None);
    let from_options = go(&grid(), &[], Some(7));
    // RunOptions.seed wins over the file's seed.
    let options_over_file = go(&file7.replace("seed = 7\n", "seed = 3\n"), &[], Some(7));
    assert_eq!(from_file.seed, 7);
    assert_eq!(json(&from_file), json(&from_override));
    assert_eq!(json(&from_file), json(&from_options));
    assert_eq!(json(&from_file), json(&options_over_file));
    // The resolved scenarios are the same too (the seed is part of it) ...
    let c7 = canonical(&file7, &[]);
    assert_eq!(c7, canonical(&grid(), &ov(&[("seed", "7")])));
    // ... and differ from seed 1's.
    assert_ne!(c7, canonical(&grid(), &[]));
}

/// The canonical JSON of the loaded scenario.
fn canonical(text: &str, overrides: &[(String, String)]) -> String {
    load_scenario(text, overrides).unwrap().canonical_json()
}

#[test]
fn canonical_form_fills_defaults() {
    // Writing a default explicitly does not change what runs.
    let explicit = grid().replace("[stats]\n", "[mac]\nqueue_limit = 50\nshort_retry_limit = 7\n[stats]\n");
    let a = canonical(&grid(), &[]);
    assert_eq!(a, canonical(&explicit, &[]));
    assert_ne!(a, canonical(&grid(), &ov(&[("mac.queue_limit", "49")])));
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["mac"]["cw_min"], 31);
    assert_eq!(v["radio"]["data_rate_mbps"], 2.0);
}

#[test]
fn random_topology_depends_on_its_own_seed() {
    let text = |ts: &str| {
        format!(
            "duration_s = 2\nseed = 1\n[topology]\nkind = \"random\"\nnodes = 30\nwidth_m = 800\nheight_m = 800\nrequire_connected = false\n{ts}\
             [random_flows]\ncount = 3\ntransport = \"udp\"\nrate_bps = 100000\n"
        )
    };
    let pos = |r: &RunReport| r.nodes.iter().map(|n| (n.x, n.y)).collect::<Vec<_>>();
    let a = go(&text("topology_seed = 5\n"), &[], Some(1));
    let b = go(&text("topology_seed = 5\n"), &[], Some(2));
    let c = go(&text("topology_seed = 6\n"), &[], Some(1));
    // Placement follows topology_seed, not the run seed.
    assert_eq!(pos(&a), pos(&b));
    assert_ne!(pos(&a), pos(&c));
    // Without topology_seed the run seed places the nodes.
    let d1 = go(&text(""), &[], Some(1));
    let d2 = go(&text(""), &[], Some(2));
    assert_ne!(pos(&d1), pos(&d2));
    assert_eq!(json(&d1), json(&go(&text(""), &[], Some(1))));
}
