//! `tcp.sack` and `tcp.sack_profile` as scenario keys: per flow, left out
//! of the canonical form at their defaults, refused where they cannot
//! apply, and carried into a run (the mechanism's own tests are in
//! `transport/tcp/sack/` and `sender/sack_tests.rs`).

use hoptcp_core::{load_scenario, run_scenario, RunOptions};
use serde_json::Value;

/// Two TCP flows over a 3-hop chain.
const BASE: &str = r#"duration_s = 10
seed = 3

[topology]
kind = "chain"
hops = 3
spacing_m = 200

[tcp]
max_window = 32

[[flows]]
src = 0
dst = 3
transport = "tcp"

[[flows]]
src = 3
dst = 0
transport = "tcp"
"#;

fn ov(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn canonical(pairs: &[(&str, &str)]) -> String {
    load_scenario(BASE, &ov(pairs)).unwrap().canonical_json()
}

#[test]
fn keys_at_their_defaults_leave_the_canonical_form_unchanged() {
    let plain = canonical(&[]);
    assert!(!plain.contains("sack"), "{plain}");
    let at_defaults = [("tcp.sack", "false"), ("tcp.sack_profile", "\"rfc6675\"")];
    assert_eq!(canonical(&at_defaults), plain);
    let on = canonical(&[("tcp.sack", "true"), ("tcp.sack_profile", "\"ns2_sack1\"")]);
    let v: Value = serde_json::from_str(&on).unwrap();
    assert_eq!(v["tcp"]["sack"], true);
    assert_eq!(v["tcp"]["sack_profile"], "ns2_sack1");
    let per_flow: Value = serde_json::from_str(&canonical(&[("flows.1.sack", "true")])).unwrap();
    assert_eq!(per_flow["flows"][1]["sack"], true);
    assert!(per_flow["flows"][0].get("sack").is_none() && per_flow["tcp"].get("sack").is_none());
}

fn run(pairs: &[(&str, &str)]) -> Value {
    serde_json::to_value(run_scenario(BASE, &ov(pairs), &RunOptions::default()).unwrap()).unwrap()
}

#[test]
fn a_flow_of_its_own_uses_sack_and_the_run_is_deterministic() {
    let r = run(&[("flows.1.sack", "true")]);
    assert!(r["flows"][0].get("sack").is_none(), "flow 0 keeps NewReno's recovery");
    let s = &r["flows"][1]["sack"];
    assert!(s["recoveries"].as_u64().is_some() && s["recoveries_completed"].as_u64() <= s["recoveries"].as_u64());
    assert_eq!(r["flows"], run(&[("flows.1.sack", "true")])["flows"]);
    // Without the key the run is the one it was.
    assert_eq!(run(&[])["flows"], run(&[("tcp.sack", "false")])["flows"]);
}

fn refused(pairs: &[(&str, &str)], key: &str, says: &[&str]) {
    let e = match load_scenario(BASE, &ov(pairs)) {
        Ok(_) => panic!("accepted {pairs:?}"),
        Err(e) => e,
    };
    assert_eq!(e.key, key, "{}", e.message);
    assert!(!e.message.contains('\n'), "{}", e.message);
    for s in says {
        assert!(e.message.contains(s), "message lacks {s:?}: {}", e.message);
    }
}

#[test]
fn bad_values_are_refused_in_one_line() {
    refused(&[("tcp.sack_profile", "\"linux\"")], "tcp.sack_profile", &["linux", "rfc6675", "ns2_sack1"]);
    refused(&[("tcp.sack", "1")], "tcp.sack", &["tcp.sack"]);
    refused(&[("tcp.variant", "\"bbr\""), ("tcp.sack", "true")], "tcp.sack", &["bbr", "false"]);
    refused(&[("flows.0.variant", "\"bbr\""), ("flows.0.sack", "true")], "flows.0.sack", &["bbr"]);
    let udp = [("flows.0.transport", "\"udp\""), ("flows.0.rate_bps", "1000"), ("flows.0.sack", "true")];
    refused(&udp, "flows.0.sack", &["TCP flows only"]);
}
