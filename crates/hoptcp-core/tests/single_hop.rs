//! One saturated sender, one receiver 200 m away: the simulated goodput is
//! the exact DCF renewal cycle of `models::single_hop` (docs/models.md §1).

mod common;
use common::*;
use serde_json::json;

/// 2 Mb/s data, 1 Mb/s basic rate, 1460 B CBR payloads offered at 3 Mb/s
/// (well above capacity: the queue is never empty).
fn scenario(duration_s: f64, extra: &str, transport_block: &str) -> String {
    format!(
        "duration_s = {duration_s}\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 1\nspacing_m = 200\n\
         [radio]\ndata_rate_mbps = 2\nbasic_rate_mbps = 1\n{extra}\n{transport_block}"
    )
}

fn udp() -> String {
    cbr(0, 1, 3e6, 1460)
}

// Statistical budget: the per-packet backoff is U{0..30} slots, σ = 8.94
// slots = 179 µs per 7.62 ms cycle; over 100 s (≈13 100 cycles) the mean
// cycle has σ ≈ 1.6 µs, i.e. 0.02 % of goodput. 0.2 % is 10σ.
const STAT_TOL: f64 = 0.002;

#[test]
fn rts_cts_goodput_matches_the_cycle_model() {
    let model = model("single_hop", json!({}), "goodput_bps");
    assert!((model - 1_532_272.17).abs() < 1.0, "model moved: {model}");
    let r = run(&scenario(100.0, "", &udp()), &[]);
    let f = &r.flows[0];
    let err = rel(f.goodput_bps, model);
    println!("single hop RTS/CTS: sim {:.0} b/s, model {model:.0} b/s ({:+.4} %)", f.goodput_bps, 100.0 * err);
    assert!(err.abs() < 0.01, "outside 1 %: sim {} vs model {model}", f.goodput_bps);
    assert!(err.abs() < STAT_TOL, "outside the statistical budget: sim {} vs model {model}", f.goodput_bps);

    // Alone on the channel, nothing is ever lost: each RTS gets its CTS, each
    // DATA its ACK, and the only drops are at the (overloaded) queue.
    let (s, d) = (&r.nodes[0], &r.nodes[1]);
    assert_eq!(s.mac.cts_timeouts + s.mac.ack_timeouts + s.mac.retries + s.mac_drops, 0, "{s:?}");
    assert_eq!(s.mac.rts_sent, s.mac.data_sent);
    assert_eq!(d.mac.cts_sent, s.mac.rts_sent);
    assert!(s.mac.packets_acked + 1 >= s.mac.data_sent && s.mac.packets_acked <= s.mac.data_sent);
    assert_eq!(d.mac.rx_collisions + s.mac.rx_collisions, 0);
    assert!(s.backlog_frac > 0.999, "sender not saturated: {}", s.backlog_frac);
    assert_eq!(drops(&r, "total"), drops(&r, "queue_overflow"));
    assert!(drops(&r, "queue_overflow") > 0, "3 Mb/s offered must overflow the queue");
    assert_eq!(f.packets_delivered, s.mac.packets_acked);
}

#[test]
fn basic_access_matches_the_cycle_model() {
    let model = model("single_hop", json!({"access": "basic"}), "goodput_bps");
    let rts = model_rts();
    // Basic access saves RTS + CTS + 2 SIFS: about 10 % more goodput.
    assert!(model > rts * 1.08 && model < rts * 1.12, "basic {model} vs rts {rts}");
    // A threshold above the 1522-byte DATA frame turns RTS/CTS off.
    let r = run(&scenario(100.0, "[mac]\nrts_threshold_bytes = 3000", &udp()), &[]);
    let (s, d) = (&r.nodes[0], &r.nodes[1]);
    assert_eq!(s.mac.rts_sent + d.mac.cts_sent, 0, "RTS/CTS used despite the threshold: {s:?}");
    assert!(s.mac.data_sent > 10_000);
    let g = r.flows[0].goodput_bps;
    let err = rel(g, model);
    println!("single hop basic access: sim {g:.0} b/s, model {model:.0} b/s ({:+.4} %)", 100.0 * err);
    assert!(err.abs() < 0.01, "outside 1 %: sim {g} vs model {model}");
    // Cycle 6.94 ms, same backoff σ: 0.2 % is still ≥ 10σ.
    assert!(err.abs() < STAT_TOL, "outside the statistical budget: sim {g} vs model {model}");
}

fn model_rts() -> f64 {
    model("single_hop", json!({"access": "rts_cts"}), "goodput_bps")
}

#[test]
fn tcp_at_one_hop_is_below_udp() {
    let tcp_flow = "[[flows]]\nsrc = 0\ndst = 1\ntransport = \"tcp\"\n";
    let tcp = run(&scenario(100.0, "[tcp]\npayload_bytes = 1460\nmax_window = 20", tcp_flow), &[]);
    let udp = run(&scenario(100.0, "", &udp()), &[]);
    let (gt, gu) = (tcp.flows[0].goodput_bps, udp.flows[0].goodput_bps);
    // The TCP model counts the 40-byte TCP/IP header but not the ACK stream,
    // so it bounds TCP from above; the ACKs contend for the same channel.
    let tcp_model = model("single_hop", json!({"transport": "tcp"}), "goodput_bps");
    println!("one hop: TCP {gt:.0} b/s, UDP {gu:.0} b/s, TCP data-only bound {tcp_model:.0} b/s");
    assert!(gt < gu, "TCP {gt} not below UDP {gu}");
    assert!(gt < tcp_model * 0.95, "TCP {gt} should pay for its ACKs (bound {tcp_model})");
    assert!(gt > 0.5 * gu, "TCP collapsed at one hop: {gt}");

    let f = &tcp.flows[0];
    let t = f.tcp.as_ref().expect("tcp stats");
    // Nothing is lost at one hop with RTS/CTS: no retransmissions at all.
    assert_eq!((t.retransmissions, t.timeouts), (0, 0), "{t:?}");
    assert_eq!(drops(&tcp, "total"), 0);
    // One ACK per segment (no delayed ACKs).
    assert!(t.acks_sent + 2 >= f.packets_delivered && t.acks_sent <= f.packets_delivered + 2, "{t:?}");
    // Two stations: a CTS timeout only happens when both sent their RTS in
    // the same slot, so both count the same timeouts, and every RTS that was
    // not lost that way was followed by a DATA frame.
    let (a, b) = (&tcp.nodes[0], &tcp.nodes[1]);
    assert_eq!(a.mac.cts_timeouts, b.mac.cts_timeouts);
    assert!(a.mac.cts_timeouts > 0, "data and ACK senders never collided");
    assert_eq!(a.mac.rts_sent - a.mac.cts_timeouts, a.mac.data_sent);
    assert_eq!(b.mac.rts_sent - b.mac.cts_timeouts, b.mac.data_sent);
    // Data flows 0 → 1, TCP ACKs 1 → 0.
    assert_eq!(a.mac.data_sent, b.mac.ack_sent);
    assert_eq!(b.mac.data_sent, a.mac.ack_sent);
}

#[test]
fn rts_threshold_compares_with_the_mac_frame_size() {
    // A 1460 B UDP payload makes a 1488 B IP packet and, with ns-2's 34 B of
    // MAC header and FCS, a 1522 B DATA frame. Frames at least as long as the
    // threshold get RTS/CTS.
    let rts_at = |threshold: u32| {
        let r = run(&scenario(2.0, &format!("[mac]\nrts_threshold_bytes = {threshold}"), &udp()), &[]);
        let s = &r.nodes[0].mac;
        assert!(s.data_sent > 100);
        (s.rts_sent, s.data_sent)
    };
    let (rts, data) = rts_at(1522);
    assert_eq!(rts, data, "threshold = frame size: every DATA needs an RTS");
    let (rts, _) = rts_at(1523);
    assert_eq!(rts, 0, "threshold above the frame size: basic access");
}

#[test]
fn other_rates_formats_and_sizes_match_the_model() {
    // Same renewal cycle with other timing sets: each case changes the slot,
    // SIFS/DIFS, PLCP, rates, header sizes or payload.
    let cases: [(&str, serde_json::Value, &str); 8] = [
        (
            "OFDM 54/6, RTS/CTS",
            json!({"standard": "ofdm", "data_rate_mbps": 54.0, "basic_rate_mbps": 6.0}),
            "[radio]\nstandard = \"ofdm\"\ndata_rate_mbps = 54\nbasic_rate_mbps = 6\n",
        ),
        (
            "OFDM 54/6, basic access",
            json!({"standard": "ofdm", "data_rate_mbps": 54.0, "basic_rate_mbps": 6.0, "access": "basic"}),
            "[radio]\nstandard = \"ofdm\"\ndata_rate_mbps = 54\nbasic_rate_mbps = 6\n[mac]\nrts_threshold_bytes = 3000\n",
        ),
        ("DSSS 11/1", json!({"data_rate_mbps": 11.0}), "[radio]\ndata_rate_mbps = 11\n"),
        (
            "ERP 54/6 (802.11g OFDM, signal extension)",
            json!({"standard": "erp", "data_rate_mbps": 54.0, "basic_rate_mbps": 6.0}),
            "[radio]\nstandard = \"erp\"\n",
        ),
        (
            "ERP 11/2 (802.11g CCK)",
            json!({"standard": "erp", "data_rate_mbps": 11.0, "basic_rate_mbps": 2.0}),
            "[radio]\nstandard = \"erp\"\ndata_rate_mbps = 11\nbasic_rate_mbps = 2\n",
        ),
        (
            "ns-2's 54/1 (DSSS PLCP at every rate)",
            json!({"standard": "ns2_g", "data_rate_mbps": 54.0, "basic_rate_mbps": 1.0}),
            "[radio]\nstandard = \"ns2_g\"\n",
        ),
        ("802.11-2016 headers", json!({"frame_format": "standard"}), "[mac]\nframe_format = \"standard\"\n"),
        ("512 B payload", json!({"payload_bytes": 512}), ""),
    ];
    for (what, params, extra) in cases {
        let m = model("single_hop", params.clone(), "goodput_bps");
        let bytes = params.get("payload_bytes").and_then(|v| v.as_u64()).unwrap_or(1460) as u32;
        let text = format!(
            "duration_s = 60\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 1\nspacing_m = 200\n{extra}\n{}",
            cbr(0, 1, 1e8, bytes)
        );
        let r = run(&text, &[]);
        let g = r.flows[0].goodput_bps;
        println!("{what}: sim {g:.0} b/s, model {m:.0} b/s ({:+.3} %)", 100.0 * rel(g, m));
        assert_eq!(r.nodes[0].mac.cts_timeouts + r.nodes[0].mac.ack_timeouts, 0, "{what}");
        // Worst case DSSS 11 Mb/s: a 2.64 ms cycle with backoff σ = 179 µs
        // (6.8 %), ≈ 22 700 cycles in 60 s: σ of the mean 0.045 %; 0.3 % ≈ 6.7σ.
        // ERP 54: 533 µs cycle, σ = 4.3 slots × 9 µs (7.3 %), 112 000 cycles:
        // 0.022 %; ns2_g 54: 1.76 ms, σ 10 %, 34 000 cycles: 0.055 %.
        assert!(rel(g, m).abs() < 0.003, "{what}: sim {g} vs model {m}");
    }
}

#[test]
fn ns2_timing_at_2_11_and_54_mbps_matches_ns2_35() {
    // validation/ns2/timing: ns-2.35 itself (single-hop.tcl, results.txt)
    // on one saturated hop with 1460-byte IP packets, 1 Mb/s basic rate.
    // ns-2 times "54Mb" with the DSSS PLCP and 802.11b MAC timing: hoptcp's
    // "ns2_g". Packets/s within 0.3 % (both runs carry 0.06 % of backoff noise).
    let path = manifest_dir().join("../../validation/ns2/timing/results.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (data, basic) = (w[0].trim_end_matches("Mb"), w[1].trim_end_matches("Mb"));
        let ns2_per_s: f64 = w[5].parse().unwrap();
        let standard = if data == "54" { "ns2_g" } else { "dsss" };
        let toml = format!(
            "duration_s = 60\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 1\nspacing_m = 200\n\
             [radio]\nstandard = \"{standard}\"\ndata_rate_mbps = {data}\nbasic_rate_mbps = {basic}\n\
             [stats]\nwarmup_s = 1\n{}",
            cbr(0, 1, 1e8, 1432)
        );
        let r = run(&toml, &[]);
        let per_s = r.flows[0].goodput_bps / (1432.0 * 8.0);
        println!(
            "{standard} {data}/{basic} Mb/s: hoptcp {per_s:.2} packets/s, ns-2.35 {ns2_per_s:.2} ({:+.3} %)",
            100.0 * rel(per_s, ns2_per_s)
        );
        assert!(rel(per_s, ns2_per_s).abs() < 0.003, "{line}: hoptcp {per_s}");
        cases += 1;
    }
    assert_eq!(cases, 3);
}
