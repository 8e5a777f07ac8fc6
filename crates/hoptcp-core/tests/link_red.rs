//! Link RED, adaptive pacing and ECN through the whole simulator: the
//! scenario keys, the report's counters and warnings, and the marks reaching
//! TCP (Fu et al.'s 7-hop chain, shortened runs).

mod common;
use common::*;
use hoptcp_core::{load_scenario, RunReport};

const CHAIN7: &str = "duration_s = 60\nseed = 3\n[topology]\nkind = \"chain\"\nhops = 7\nspacing_m = 200\n\
                      [tcp]\nmax_window = 32\n[[flows]]\nsrc = 0\ndst = 7\ntransport = \"tcp\"\napp = \"ftp\"\n";

fn ov(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

fn by_kind(r: &RunReport, kind: &str, cause: &str) -> u64 {
    r.drops["by_kind"][kind][cause].as_u64().unwrap()
}

fn sum_link(r: &RunReport, f: impl Fn(&hoptcp_core::LinkReport) -> u64) -> u64 {
    r.nodes.iter().map(|n| f(n.link.as_ref().expect("link counters when Link RED is on"))).sum()
}

/// An active Link RED (the defaults rarely act on this chain).
const HARSH: [(&str, &str); 4] = [
    ("mac.link_red.enabled", "true"),
    ("mac.link_red.min_th", "0.3"),
    ("mac.link_red.max_th", "1.5"),
    ("mac.link_red.max_p", "0.1"),
];

#[test]
fn link_red_marks_ecn_capable_data_and_drops_the_acks_it_picks() {
    let mut o = ov(&HARSH);
    o.push(("tcp.ecn", "true".into()));
    let r = run(CHAIN7, &o);
    let t = r.flows[0].tcp.as_ref().unwrap();
    let (marks, lred_drops) = (sum_link(&r, |l| l.lred_marks), sum_link(&r, |l| l.lred_drops));
    println!(
        "marks {marks}, LRED drops {lred_drops}, ECN responses {}, goodput {:.0}",
        t.ecn_reductions, r.aggregate_goodput_bps
    );
    assert!(marks > 50, "{marks}");
    // Data segments are ECT: marked, never dropped by Link RED. ACKs are not
    // ECN-capable (RFC 3168): the ones picked are dropped.
    assert_eq!(by_kind(&r, "tcp_data", "link_red"), 0);
    assert_eq!(by_kind(&r, "tcp_ack", "link_red"), lred_drops);
    assert_eq!(drops(&r, "link_red"), lred_drops);
    assert!(lred_drops > 0);
    // The marks reach the sender as ECN-Echo; it answers at most once per
    // window, so far fewer responses than marks.
    assert!(t.ecn_reductions > 5 && t.ecn_reductions < marks, "{} of {marks}", t.ecn_reductions);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Per-node drop counters agree with the totals.
    let per_node: u64 = r.nodes.iter().map(|n| n.drops["link_red"]).sum();
    assert_eq!(per_node, lred_drops);
    // The receiver (node 7) only forwards ACKs: nothing of its is marked.
    assert_eq!(r.nodes[7].link.as_ref().unwrap().lred_marks, 0);
}

#[test]
fn mark_ect_only_spares_the_acks() {
    let mut o = ov(&HARSH);
    o.push(("tcp.ecn", "true".into()));
    o.push(("mac.link_red.action", "mark_ect_only".into()));
    let r = run(CHAIN7, &o);
    let t = r.flows[0].tcp.as_ref().unwrap();
    let marks = sum_link(&r, |l| l.lred_marks);
    assert!(marks > 50, "{marks}");
    assert_eq!(sum_link(&r, |l| l.lred_drops), 0);
    assert_eq!(drops(&r, "link_red"), 0, "nothing is dropped: non-ECT packets pass");
    assert!(t.ecn_reductions > 5 && t.ecn_reductions < marks);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // With "mark" the same thresholds drop ACKs, and the lost ACKs end in timeouts.
    let mut o = ov(&HARSH);
    o.push(("tcp.ecn", "true".into()));
    let rfc = run(CHAIN7, &o);
    let t_rfc = rfc.flows[0].tcp.as_ref().unwrap();
    println!("timeouts: mark {}, mark_ect_only {}", t_rfc.timeouts, t.timeouts);
    assert!(t_rfc.timeouts > t.timeouts);
}

#[test]
fn without_ecn_marking_becomes_dropping() {
    let r = run(CHAIN7, &ov(&HARSH));
    assert_eq!(sum_link(&r, |l| l.lred_marks), 0, "no ECN-capable packet to mark");
    assert!(by_kind(&r, "tcp_data", "link_red") > 0);
    assert_eq!(r.flows[0].tcp.as_ref().unwrap().ecn_reductions, 0);
    assert!(r.warnings.iter().any(|w| w.contains("no flow is ECN-capable")), "{:?}", r.warnings);
    // action = "drop" drops ECN-capable packets too.
    let mut o = ov(&HARSH);
    o.push(("tcp.ecn", "true".into()));
    o.push(("mac.link_red.action", "\"drop\"".into()));
    let r = run(CHAIN7, &o);
    assert_eq!(sum_link(&r, |l| l.lred_marks), 0);
    assert!(by_kind(&r, "tcp_data", "link_red") > 0);
    assert!(r.warnings.iter().any(|w| w.contains("tcp.ecn = true")), "{:?}", r.warnings);
}

#[test]
fn ecn_without_a_marker_is_a_warning() {
    let r = run(CHAIN7, &ov(&[("tcp.ecn", "true"), ("duration_s", "5")]));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("tcp.ecn = true") && r.warnings[0].contains("no effect"), "{}", r.warnings[0]);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["warnings"][0].as_str().unwrap(), r.warnings[0]);
    // Per flow too; and no warning without ECN.
    let per_flow = CHAIN7.replace("app = \"ftp\"\n", "app = \"ftp\"\necn = true\n");
    assert_eq!(run(&per_flow, &ov(&[("duration_s", "5")])).warnings.len(), 1);
    assert!(run(CHAIN7, &ov(&[("duration_s", "5")])).warnings.is_empty());
}

#[test]
fn disabled_tables_change_nothing() {
    let base = run(CHAIN7, &ov(&[("duration_s", "20")]));
    let off = run(
        CHAIN7,
        &ov(&[
            ("duration_s", "20"),
            ("mac.link_red.enabled", "false"),
            ("mac.link_red.min_th", "0.3"),
            ("mac.adaptive_pacing.enabled", "false"),
            ("mac.adaptive_pacing.trigger", "always"),
        ]),
    );
    let strip = |r: &RunReport| {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("wall_time_s");
        v.as_object_mut().unwrap().remove("warnings");
        v
    };
    assert_eq!(strip(&base), strip(&off));
    // ... but the keys set under a disabled table are named, not dropped in silence.
    assert!(base.warnings.is_empty(), "{:?}", base.warnings);
    assert_eq!(off.warnings.len(), 2, "{:?}", off.warnings);
    assert!(
        off.warnings[0].contains("mac.adaptive_pacing.trigger = \"always\"")
            && off.warnings[0].contains("mac.adaptive_pacing.enabled = false"),
        "{}",
        off.warnings[0]
    );
    assert!(
        off.warnings[1].contains("mac.link_red.min_th = 0.3") && off.warnings[1].contains("no effect"),
        "{}",
        off.warnings[1]
    );
    assert!(base.nodes.iter().all(|n| n.link.is_none()));
    // Same canonical scenario, hence the same results-store key.
    let a = load_scenario(CHAIN7, &[]).unwrap();
    let b = load_scenario(
        CHAIN7,
        &[("mac.link_red.enabled".into(), "false".into()), ("mac.adaptive_pacing.enabled".into(), "false".into())],
    )
    .unwrap();
    assert_eq!(a.canonical_json(), b.canonical_json());
}

#[test]
fn an_unreachable_threshold_leaves_the_run_unchanged() {
    // Link RED on, but its threshold never reached: the run is the plain
    // one (its random stream is its own), with the counters reported.
    let base = run(CHAIN7, &ov(&[("duration_s", "30")]));
    let idle = run(
        CHAIN7,
        &ov(&[
            ("duration_s", "30"),
            ("mac.link_red.enabled", "true"),
            ("mac.link_red.min_th", "50"),
            ("mac.link_red.max_th", "60"),
        ]),
    );
    assert_eq!(base.events, idle.events);
    assert_eq!(base.aggregate_goodput_bps, idle.aggregate_goodput_bps);
    assert_eq!(sum_link(&idle, |l| l.lred_marks + l.lred_drops), 0);
    let avg: Vec<f64> = idle.nodes.iter().map(|n| n.link.as_ref().unwrap().lred_avg_retry).collect();
    assert!(avg.iter().all(|&a| (0.0..7.0).contains(&a)) && avg.iter().any(|&a| a > 0.05), "{avg:?}");
}

#[test]
fn pacing_always_reports_its_time_and_cuts_contention_drops() {
    let base = run(CHAIN7, &[]);
    let paced = run(CHAIN7, &ov(&[("mac.adaptive_pacing.enabled", "true"), ("mac.adaptive_pacing.trigger", "always")]));
    for n in &paced.nodes {
        let l = n.link.as_ref().unwrap();
        assert_eq!(l.pacing_active_s, 60.0);
        assert_eq!((l.lred_marks, l.lred_drops), (0, 0));
        assert_eq!(l.pacing_backoffs, n.mac.packets_acked, "one extra backoff per acknowledged packet");
        if l.pacing_backoffs > 0 {
            let per = l.pacing_extra_s / l.pacing_backoffs as f64;
            // Between an ACK's exchange (~1.5 ms) and a data packet's (~7.4 ms).
            assert!((1.4e-3..7.5e-3).contains(&per), "{per}");
        }
    }
    let contention = |r: &RunReport| drops(r, "mac_rts_retry") + drops(r, "mac_data_retry");
    println!("contention drops: plain {}, paced {}", contention(&base), contention(&paced));
    assert!(contention(&paced) * 2 < contention(&base));
    assert!(paced.warnings.is_empty());
}

#[test]
fn bad_link_layer_values_are_rejected_with_the_key() {
    let cases: [(&str, &str, &str); 7] = [
        ("mac.link_red.min_th", "-0.1", "mac.link_red.min_th"),
        ("mac.link_red.max_th", "0.05", "mac.link_red.max_th"),
        ("mac.link_red.max_p", "0", "mac.link_red.max_p"),
        ("mac.link_red.max_p", "1.5", "mac.link_red.max_p"),
        ("mac.link_red.weight", "2", "mac.link_red.weight"),
        ("mac.link_red.action", "\"ecn\"", "mac.link_red.action"),
        ("mac.adaptive_pacing.trigger", "\"sometimes\"", "mac.adaptive_pacing.trigger"),
    ];
    for (k, v, key) in cases {
        let mut o = vec![(k.to_string(), v.to_string())];
        if k == "mac.link_red.max_th" {
            o.push(("mac.link_red.min_th".into(), "0.1".into()));
        }
        let e = load_scenario(CHAIN7, &o).expect_err(&format!("{k} = {v} accepted"));
        assert_eq!(e.key, key, "{k} = {v}: {e}");
        assert!(e.message.contains(key), "{}", e.message);
    }
    let e = load_scenario(CHAIN7, &[("mac.link_red.min_thresh".into(), "1".into())]).unwrap_err();
    assert!(e.message.contains("unknown key") && e.message.contains("min_th"), "{}", e.message);
    let e = load_scenario(CHAIN7, &[("mac.adaptive_pacing.trigger".into(), "\"sometimes\"".into())]).unwrap_err();
    assert!(e.message.contains("below_min_th") && e.message.contains("at_or_above_min_th"), "{}", e.message);
}
