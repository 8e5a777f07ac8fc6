//! Hidden and exposed terminals on short lines of nodes.
//!
//! Geometry (default radio: decode ≤ 250 m, carrier sense ≤ 550 m): with
//! 200 m spacing the two ends of a three-node line are 400 m apart, so by
//! default they *sense* each other (as undecodable frames, followed by
//! EIFS). A true hidden pair needs the carrier-sense range cut to the
//! transmission range (`radio.cs_range_m = 250`).

mod common;
use common::*;
use hoptcp_core::RunReport;
use serde_json::json;

const DURATION_S: f64 = 30.0;

/// Nodes 0 — 1 — 2, `spacing` apart; both ends send saturated 1460 B CBR to
/// the middle.
fn two_to_middle(spacing: f64, cs_range: f64, rts_threshold: u32, seed: u64) -> RunReport {
    let mut s = format!(
        "duration_s = {DURATION_S}\nseed = {seed}\n[topology]\nkind = \"chain\"\nhops = 2\nspacing_m = {spacing}\n\
         [radio]\ncs_range_m = {cs_range}\n[mac]\nrts_threshold_bytes = {rts_threshold}\n"
    );
    s += &cbr(0, 1, 2e6, 1460);
    s += &cbr(2, 1, 2e6, 1460);
    run(&s, &[])
}

/// Fraction of a node's RTSs that got no CTS.
fn rts_failure(r: &RunReport, node: usize) -> f64 {
    let m = &r.nodes[node].mac;
    m.cts_timeouts as f64 / m.rts_sent as f64
}

fn single_hop_model(access: &str) -> f64 {
    model("single_hop", json!({ "access": access }), "goodput_bps")
}

#[test]
fn hidden_senders_lose_rts_frames_at_the_receiver() {
    let r = two_to_middle(200.0, 250.0, 0, 1);
    let (f0, f2) = (rts_failure(&r, 0), rts_failure(&r, 2));
    let mid = &r.nodes[1].mac;
    let g = r.aggregate_goodput_bps;
    let single = single_hop_model("rts_cts");
    println!(
        "hidden, RTS/CTS: RTS failure {:.1} % / {:.1} %, collisions at the middle {}, retry drops {}, \
         goodput {g:.0} b/s ({:.1} % of single hop)",
        100.0 * f0,
        100.0 * f2,
        mid.rx_collisions,
        drops(&r, "mac_rts_retry"),
        100.0 * g / single
    );
    // The senders cannot hear each other: their RTSs overlap at node 1
    // whenever one starts while the other's RTS is on the air.
    assert!(f0 > 0.15 && f2 > 0.15, "RTS failure {f0} / {f2}");
    assert!(mid.rx_collisions > 1000, "collisions at the middle: {}", mid.rx_collisions);
    // The ends never see each other's frames, so they never record a collision.
    assert_eq!(r.nodes[0].mac.rx_collisions + r.nodes[2].mac.rx_collisions, 0);
    assert!(drops(&r, "mac_rts_retry") > 0, "seven RTS failures in a row never happened");
    // The CTS still protects the DATA: no DATA frame is lost.
    assert_eq!(r.nodes[0].mac.ack_timeouts + r.nodes[2].mac.ack_timeouts, 0);
    assert!(g < 0.99 * single, "goodput {g} not below the single-hop {single}");
}

#[test]
fn hidden_senders_without_rts_cts_collapse() {
    // Basic access: a collision now destroys a whole 6 ms DATA frame.
    let r = two_to_middle(200.0, 250.0, 3000, 1);
    let g = r.aggregate_goodput_bps;
    let single = single_hop_model("basic");
    let (s0, s2) = (&r.nodes[0].mac, &r.nodes[2].mac);
    println!(
        "hidden, basic access: ACK timeouts {}/{} and {}/{} DATA, goodput {g:.0} b/s ({:.1} % of single hop)",
        s0.ack_timeouts,
        s0.data_sent,
        s2.ack_timeouts,
        s2.data_sent,
        100.0 * g / single
    );
    assert_eq!(s0.rts_sent + s2.rts_sent, 0);
    assert!(s0.ack_timeouts * 2 > s0.data_sent && s2.ack_timeouts * 2 > s2.data_sent, "{s0:?} {s2:?}");
    assert!(g < 0.25 * single, "hidden basic access kept {g} of {single}");
    // RTS/CTS recovers most of it.
    let with_rts = two_to_middle(200.0, 250.0, 0, 1).aggregate_goodput_bps;
    assert!(with_rts > 4.0 * g, "RTS/CTS {with_rts} vs basic {g}");
}

#[test]
fn within_range_collisions_nearly_vanish() {
    let hidden = two_to_middle(200.0, 250.0, 0, 1);
    // All three within 250 m of each other: only same-slot RTS collisions
    // remain, as in Bianchi's model with two stations.
    let close = two_to_middle(100.0, 550.0, 0, 1);
    // Default carrier sense at 200 m spacing: the ends sense each other's
    // frames (400 m < 550 m) and, after each exchange, the loser waits EIFS
    // while the winner waits DIFS; their slot boundaries then differ by half
    // a slot and a same-slot collision cannot happen.
    let sensed = two_to_middle(200.0, 550.0, 0, 1);

    let bianchi = hoptcp_core::models::evaluate(
        "bianchi",
        &json!({"stations": 2, "payload_bytes": 1460, "variant": "ns2", "distance_m": 100.0}),
    )
    .unwrap();
    let p2 = bianchi["p"].as_f64().unwrap();
    let g2 = bianchi["goodput_bps"].as_f64().unwrap();
    let fail = |r: &RunReport| (rts_failure(r, 0) + rts_failure(r, 2)) / 2.0;
    println!(
        "RTS failure: hidden {:.2} %, within range {:.2} % (Bianchi n=2: {:.2} %), sensed ends {:.2} %; \
         collisions at the middle {} / {} / {}",
        100.0 * fail(&hidden),
        100.0 * fail(&close),
        100.0 * p2,
        100.0 * fail(&sensed),
        hidden.nodes[1].mac.rx_collisions,
        close.nodes[1].mac.rx_collisions,
        sensed.nodes[1].mac.rx_collisions,
    );
    assert!(fail(&close) < fail(&hidden) / 3.0, "within range {} vs hidden {}", fail(&close), fail(&hidden));
    assert!(rel(fail(&close), p2).abs() < 0.25, "within range {} vs Bianchi p {p2}", fail(&close));
    assert!(close.nodes[1].mac.rx_collisions * 3 < hidden.nodes[1].mac.rx_collisions);
    assert_eq!(drops(&close, "mac_rts_retry"), 0);
    assert!(fail(&sensed) < 0.01, "sensed ends still collide: {}", fail(&sensed));
    assert!(sensed.nodes[1].mac.rx_collisions < 50);
    // Two stations sharing one channel without hidden terminals get the
    // Bianchi n = 2 goodput (which exceeds one station's: backoffs overlap).
    for (what, r) in [("within range", &close), ("sensed ends", &sensed)] {
        let g = r.aggregate_goodput_bps;
        assert!(rel(g, g2).abs() < 0.03, "{what}: {g} vs Bianchi n=2 {g2}");
        assert!(g > hidden.aggregate_goodput_bps, "{what}: {g} not above the hidden case");
        assert!(r.fairness_jain.unwrap() > 0.99);
    }
}

/// Nodes 0 — 1 — 2 — 3, 200 m apart, with two flows.
fn four_line(flows: [(u32, u32); 2], seed: u64) -> RunReport {
    let mut s =
        format!("duration_s = {DURATION_S}\nseed = {seed}\n[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n");
    for (a, b) in flows {
        s += &cbr(a, b, 2e6, 1460);
    }
    run(&s, &[])
}

#[test]
fn receiver_under_nav_withholds_its_cts() {
    // 0 → 1 and 3 → 2. Node 1 decodes node 2's CTS (to 3) and sets its NAV
    // for 3's DATA; node 0 is 600 m from 3 and 400 m from 2, so it hears
    // neither 3's DATA nor more than an EIFS after 2's CTS, and sends its
    // RTS to 1 while 1's NAV is set: 1 must stay silent, 0 times out.
    let r = four_line([(0, 1), (3, 2)], 1);
    let n = &r.nodes;
    println!(
        "0→1, 3→2: CTS withheld at 1: {}, at 2: {}; CTS timeouts at 0: {}, at 3: {}; goodput {:.0} / {:.0}",
        n[1].mac.cts_withheld,
        n[2].mac.cts_withheld,
        n[0].mac.cts_timeouts,
        n[3].mac.cts_timeouts,
        r.flows[0].goodput_bps,
        r.flows[1].goodput_bps
    );
    for (rx, tx) in [(1, 0), (2, 3)] {
        assert!(n[rx].mac.cts_withheld > 20, "node {rx} never withheld a CTS: {:?}", n[rx].mac);
        // Every withheld CTS is a CTS timeout at the sender (which has more,
        // from RTSs lost in collisions with the other pair's frames).
        assert!(n[tx].mac.cts_timeouts >= n[rx].mac.cts_withheld);
        assert!(n[tx].mac.cts_timeouts > 0);
        // Senders never receive an RTS, so never withhold.
        assert_eq!(n[tx].mac.cts_withheld, 0);
    }
}

#[test]
fn exposed_senders_defer_but_never_withhold() {
    // Control: 1 → 0 and 2 → 3. The receivers are 600 m apart and each is
    // 400 m from the other pair's sender: an RTS never reaches a receiver
    // whose NAV is set, so no CTS is withheld and no RTS fails.
    let r = four_line([(1, 0), (2, 3)], 1);
    let withheld: u64 = r.nodes.iter().map(|x| x.mac.cts_withheld).sum();
    let timeouts: u64 = r.nodes.iter().map(|x| x.mac.cts_timeouts).sum();
    println!("1→0, 2→3: CTS withheld {withheld}, CTS timeouts {timeouts}, aggregate {:.0}", r.aggregate_goodput_bps);
    assert_eq!(withheld, 0);
    assert!(timeouts < 10, "{timeouts} CTS timeouts");
    // The exposed-terminal cost: senders 1 and 2 hear each other's RTS and
    // defer, although both transmissions could succeed together. The pair
    // gets no more than one link's worth (the two-station value) ...
    let single = single_hop_model("rts_cts");
    assert!(r.aggregate_goodput_bps < 1.05 * single, "{} vs {single}", r.aggregate_goodput_bps);
    // ... while the same two links 1000 m apart carry twice that.
    let mut s = format!(
        "duration_s = {DURATION_S}\nseed = 1\n[topology]\nkind = \"explicit\"\n\
         positions = [[0, 0], [200, 0], [1200, 0], [1400, 0]]\n"
    );
    s += &cbr(1, 0, 2e6, 1460);
    s += &cbr(2, 3, 2e6, 1460);
    let apart = run(&s, &[]);
    assert!(apart.aggregate_goodput_bps > 1.95 * single, "{} vs 2 × {single}", apart.aggregate_goodput_bps);
    assert!(
        apart.aggregate_goodput_bps > 1.8 * r.aggregate_goodput_bps,
        "independent links {} vs exposed {}",
        apart.aggregate_goodput_bps,
        r.aggregate_goodput_bps
    );
}

#[test]
fn retry_limit_drops_are_counted_per_link() {
    // Both hidden senders lose frames to the retry limit, on their own link
    // to the middle only; the per-link counts add up to the per-cause totals.
    for rts_threshold in [0, 3000] {
        let r = two_to_middle(200.0, 250.0, rts_threshold, 1);
        let links: Vec<(u32, u32)> = r.link_drops.iter().map(|l| (l.from, l.to)).collect();
        assert_eq!(links, vec![(0, 1), (2, 1)], "RTS threshold {rts_threshold}");
        assert!(r.link_drops.iter().all(|l| l.udp > 0 && l.tcp_data + l.tcp_ack + l.aodv == 0));
        let per_link: u64 = r.link_drops.iter().map(|l| l.udp).sum();
        assert_eq!(per_link, drops(&r, "mac_rts_retry") + drops(&r, "mac_data_retry"));
        assert_eq!(r.link_drops[0].id, "0-1");
    }
    // Within carrier-sense range nothing reaches the retry limit: no entries.
    let r = two_to_middle(200.0, 550.0, 0, 1);
    assert_eq!(drops(&r, "mac_rts_retry") + drops(&r, "mac_data_retry") == 0, r.link_drops.is_empty());
}
