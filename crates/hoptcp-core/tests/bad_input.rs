//! Malformed scenarios: each is rejected with one clear message that names
//! the key (`ScenarioError.key`) and says what was wrong (the bad value) and
//! what is allowed.

use hoptcp_core::{load_scenario, run_scenario, RunError, RunOptions, ScenarioError};

/// A valid base: 3-hop chain, one CBR flow end to end.
const BASE: &str = r#"duration_s = 10
seed = 1

[topology]
kind = "chain"
hops = 3
spacing_m = 200

[[flows]]
src = 0
dst = 3
transport = "udp"
rate_bps = 100000
"#;

fn ov(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Every check a run makes (parse, validate, build); the error must be the
/// same through `run_scenario`.
fn reject(text: &str, overrides: &[(&str, &str)]) -> ScenarioError {
    let o = ov(overrides);
    let e = match load_scenario(text, &o) {
        Ok(_) => panic!("accepted:\n{text}\noverrides {overrides:?}"),
        Err(e) => e,
    };
    match run_scenario(text, &o, &RunOptions::default()) {
        Err(RunError::Scenario(e2)) => assert_eq!(e, e2, "run_scenario reports another error"),
        Err(other) => panic!("run_scenario: unexpected error {other}"),
        Ok(_) => panic!("run_scenario accepted what load rejected"),
    }
    println!("{:<28} | {}", e.key, e.message);
    assert_eq!(e.to_string(), e.message);
    assert!(!e.message.contains('\n'), "one message, one line: {:?}", e.message);
    e
}

/// The error names `key` (field and message) and its message contains every
/// item of `says`.
fn check(e: &ScenarioError, key: &str, says: &[&str]) {
    if !key.is_empty() {
        assert!(e.message.contains(key), "message does not name `{key}`: {}", e.message);
    }
    check_worded(e, key, says);
}

/// As `check`, for messages that name the key in words (`says`) rather than
/// as the dotted path.
fn check_worded(e: &ScenarioError, key: &str, says: &[&str]) {
    assert_eq!(e.key, key, "wrong key; message: {}", e.message);
    for s in says {
        assert!(e.message.contains(s), "message lacks {s:?}: {}", e.message);
    }
}

fn with(old: &str, new: &str) -> String {
    assert!(BASE.contains(old), "base has no {old:?}");
    BASE.replacen(old, new, 1)
}

#[test]
fn base_is_valid() {
    let plan: serde_json::Value = serde_json::from_str(&load_scenario(BASE, &[]).unwrap().plan_json()).unwrap();
    assert_eq!(plan["flows"].as_array().map(Vec::len), Some(1));
    assert_eq!(plan["flows"][0]["path"], serde_json::json!([0, 1, 2, 3]));
}

#[test]
fn toml_syntax_error_gives_line_and_column() {
    let e = reject(&with("hops = 3", "hops = = 3"), &[]);
    // `hops` is on line 6; the stray `=` at column 8.
    check(&e, "", &["not valid TOML", "line 6, column 8"]);
}

#[test]
fn unknown_key_top_level() {
    let e = reject(&with("duration_s = 10", "durations_s = 10"), &[]);
    check(&e, "durations_s", &["unknown key", "duration_s", "topology", "flows"]);
}

#[test]
fn unknown_key_nested() {
    let e = reject(&format!("{BASE}\n[mac]\nqueue_limt = 10\n"), &[]);
    check(&e, "mac.queue_limt", &["unknown key", "queue_limit", "rts_threshold_bytes"]);
    let e = reject(&with("rate_bps = 100000", "rate = 100000"), &[]);
    check(&e, "flows.0.rate", &["unknown key", "rate_bps", "packet_bytes"]);
}

#[test]
fn wrong_type() {
    let e = reject(&with("hops = 3", "hops = \"three\""), &[]);
    check(&e, "topology.hops", &["wrong type", "\"three\"", "integer"]);
    let e = reject(&with("rate_bps = 100000", "rate_bps = true"), &[]);
    check(&e, "flows.0.rate_bps", &["wrong type", "boolean", "number"]);
}

#[test]
fn negative_rate() {
    let e = reject(&with("rate_bps = 100000", "rate_bps = -5"), &[]);
    check(&e, "flows.0.rate_bps", &["-5", "positive"]);
}

#[test]
fn zero_rate() {
    let e = reject(&with("rate_bps = 100000", "rate_bps = 0"), &[]);
    check(&e, "flows.0.rate_bps", &["= 0", "positive"]);
}

#[test]
fn node_id_out_of_range() {
    let e = reject(&with("dst = 3", "dst = 9"), &[]);
    check(&e, "flows.0.dst", &["9", "0..=3", "4 nodes"]);
    let e = reject(BASE, &[("flows.0.src", "4")]);
    check(&e, "flows.0.src", &["4", "0..=3"]);
}

#[test]
fn src_equals_dst() {
    let e = reject(&with("dst = 3", "dst = 0"), &[]);
    check(&e, "flows.0.dst", &["must differ", "src"]);
}

#[test]
fn unroutable_flow() {
    let text = with(
        "kind = \"chain\"\nhops = 3\nspacing_m = 200",
        "kind = \"explicit\"\npositions = [[0, 0], [200, 0], [400, 0], [1500, 0]]",
    );
    let e = reject(&text, &[]);
    check(&e, "flows.0", &["unroutable", "node 0", "node 3", "250"]);
}

#[test]
fn cs_range_below_tx_range() {
    let e = reject(&format!("{BASE}\n[radio]\ncs_range_m = 200\n"), &[]);
    check(&e, "radio.cs_range_m", &["200", "at least", "radio.tx_range_m = 250"]);
}

#[test]
fn unknown_enum_values() {
    let e = reject(&with("kind = \"chain\"", "kind = \"ring\""), &[]);
    check(
        &e,
        "topology.kind",
        &["\"ring\"", "chain", "grid", "cross", "parallel_chains", "star", "random", "explicit"],
    );
    let e = reject(BASE, &[("radio.standard", "fhss")]);
    check(&e, "radio.standard", &["\"fhss\"", "dsss", "ofdm"]);
    let e = reject(&with("transport = \"udp\"", "transport = \"sctp\""), &[]);
    check(&e, "flows.0.transport", &["\"sctp\"", "udp", "tcp"]);
    let e = reject(BASE, &[("mac.adaptive_pacing.enabled", "true"), ("mac.adaptive_pacing.wait", "sleep")]);
    check(&e, "mac.adaptive_pacing.wait", &["\"sleep\"", "frozen_backoff", "timer"]);
    let e = reject(BASE, &[("mac.adaptive_pacing.enabled", "true"), ("mac.adaptive_pacing.extra", "rts")]);
    check(&e, "mac.adaptive_pacing.extra", &["\"rts\"", "exchange", "data"]);
}

#[test]
fn rate_not_valid_for_the_standard() {
    let e = reject(BASE, &[("radio.data_rate_mbps", "54")]);
    check(&e, "radio.data_rate_mbps", &["54", "dsss", "1, 2, 5.5, 11"]);
    // OFDM's basic rates start at 6 Mb/s.
    let e = reject(BASE, &[("radio.standard", "ofdm"), ("radio.basic_rate_mbps", "1")]);
    check(&e, "radio.basic_rate_mbps", &["1", "ofdm", "6, 9, 12"]);
}

#[test]
fn key_not_applicable_to_the_topology_kind() {
    let e = reject(BASE, &[("topology.rows", "3")]);
    check(&e, "topology.rows", &["not used by", "\"chain\"", "hops, spacing_m"]);
    let e = reject(BASE, &[("topology.radius_m", "100")]);
    check(&e, "topology.radius_m", &["\"chain\"", "hops"]);
}

#[test]
fn missing_required_key() {
    let e = reject(&with("hops = 3\n", ""), &[]);
    check(&e, "topology.hops", &["required", "chain"]);
    let e = reject(&with("transport = \"udp\"\n", ""), &[]);
    check(&e, "flows.0.transport", &["required", "missing"]);
    let e = reject(&with("rate_bps = 100000\n", ""), &[]);
    check(&e, "flows.0.rate_bps", &["required", "CBR"]);
    let no_topology = BASE.replace("[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n", "");
    let e = reject(&no_topology, &[]);
    check(&e, "topology", &["required", "missing"]);
}

#[test]
fn queue_limit_too_small() {
    let e = reject(BASE, &[("mac.queue_limit", "1")]);
    check(&e, "mac.queue_limit", &["= 1", "at least 2"]);
    // 2 is the smallest that works.
    load_scenario(BASE, &ov(&[("mac.queue_limit", "2")])).unwrap();
}

#[test]
fn explicit_route_through_non_neighbours() {
    let e = reject(&format!("{BASE}route = [0, 2, 3]\n"), &[]);
    check(&e, "flows.0.route", &["[0, 2, 3]", "nodes 0 and 2", "tx_range"]);
    let e = reject(&format!("{BASE}route = [0, 1, 3]\n"), &[]);
    check(&e, "flows.0.route", &["nodes 1 and 3"]);
    let e = reject(&format!("{BASE}route = [0, 1, 2]\n"), &[]);
    check(&e, "flows.0.route", &["from src = 0 to dst = 3"]);
    load_scenario(&format!("{BASE}route = [0, 1, 2, 3]\n"), &[]).unwrap();
}

#[test]
fn override_index_out_of_range() {
    let e = reject(BASE, &[("flows.3.rate_bps", "5")]);
    check_worded(&e, "flows.3", &["`flows` has 1 entry", "index 3", "out of range"]);
    let e = reject(BASE, &[("duration_s.x", "5")]);
    check(&e, "duration_s.x", &["single value"]);
}

#[test]
fn disconnected_random_topology() {
    let text = with(
        "kind = \"chain\"\nhops = 3\nspacing_m = 200",
        "kind = \"random\"\nnodes = 30\nwidth_m = 800\nheight_m = 800\ntopology_seed = 6",
    );
    let e = reject(&text, &[]);
    check(&e, "topology.topology_seed", &["disconnected", "seed 6", "require_connected"]);
    // The same draw passes the topology check when connectivity is not
    // required (the flow itself may then be unroutable).
    let relaxed = text.replace("topology_seed = 6", "topology_seed = 6\nrequire_connected = false");
    if let Err(e) = load_scenario(&relaxed, &[]) {
        assert_eq!(e.key, "flows.0", "{}", e.message);
    }
}

#[test]
fn udp_flow_with_ftp_app() {
    let e = reject(&format!("{BASE}app = \"ftp\"\n"), &[]);
    check(&e, "flows.0.app", &["\"ftp\"", "udp", "\"cbr\""]);
}

#[test]
fn tcp_only_key_on_a_udp_flow() {
    let e = reject(&format!("{BASE}max_window = 4\n"), &[]);
    check(&e, "flows.0.max_window", &["TCP flows only", "udp"]);
    // And the converse: a rate on an FTP flow points to the rate-limited source.
    let tcp = with("transport = \"udp\"\nrate_bps = 100000", "transport = \"tcp\"\nrate_bps = 100000");
    let e = reject(&tcp, &[]);
    check(&e, "flows.0.rate_bps", &["CBR flows only", "app = \"cbr\""]);
}

#[test]
fn no_flows_at_all() {
    let text = BASE[..BASE.find("[[flows]]").unwrap()].to_string();
    let e = reject(&text, &[]);
    check(&e, "flows", &["no traffic", "[[flows]]"]);
}

#[test]
fn other_out_of_range_values() {
    let e = reject(BASE, &[("flows.0.jitter", "1")]);
    check(&e, "flows.0.jitter", &["= 1", "[0, 1)"]);
    let e = reject(BASE, &[("duration_s", "-3")]);
    check(&e, "duration_s", &["-3", "positive"]);
    let e = reject(BASE, &[("stats.warmup_s", "10")]);
    check(&e, "stats.warmup_s", &["10", "below duration_s = 10"]);
    let e = reject(BASE, &[("flows.0.start_s", "12")]);
    check(&e, "flows.0.start_s", &["12", "below duration_s"]);
    let e = reject(BASE, &[("topology.hops", "0")]);
    check(&e, "topology.hops", &["= 0", "1..="]);
}

#[test]
fn aodv_keys_need_aodv_and_sane_values() {
    let e = reject(&format!("{BASE}[routing.aodv]\nttl_start = 3\n"), &[]);
    check(&e, "routing.aodv", &["routing.protocol = \"aodv\"", "\"static\""]);
    let aodv = format!("{BASE}[routing]\nprotocol = \"aodv\"\n");
    let e = reject(&aodv, &[("routing.aodv.ttl_strat", "3")]);
    check(&e, "routing.aodv.ttl_strat", &["unknown key", "ttl_start"]);
    let e = reject(&aodv, &[("routing.aodv.ttl_threshold", "3")]);
    check(&e, "routing.aodv.ttl_threshold", &["= 3", "routing.aodv.ttl_start = 5"]);
    let e = reject(&aodv, &[("routing.aodv.network_diameter", "300")]);
    check(&e, "routing.aodv.network_diameter", &["= 300", "1..=255"]);
    let e = reject(&aodv, &[("routing.aodv.purge_interval_s", "0")]);
    check(&e, "routing.aodv.purge_interval_s", &["= 0", ">= 0.001"]);
    let e = reject(&aodv, &[("routing.aodv.active_route_timeout_s", "-1")]);
    check(&e, "routing.aodv.active_route_timeout_s", &["-1", "positive"]);
    let e = reject(&aodv, &[("routing.aodv.local_repair", "1")]);
    check(&e, "routing.aodv.local_repair", &["wrong type", "true or false"]);
    let e = reject(&aodv, &[("routing.protocol", "\"olsr\"")]);
    check(&e, "routing.protocol", &["\"olsr\"", "static, aodv"]);
    let e = reject(&aodv, &[("routing.aodv.link_detection", "\"beacon\"")]);
    check(&e, "routing.aodv.link_detection", &["\"beacon\"", "mac", "hello"]);
    let e = reject(&aodv, &[("routing.aodv.hello_interval_s", "2")]);
    check(&e, "routing.aodv.hello_interval_s", &["link_detection = \"hello\""]);
    let e = reject(&aodv, &[("routing.aodv.allowed_hello_loss", "5")]);
    check(&e, "routing.aodv.allowed_hello_loss", &["link_detection = \"hello\""]);
    let hello = [("routing.aodv.link_detection", "\"hello\"")];
    let e = reject(&aodv, &[hello[0], ("routing.aodv.hello_interval_s", "0")]);
    check(&e, "routing.aodv.hello_interval_s", &["= 0", ">= 0.001"]);
    let e = reject(&aodv, &[hello[0], ("routing.aodv.allowed_hello_loss", "0")]);
    check(&e, "routing.aodv.allowed_hello_loss", &["= 0", "1..="]);
}

#[test]
fn explicit_route_is_for_static_routing_only() {
    let text = format!("{BASE}route = [0, 1, 2, 3]\n[routing]\nprotocol = \"aodv\"\n");
    let e = reject(&text, &[]);
    check(&e, "flows.0.route", &["static", "aodv"]);
}

#[test]
fn integers_beyond_64_bits_name_the_key_and_the_range() {
    let e = reject(&BASE.replace("seed = 1", "seed = 18446744073709551616"), &[]);
    check(&e, "seed", &["18446744073709551616", "from 0 to 9223372036854775807"]);
    let e = reject(&BASE.replace("seed = 1", "seed = 9223372036854775808"), &[]);
    check(&e, "seed", &["9223372036854775808", "from 0 to 9223372036854775807"]);
    let e = reject(&BASE.replace("hops = 3", "hops = 99999999999999999999 # far"), &[]);
    check(&e, "topology.hops", &["99999999999999999999", "between -9223372036854775808 and 9223372036854775807"]);
    let e = reject(BASE, &[("seed", "18446744073709551616")]);
    check(&e, "seed", &["18446744073709551616", "from 0 to 9223372036854775807"]);
    let e = reject(BASE, &[("flows.0.rate_bps", "-99999999999999999999")]);
    check(&e, "flows.0.rate_bps", &["-99999999999999999999", "between"]);
}
