//! Hybrid wired/wireless networks (`[wired]`) and TCP-GAP at the Internet
//! gateway (`[wired.tcp_gap]`, ElRakabawy et al. 2008).
//!
//! Wired links are checked against their analytic capacity; routing across
//! the gateway under static routes and AODV; TCP-GAP on the paper's Fig. 3
//! chain (examples/gap-chain.toml) in both directions and Goodput Control
//! on its Fig. 5 parallel chains (examples/gap-parallel.toml). Numbers are
//! printed whatever they are; the assertions check what the mechanisms must
//! do.

mod common;
use common::*;
use hoptcp_core::load_scenario;
use hoptcp_core::RunReport;

/// A 2-hop chain (0 – 1 – 2), gateway 2, wired nodes 3, 4, 5: 2 – 3 at
/// 10 Mb/s, 3 – 4 at 2 Mb/s with a 10-packet queue, 3 – 5 at 10 Mb/s.
const HYBRID: &str = r#"duration_s = 20
seed = 1

[topology]
kind = "chain"
hops = 2
spacing_m = 200

[wired]
delay_ms = 5

[[wired.links]]
a = 2
b = 3
bandwidth_mbps = 10

[[wired.links]]
a = 3
b = 4
bandwidth_mbps = 2
queue_limit = 10

[[wired.links]]
a = 3
b = 5
bandwidth_mbps = 10
"#;

fn hybrid(flows: &str, ov: &[(&str, &str)]) -> RunReport {
    let ov: Vec<(&str, String)> = ov.iter().map(|(k, v)| (*k, v.to_string())).collect();
    run(&format!("{HYBRID}\n{flows}"), &ov)
}

#[test]
fn a_wired_bottleneck_delivers_its_line_rate_and_drops_the_rest() {
    // 4 Mb/s of 1000-byte datagrams (1028 B IP) from wired node 5 to 4:
    // the 2 Mb/s link carries 2e6 / (8 · 1028) packets/s and its drop-tail
    // queue refuses the rest.
    let r = hybrid(&cbr(5, 4, 4e6, 1000), &[]);
    let f = &r.flows[0];
    let w = r.wired.as_ref().expect("wired report");
    let expect = 2e6 * 1000.0 / 1028.0;
    println!("wired bottleneck: {:.0} b/s (line rate {expect:.0}); {w:?}", f.goodput_bps);
    assert!(rel(f.goodput_bps, expect).abs() < 0.01, "{} vs {expect}", f.goodput_bps);
    let l34 = &w.links[1];
    assert_eq!((l34.a, l34.b), (3, 4));
    // Every packet sent is delivered, dropped at node 3's full queue, or
    // still on its way (≤ 9 waiting + 1 on the line + 1 in propagation
    // + a couple on the first link).
    let in_flight = f.packets_sent - f.packets_delivered - l34.a_to_b.drops;
    assert!(in_flight <= 14, "{in_flight} unaccounted");
    assert!(l34.a_to_b.drops > f.packets_sent / 3, "{:?}", l34.a_to_b);
    assert_eq!(l34.a_to_b.queue_max, 9, "ns-2's limit: limit − 1 wait");
    assert_eq!(w.link_drops, l34.a_to_b.drops);
    assert_eq!(w.node_drops["3"], l34.a_to_b.drops);
    assert_eq!(drops(&r, "queue_overflow"), l34.a_to_b.drops);
    // Nothing touches the air or the other links' reverse directions.
    assert_eq!(w.links[0].a_to_b.packets_sent + w.links[0].b_to_a.packets_sent, 0);
    assert!(r.nodes.iter().all(|n| n.mac_packets == 0));
    // The line was busy all the time after the first packet.
    assert!((l34.a_to_b.busy_s - 20.0).abs() < 0.05, "{}", l34.a_to_b.busy_s);
    assert_eq!(f.hops, 2);
}

#[test]
fn wireless_and_wired_nodes_reach_each_other_through_the_gateway() {
    // 100 kb/s each way between wireless node 0 and wired node 4 (2 + 2
    // hops), under static routes and AODV: all delivered, each packet on
    // both wired links once.
    let flows = format!("{}{}", cbr(0, 4, 1e5, 500), cbr(4, 0, 1e5, 500));
    for protocol in ["static", "aodv"] {
        let r = hybrid(&flows, &[("routing.protocol", protocol)]);
        let w = r.wired.as_ref().unwrap();
        println!(
            "{protocol}: {:?} {:?}",
            r.flows.iter().map(|f| (f.packets_sent, f.packets_delivered)).collect::<Vec<_>>(),
            w.links
        );
        for f in &r.flows {
            assert_eq!(f.hops, 4);
            assert!(f.packets_sent >= 499 && f.packets_delivered + 2 >= f.packets_sent, "{protocol}: {f:?}");
        }
        assert_eq!(drops(&r, "total"), 0, "{protocol}: {:?}", r.drops);
        for l in &w.links[..2] {
            assert_eq!(
                l.a_to_b.packets_sent,
                r.flows[0].packets_delivered.max(l.a_to_b.packets_sent.min(r.flows[0].packets_sent))
            );
            assert!(l.b_to_a.packets_sent >= r.flows[1].packets_delivered);
        }
        assert_eq!(w.links[2].a_to_b.packets_sent + w.links[2].b_to_a.packets_sent, 0, "node 5 is off the path");
        if protocol == "aodv" {
            let rt = r.routing.as_ref().unwrap();
            // Node 0 discovers the gateway; the gateway discovers node 0
            // for the wired source (or learns it from 0's request).
            assert!(rt.totals.rreq_sent >= 1 && rt.totals.rrep_sent >= 1, "{rt:?}");
        }
    }
}

fn gap_chain(ov: &[(&str, &str)], seed: u64) -> RunReport {
    let mut all: Vec<(&str, String)> = vec![("duration_s", "150".into())];
    all.extend(ov.iter().map(|(k, v)| (*k, v.to_string())));
    run_seed(&example("gap-chain.toml"), &all, seed)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn tcp_gap_beats_newreno_on_the_chain_to_a_wired_host_both_ways() {
    // Fig. 3 with 7 wireless hops: A (0) … IG (7) – RT1 – RT2 – B (10).
    for (src, dst) in [("0", "10"), ("10", "0")] {
        let wired_sender = src == "10";
        let (mut nr, mut gap, mut ap_alone) = (vec![], vec![], vec![]);
        for seed in 1..=2 {
            let base = [("flows.0.src", src), ("flows.0.dst", dst)];
            let with = |extra: &[(&'static str, &'static str)]| {
                let mut o = base.to_vec();
                o.extend_from_slice(extra);
                gap_chain(&o, seed)
            };
            let n = with(&[("flows.0.variant", "newreno"), ("wired.tcp_gap.enabled", "false")]);
            // TCP-GAP: the wireless sender runs TCP-AP, a wired one is
            // unmodified NewReno paced by the gateway.
            let g = with(&[("flows.0.variant", if wired_sender { "newreno" } else { "tcp_ap" })]);
            let gw = g.wired.as_ref().unwrap().tcp_gap.as_ref().expect("gateway stats");
            assert_eq!(gw.flows.len(), 1);
            let gf = &gw.flows[0];
            let sent = g.flows[0].packets_sent;
            if wired_sender {
                // Every data packet went into the gateway's pacing queue (of
                // awnd = 32 packets): released, dropped when full, or waiting.
                assert!(gf.paced && gf.max_queue <= 32, "{gf:?}");
                assert!(gf.paced_packets <= gf.data_packets, "{gf:?}");
                assert!(gf.paced_packets + gf.queue_drops + 32 >= gf.data_packets, "{gf:?}");
                assert!(gf.data_packets + 40 >= sent && gf.rtt_samples > sent / 2, "{sent} sent: {gf:?}");
                assert!(gf.rate_pps.unwrap() > 10.0, "{gf:?}");
            } else {
                // RTT_wired written into (almost) every ACK, and the sender's
                // FHD^ is far below TCP-AP's without it.
                assert!(!gf.paced && gf.rtt_samples * 100 >= gf.acks * 99 && gf.acks > sent / 2, "{gf:?}");
                let a = with(&[("wired.tcp_gap.enabled", "false")]);
                let fhd = |r: &RunReport| r.flows[0].tcp.as_ref().unwrap().pacing.as_ref().unwrap().fhd_s.unwrap();
                println!("  seed {seed}: FHD^ {:.1} ms with RTT_wired, {:.1} ms without", 1e3 * fhd(&g), 1e3 * fhd(&a));
                assert!(fhd(&g) * 2.0 < fhd(&a));
                ap_alone.push(a.flows[0].goodput_bps);
            }
            nr.push(n.flows[0].goodput_bps);
            gap.push(g.flows[0].goodput_bps);
        }
        println!(
            "{src} → {dst}: NewReno {:.0} kb/s {nr:.0?}; TCP-GAP {:.0} kb/s {gap:.0?}; TCP-AP without the gateway {ap_alone:.0?}",
            mean(&nr) / 1e3,
            mean(&gap) / 1e3
        );
        assert!(mean(&gap) > mean(&nr), "TCP-GAP below NewReno");
    }
}

#[test]
fn goodput_control_throttles_the_wired_sender_on_parallel_chains() {
    // Fig. 5: FTP 1 from wired B (13) to A1 (0), FTP 2 from A2 (5) to B.
    let par = |ov: &[(&str, &str)], seed: u64| {
        let mut all: Vec<(&str, String)> = vec![("duration_s", "150".into())];
        all.extend(ov.iter().map(|(k, v)| (*k, v.to_string())));
        run_seed(&example("gap-parallel.toml"), &all, seed)
    };
    let (mut off, mut on) = (vec![], vec![]);
    for seed in 1..=2 {
        let nr = par(&[("flows.1.variant", "newreno"), ("wired.tcp_gap.enabled", "false")], seed);
        let a = par(&[("wired.tcp_gap.goodput_control", "false")], seed);
        let b = par(&[], seed);
        let gw = |r: &RunReport| r.wired.as_ref().unwrap().tcp_gap.clone().unwrap();
        let show = |r: &RunReport| {
            format!(
                "{:.0} + {:.0} kb/s, Jain {:.3}",
                r.flows[0].goodput_bps / 1e3,
                r.flows[1].goodput_bps / 1e3,
                r.fairness_jain.unwrap()
            )
        };
        println!(
            "seed {seed}: NewReno {}; TCP-GAP {}; with Goodput Control {} ({} throttles, {} cancels)",
            show(&nr),
            show(&a),
            show(&b),
            gw(&b).throttles,
            gw(&b).cancels
        );
        assert_eq!(gw(&a).control_periods, 0);
        assert_eq!(gw(&a).throttles, 0);
        // Every 5 s from the first packet (at about 0.05 s) to 150 s.
        assert_eq!(gw(&b).control_periods, 29);
        // Only the wired-to-wireless flow can be throttled.
        let fl = gw(&b).flows;
        assert_eq!(fl.iter().find(|f| f.key.src == 5).unwrap().throttles, 0);
        off.push(a.flows[0].goodput_bps);
        on.push(b.flows[0].goodput_bps);
        assert!(gw(&b).throttles > 0);
    }
    // Throttling takes goodput from FTP 1.
    assert!(mean(&on) < mean(&off), "FTP 1: {on:?} with control, {off:?} without");
}

fn reject(text: &str, ov: &[(&str, &str)]) -> hoptcp_core::ScenarioError {
    let o: Vec<(String, String)> = ov.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    match load_scenario(text, &o) {
        Ok(_) => panic!("accepted {ov:?}"),
        Err(e) => {
            println!("{:<28} | {}", e.key, e.message);
            assert!(!e.message.contains('\n'));
            e
        }
    }
}

#[test]
fn bad_wired_tables_get_one_clear_error() {
    let base = format!("{HYBRID}\n{}", cbr(0, 4, 1e5, 500));
    // (overrides, key named, words the message must contain)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a [&'a str]);
    let cases: &[Case] = &[
        (&[("wired.gateway", "3")], "wired.gateway", &["3", "0..=2"]),
        (&[("wired.nodes", "3"), ("wired.links.1.b", "7")], "wired.links.1.b", &["7", "3..=5"]),
        (&[("wired.links.1.b", "2")], "wired.links.1.b", &["repeats"]),
        (&[("wired.links.2.a", "5")], "wired.links.2.b", &["itself"]),
        (&[("wired.nodes", "4")], "wired.links", &["node 6 is not connected"]),
        (&[("wired.links.0.bandwidth_mbps", "0")], "wired.links.0.bandwidth_mbps", &["positive"]),
        (&[("wired.queue_limit", "1")], "wired.queue_limit", &["2..="]),
        (&[("wired.tcp_gap.aging", "-0.1")], "wired.tcp_gap.aging", &[">= 0", "additive"]),
        (
            &[("wired.tcp_gap.aging_rule", "\"multiplicative\""), ("wired.tcp_gap.aging", "0.5")],
            "wired.tcp_gap.aging",
            &[">= 1", "multiplicative"],
        ),
        (&[("wired.tcp_gap.aging_rule", "\"linear\"")], "wired.tcp_gap.aging_rule", &["additive", "multiplicative"]),
        (&[("wired.tcp_gap.period_s", "0")], "wired.tcp_gap.period_s", &["positive"]),
        (&[("wired.colour", "1")], "wired.colour", &["unknown key", "gateway"]),
        (&[("flows.0.dst", "6")], "flows.0.dst", &["0..=2", "wired 3..=5"]),
        (&[("flows.0.route", "[0, 1, 2]")], "flows.0.route", &["wired"]),
    ];
    for (ov, key, says) in cases {
        let e = reject(&base, ov);
        assert_eq!(&e.key, key, "{ov:?}: {}", e.message);
        assert!(e.message.contains(key), "{}", e.message);
        for s in *says {
            assert!(e.message.contains(s), "{ov:?}: lacks {s:?}: {}", e.message);
        }
    }
    // Without a chain, the gateway must be named.
    let grid = base.replace("kind = \"chain\"\nhops = 2", "kind = \"grid\"\nrows = 1\ncols = 3");
    let e = reject(&grid, &[]);
    assert_eq!(e.key, "wired.gateway");
    assert!(load_scenario(&grid, &[("wired.gateway".into(), "2".into())]).is_ok());
}
