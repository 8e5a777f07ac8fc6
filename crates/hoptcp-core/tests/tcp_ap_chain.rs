//! TCP-AP against NewReno on Fu et al.'s 7-hop chain (examples/chain7.toml:
//! 2 Mb/s, static routes, MaxWin 32). The numbers are printed whatever they
//! are; the assertions check what pacing must do: spread the window out at
//! the estimated rate so the hidden-terminal losses that cost NewReno its
//! retransmissions (almost) disappear.

mod common;
use common::*;
use hoptcp_core::RunReport;

fn chain7(variant: &[(&str, &str)], seed: u64) -> RunReport {
    let mut ov: Vec<(&str, String)> = vec![("duration_s", "120".into())];
    ov.extend(variant.iter().map(|(k, v)| (*k, v.to_string())));
    run_seed(&example("chain7.toml"), &ov, seed)
}

#[test]
fn pacing_removes_the_losses_newreno_suffers() {
    for seed in [1, 2] {
        let nr = chain7(&[("tcp.variant", "newreno")], seed);
        let paper = chain7(&[("tcp.variant", "tcp_ap")], seed);
        let code = chain7(&[("tcp.variant", "tcp_ap"), ("tcp.ap.profile", "ns2")], seed);
        let g = |r: &RunReport| r.flows[0].goodput_bps;
        let t = |r: &RunReport| r.flows[0].tcp.clone().unwrap();
        println!(
            "7-hop chain, 2 Mb/s, seed {seed}: NewReno {:.0} b/s ({} retx, {} drops); TCP-AP paper {:.0} b/s ({} retx, {} drops); \
             TCP-AP ns-2 code {:.0} b/s ({} retx, {} drops)",
            g(&nr),
            t(&nr).retransmissions,
            drops(&nr, "total"),
            g(&paper),
            t(&paper).retransmissions,
            drops(&paper, "total"),
            g(&code),
            t(&code).retransmissions,
            drops(&code, "total"),
        );
        assert!(t(&nr).pacing.is_none(), "NewReno is not paced");
        // NewReno overruns the chain: a hundred MAC drops and dozens of
        // retransmissions in two minutes.
        assert!(drops(&nr, "total") > 50 && t(&nr).retransmissions > 50);
        for (name, r) in [("paper", &paper), ("ns2", &code)] {
            let tc = t(r);
            let p = tc.pacing.clone().expect("pacing statistics");
            println!(
                "  {name}: rate {:.1} pkt/s, FHD^ {:.1} ms, variation {:.3}, mean pacing delay {:.3} s, {} paced",
                p.rate_pps.unwrap(),
                1e3 * p.fhd_s.unwrap(),
                p.variation,
                p.mean_pacing_delay_s,
                p.paced_packets
            );
            // Every segment went through the pacer (none lost, none bypassed).
            assert_eq!(p.paced_packets + p.bypassed_packets, r.flows[0].packets_sent);
            assert!(p.rate_samples > 1000, "{p:?}");
            // At most a tenth of NewReno's drops and retransmissions.
            assert!(drops(r, "total") * 10 < drops(&nr, "total"), "{name}: {} drops", drops(r, "total"));
            assert!(tc.retransmissions * 10 < t(&nr).retransmissions, "{name}: {tc:?}");
            // Pacing, not the window, sets the pace: the window waits in the
            // pacing queue, and the goodput is the pacing rate's (within 15 %).
            assert!(p.mean_pacing_delay_s > 0.1 && p.max_queue >= 16, "{p:?}");
            let paced_bps = p.rate_pps.unwrap() * 1460.0 * 8.0;
            assert!(rel(g(r), paced_bps).abs() < 0.15, "{name}: goodput {} vs final rate {paced_bps}", g(r));
            // FHD^ on a 7-hop chain: four hops of one data + ACK exchange
            // each, tens of ms at 2 Mb/s.
            assert!((0.01..0.1).contains(&p.fhd_s.unwrap()), "{p:?}");
            // And it does not collapse: within ±25 % of NewReno.
            assert!(rel(g(r), g(&nr)).abs() < 0.25, "{name}: {} vs NewReno {}", g(r), g(&nr));
        }
    }
}

#[test]
fn tcp_ap_keys_are_validated_and_resolved() {
    let base = example("chain7.toml");
    // [tcp.ap] without a TCP-AP flow is checked, then left out of the
    // resolved scenario (so tcp.variant can be swept).
    let e = hoptcp_core::load_scenario(&base, &[("tcp.ap.alpha".into(), "1.5".into())]).unwrap_err();
    assert_eq!(e.key, "tcp.ap.alpha");
    let unused = hoptcp_core::load_scenario(&base, &[("tcp.ap.alpha".into(), "0.5".into())]).unwrap();
    let plain = hoptcp_core::load_scenario(&base, &[]).unwrap();
    assert_eq!(unused.canonical_json(), plain.canonical_json());
    let ok = |ov: &[(&str, &str)]| {
        let ov: Vec<(String, String)> = ov.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        hoptcp_core::load_scenario(&base, &ov)
    };
    let e = ok(&[("tcp.variant", "tcp_ap"), ("tcp.ap.alpha", "1.5")]).unwrap_err();
    assert_eq!(e.key, "tcp.ap.alpha");
    assert!(e.message.contains("1.5") && e.message.contains("[0, 1)"), "{e}");
    let e = ok(&[("tcp.variant", "tcp_ap"), ("tcp.ap.variation", "\"std\"")]).unwrap_err();
    assert_eq!(e.key, "tcp.ap.variation");
    assert!(e.message.contains("cov") && e.message.contains("mad"), "{e}");
    let e = ok(&[("tcp.variant", "tcp_ap"), ("tcp.ap.colour", "1")]).unwrap_err();
    assert!(e.message.contains("unknown key `tcp.ap.colour`"), "{e}");
    // The resolved scenario states every switch; the ns-2 profile sets the
    // code's values and single keys override them.
    let sc = ok(&[("tcp.variant", "tcp_ap"), ("tcp.ap.profile", "ns2"), ("tcp.ap.timer", "on_demand")]).unwrap();
    let json = resolved_ap(&sc).expect("[tcp.ap] resolved");
    assert_eq!(json["variation"], "mad");
    assert_eq!(json["short_path"], "one_hop");
    assert_eq!(json["overhead_bytes"], 112);
    assert_eq!(json["delay_bound_s"], 0.5);
    assert_eq!(json["timer"], "on_demand");
    assert_eq!(json["dupack_flush"], true);
    assert_eq!(json.as_object().unwrap().len(), 12, "{json}");
    // A scenario without TCP-AP has no `ap` in its canonical form.
    assert!(!plain.canonical_json().contains("\"ap\""));
    // A flow may use TCP-AP on its own.
    let sc = ok(&[("flows.0.variant", "tcp_ap")]).unwrap();
    assert_eq!(resolved_ap(&sc).expect("[tcp.ap] resolved")["variation"], "cov");
}

/// The resolved `[tcp.ap]` table, read from the canonical JSON.
fn resolved_ap(sc: &hoptcp_core::LoadedScenario) -> Option<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(&sc.canonical_json()).unwrap();
    v["tcp"].get("ap").cloned()
}
