//! Low Delay Marking through the whole simulator (Lee et al.'s 7-hop chain,
//! shortened runs): the marks a real marker gives, ECN end to end, the
//! report's counters and warnings, the keys' errors, and the MAC's
//! RTS-retry histogram (the paper's Fig. 8).

mod common;
use common::*;
use hoptcp_core::ldm::{node_probability, path_probability, target_window, LdmParams};
use hoptcp_core::{load_scenario, RunReport};

const CHAIN7: &str = "duration_s = 60\nseed = 3\n[topology]\nkind = \"chain\"\nhops = 7\nspacing_m = 200\n\
                      [tcp]\nmax_window = 32\n[[flows]]\nsrc = 0\ndst = 7\ntransport = \"tcp\"\napp = \"ftp\"\n";

fn ov(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

fn marks(r: &RunReport, node: usize) -> (u64, u64, u64) {
    let l = r.nodes[node].ldm.expect("LDM counters when LDM is on");
    (l.ldm_packets, l.ldm_marks, l.ldm_drops)
}

fn by_kind(r: &RunReport, kind: &str, cause: &str) -> u64 {
    r.drops["by_kind"][kind][cause].as_u64().unwrap()
}

#[test]
fn ldm_marks_ect_data_at_forwarding_nodes_and_the_sender_answers() {
    for estimate in ["estimated", "oracle"] {
        let r = run(
            CHAIN7,
            &ov(&[("ip.ldm.enabled", "true"), ("ip.ldm.estimate", &format!("\"{estimate}\"")), ("tcp.ecn", "true")]),
        );
        let t = r.flows[0].tcp.as_ref().unwrap();
        let total: u64 = (0..8).map(|i| marks(&r, i).1).sum();
        println!("{estimate}: marks {total}, ECN reductions {}, avg cwnd {:.2}", t.ecn_reductions, t.avg_cwnd);
        // Only the 6 forwarding nodes see the flow's data on its way.
        assert_eq!(marks(&r, 0), (0, 0, 0), "the source does not forward");
        assert_eq!(marks(&r, 7).1, 0, "the destination only forwards nothing");
        for i in 1..7 {
            let (pk, m, d) = marks(&r, i);
            // 60 s at over 100 kb/s: several hundred data packets through every forwarder
            assert!(pk > 500 && m > 10, "node {i}: {pk} packets, {m} marks");
            assert_eq!(d, 0, "data is ECN-capable and ACKs are never picked");
        }
        // RFC 3168 end to end: the receiver echoes, the sender halves at most
        // once per window, so fewer reductions than marks.
        assert!(t.ecn_reductions > 10 && t.ecn_reductions < total, "{} of {total}", t.ecn_reductions);
        assert_eq!(drops(&r, "ldm"), 0);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
}

#[test]
fn oracle_marking_rate_is_the_per_node_share_of_the_target() {
    let r = run(CHAIN7, &ov(&[("ip.ldm.enabled", "true"), ("ip.ldm.estimate", "\"oracle\""), ("tcp.ecn", "true")]));
    let p = LdmParams::default();
    let want = node_probability(path_probability(target_window(7.0, 1.0, &p), &p), 7.0);
    let (pk, m): (u64, u64) = (1..7).map(|i| marks(&r, i)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let got = m as f64 / pk as f64;
    let sd = (want * (1.0 - want) / pk as f64).sqrt();
    println!("marking rate {got:.4} vs p_node {want:.4} (sd {sd:.4})");
    assert!((got - want).abs() < 4.0 * sd, "{got} vs {want}");
    // Over the path: the packets marked at least once are about p_mark of the
    // sent ones (the sender's reaction only lowers the window, not the rate).
    let delivered_marked_share = 1.0 - (1.0 - got).powi(6);
    assert!((delivered_marked_share - 0.76 / (1.75f64 * 1.75)).abs() < 0.02);
}

#[test]
fn estimated_hops_work_with_aodv_ttls() {
    // AODV gives packets TTL 30 (in the default initial_ttls): the estimate
    // equals the truth on a chain, so both variants mark at the same rate.
    let base = ov(&[("routing.protocol", "\"aodv\""), ("ip.ldm.enabled", "true"), ("tcp.ecn", "true")]);
    let rate = |r: &RunReport| {
        let (pk, m) = (1..7).map(|i| marks(r, i)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        m as f64 / pk as f64
    };
    let est = run(CHAIN7, &base);
    let mut o = base.clone();
    o.push(("ip.ldm.estimate", "\"oracle\"".into()));
    let ora = run(CHAIN7, &o);
    println!("AODV marking rate: estimated {:.4}, oracle {:.4}", rate(&est), rate(&ora));
    assert!(est.warnings.is_empty(), "{:?}", est.warnings);
    assert!((rate(&est) - rate(&ora)).abs() < 0.01);
    // Without 30 among the conventions, 29 reads as 32 − 3: hops are
    // overestimated, the target window grows and marking falls.
    let mut o = base.clone();
    o.push(("ip.ldm.initial_ttls", "[64, 128, 255]".into()));
    let off = run(CHAIN7, &o);
    assert!(off.warnings.iter().any(|w| w.contains("initial_ttls")), "{:?}", off.warnings);
    println!("initial_ttls without 30: {:.4}", rate(&off));
    assert!(rate(&off) < rate(&est) * 0.8);
}

#[test]
fn ldm_lowers_the_window_and_the_rtt() {
    let plain = run(CHAIN7, &ov(&[("tcp.ecn", "true")]));
    let ldm = run(CHAIN7, &ov(&[("ip.ldm.enabled", "true"), ("tcp.ecn", "true")]));
    let (a, b) = (plain.flows[0].tcp.as_ref().unwrap(), ldm.flows[0].tcp.as_ref().unwrap());
    println!("cwnd {:.2} -> {:.2}, rtt {:.3} -> {:.3}", a.avg_cwnd, b.avg_cwnd, a.avg_rtt_s, b.avg_rtt_s);
    assert!(b.avg_cwnd < 0.6 * a.avg_cwnd);
    assert!(b.avg_rtt_s < 0.8 * a.avg_rtt_s);
    assert_eq!(a.ecn_reductions, 0);
}

#[test]
fn non_ecn_flows_lose_the_packets_ldm_picks() {
    let r = run(CHAIN7, &ov(&[("ip.ldm.enabled", "true")]));
    let d: u64 = (0..8).map(|i| marks(&r, i).2).sum();
    assert!(d > 10, "{d}");
    assert_eq!((0..8).map(|i| marks(&r, i).1).sum::<u64>(), 0, "no CE on non-ECT packets");
    assert_eq!(by_kind(&r, "tcp_data", "ldm"), d);
    assert_eq!(by_kind(&r, "tcp_ack", "ldm"), 0);
    assert!(r.warnings.iter().any(|w| w.contains("ip.ldm") && w.contains("dropped")), "{:?}", r.warnings);
    // mark_ect_only leaves them alone: nothing marked, nothing dropped.
    let r = run(CHAIN7, &ov(&[("ip.ldm.enabled", "true"), ("ip.ldm.action", "\"mark_ect_only\"")]));
    assert_eq!((0..8).map(|i| marks(&r, i).2 + marks(&r, i).1).sum::<u64>(), 0);
}

#[test]
fn ecn_without_a_marker_warns_and_ldm_silences_it() {
    let r = run(CHAIN7, &ov(&[("tcp.ecn", "true")]));
    assert!(r.warnings.iter().any(|w| w.contains("nothing in the network marks")), "{:?}", r.warnings);
    assert!(r.nodes.iter().all(|n| n.ldm.is_none()));
    let r = run(CHAIN7, &ov(&[("tcp.ecn", "true"), ("ip.ldm.enabled", "true")]));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn a_disabled_ldm_table_is_the_scenario_without_it() {
    let with =
        load_scenario(CHAIN7, &[("ip.ldm.enabled".into(), "false".into()), ("ip.ldm.k".into(), "0.5".into())]).unwrap();
    let without = load_scenario(CHAIN7, &[]).unwrap();
    assert_eq!(with.canonical_json(), without.canonical_json());
    let on = load_scenario(CHAIN7, &[("ip.ldm.enabled".into(), "true".into())]).unwrap();
    let j = on.canonical_json();
    assert!(j.contains("\"ldm\":{") && j.contains("\"estimate\":\"estimated\""), "{j}");
}

#[test]
fn bad_ldm_keys_give_one_clear_error() {
    let err = |k: &str, v: &str| load_scenario(CHAIN7, &[(k.into(), v.into())]).unwrap_err().to_string();
    let e = err("ip.ldm.k", "-1");
    assert!(e.contains("ip.ldm.k") && e.contains("-1") && e.contains("positive"), "{e}");
    let e = err("ip.ldm.initial_ttls", "[64, 30]");
    assert!(e.contains("ip.ldm.initial_ttls") && e.contains("ascending"), "{e}");
    let e = err("ip.ldm.initial_ttls", "[30, 300]");
    assert!(e.contains("1..=255"), "{e}");
    let e = err("ip.ldm.estimate", "\"guess\"");
    assert!(e.contains("ip.ldm.estimate") && e.contains("oracle"), "{e}");
    let e = err("ip.ldm.flow_bits", "0");
    assert!(e.contains("ip.ldm.flow_bits") && e.contains("1..=65536"), "{e}");
    let e = err("ip.ldm.bogus", "1");
    assert!(e.contains("bogus"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn rts_retry_histogram_accounts_for_every_rts_packet() {
    let r = run(CHAIN7, &[]);
    for n in &r.nodes {
        let h = &n.mac.rts_retry_hist;
        let packets: u64 = h.iter().sum();
        // Every unicast packet uses an RTS (threshold 0), and every CTS
        // timeout belongs to one of them.
        assert_eq!(packets, n.mac.packets_acked + n.mac.drops_rts_retry + n.mac.drops_data_retry, "node {}", n.id);
        let timeouts: u64 = h.iter().enumerate().map(|(k, c)| k as u64 * c).sum();
        // ... except those of the packet still in service when the run ends.
        assert!(timeouts <= n.mac.cts_timeouts && n.mac.cts_timeouts - timeouts < 7, "node {}", n.id);
        // A packet dropped at the short retry limit had at least 1 and at
        // most 7 of its own timeouts (the counter is shared with the packet
        // before); one that got a CTS and lost its DATA may have more.
        if n.mac.drops_rts_retry > 0 {
            assert!(h[1..].iter().sum::<u64>() >= n.mac.drops_rts_retry);
        }
    }
    let total: u64 = r.rts_retry_hist.iter().sum();
    let first = r.rts_retry_hist[0] as f64 / total as f64;
    println!("RTS retries histogram {:?}: {:.1}% without retry", r.rts_retry_hist, 100.0 * first);
    assert!(first > 0.5 && first < 1.0);
}

#[test]
fn max_window_wstar_resolves_to_each_flows_w_star() {
    let parse = |toml: &str, o: &[(&str, &str)]| {
        let o: Vec<(String, String)> = o.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        load_scenario(toml, &o)
    };
    // The resolved scenario as JSON: a flow's own window is written, an inherited one is absent.
    let json = |j: &str| serde_json::from_str::<serde_json::Value>(j).unwrap();
    let windows = |j: &serde_json::Value| {
        let flows = j["flows"].as_array().unwrap();
        (j["tcp"]["max_window"].clone(), flows.iter().map(|f| f["max_window"].clone()).collect::<Vec<_>>())
    };
    let own = |w: u32| serde_json::json!(w);
    let chain = |h: u32| CHAIN7.replace("hops = 7", &format!("hops = {h}")).replace("dst = 7", &format!("dst = {h}"));
    // Chains: ceil(h/4) (7 → 2, 15 → 4, 24 → 6), through --set as a bare word.
    for (h, w) in [(7, 2), (15, 4), (24, 6), (3, 1)] {
        let j = parse(&chain(h), &[("tcp.max_window", "wstar")]).unwrap().canonical_json();
        assert_eq!(windows(&json(&j)), (own(w), vec![own(w)]), "{h} hops");
        assert!(!j.contains("wstar"), "the canonical form carries the number: {j}");
        // Same canonical form as the number written out.
        let explicit = parse(&chain(h), &[("tcp.max_window", &w.to_string()), ("flows.0.max_window", &w.to_string())]);
        assert_eq!(j, explicit.unwrap().canonical_json());
    }
    // In the file, per flow; the flow's own path counts (a 3-hop flow on the 7-hop chain).
    let two = CHAIN7.replace("max_window = 32", "max_window = \"wstar\"")
        + "[[flows]]\nsrc = 1\ndst = 4\ntransport = \"tcp\"\napp = \"ftp\"\nmax_window = 9\n";
    let sc = json(&parse(&two, &[]).unwrap().canonical_json());
    assert_eq!(windows(&sc).1, [own(2), own(9)]);
    let sc = json(&parse(&two, &[("flows.1.max_window", "\"wstar\"")]).unwrap().canonical_json());
    assert_eq!(windows(&sc).1[1], own(1));
    // The cross: ceil((h+4)/8) = 2 for its 6-hop flows (both papers' 2).
    let cross = "[topology]\nkind = \"cross\"\nhops = 6\nspacing_m = 200\n[tcp]\nmax_window = \"wstar\"\n\
                 [[flows]]\nsrc = 0\ndst = 6\ntransport = \"tcp\"\napp = \"ftp\"\n";
    assert_eq!(windows(&json(&parse(cross, &[]).unwrap().canonical_json())).1, [own(2)]);
    // It runs as the number: the sender never has more than W* in flight.
    let r = run(&chain(7), &ov(&[("tcp.max_window", "wstar"), ("duration_s", "20")]));
    assert!(r.flows[0].tcp.as_ref().unwrap().avg_cwnd <= 2.0 + 1e-9);
    // Other words are one clear error naming both forms.
    let e = parse(&chain(7), &[("tcp.max_window", "best")]).unwrap_err().to_string();
    assert!(e.contains("tcp.max_window") && e.contains("best") && e.contains("wstar"), "{e}");
    let e = parse(&two, &[("flows.1.max_window", "\"W*\"")]).unwrap_err().to_string();
    assert!(e.contains("flows.1.max_window") && e.contains("wstar"), "{e}");
    let rand =
        "[topology]\nkind = \"random\"\nnodes = 20\nwidth_m = 500\nheight_m = 500\n[tcp]\nmax_window = \"wstar\"\n\
                [random_flows]\ncount = 2\ntransport = \"tcp\"\napp = \"ftp\"\n";
    let e = parse(rand, &[]).unwrap_err().to_string();
    assert!(e.contains("tcp.max_window") && e.contains("[[flows]]"), "{e}");
}
