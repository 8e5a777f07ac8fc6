//! Exact goodput of one saturated sender to one receiver over one hop, with
//! no contention: the renewal cycle of ns-2's DCF.
//!
//! With a backlogged queue, ns-2 starts a post-transmission backoff when the
//! ACK arrives (cw reset to CWmin); the MAC is then busy (transmit state) so
//! the backoff starts frozen and resumes after DIFS; the next packet waits for
//! it and goes out when it expires. One cycle (RTS/CTS) is therefore
//!
//! ```text
//! DIFS + B·σ + RTS + δ + SIFS + CTS + δ + SIFS + DATA + δ + SIFS + ACK + δ
//! ```
//!
//! with B the mean backoff ((CWmin − 1)/2 = 15 slots for ns-2's draw in
//! 0..cw−1) and δ the one-way propagation delay. Basic access drops the RTS,
//! the CTS, two SIFS and two δ. Goodput = payload bits / cycle.

use super::common::{propagation_delay_s, Access, BackoffDraw, FrameTimes};
#[cfg(test)]
use crate::mac::Standard;
use crate::mac::{FrameFormat, Timing};

/// Inputs of the single-hop cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingleHopParams {
    /// PHY timing set and rates.
    pub timing: Timing,
    /// MAC frame sizes.
    pub format: FrameFormat,
    pub access: Access,
    /// Backoff draw (ns-2: 0..cw−1).
    pub draw: BackoffDraw,
    /// Application payload per packet, bytes (e.g. 1460).
    pub payload_bytes: u32,
    /// IP + transport header bytes (UDP 28, TCP 40).
    pub ip_overhead_bytes: u32,
    /// Sender–receiver distance, metres (δ = distance / 3·10⁸ m/s).
    pub distance_m: f64,
}

impl SingleHopParams {
    #[cfg(test)] // only the unit tests read it
    /// The papers' ns-2 setting: DSSS, 2 Mb/s data, 1 Mb/s basic rate, ns-2
    /// frame sizes, RTS/CTS, ns-2 backoff draw.
    pub fn ns2(payload_bytes: u32, ip_overhead_bytes: u32, distance_m: f64) -> Self {
        SingleHopParams {
            timing: Timing::new(Standard::Dsss, 2.0, 1.0),
            format: FrameFormat::Ns2,
            access: Access::RtsCts,
            draw: BackoffDraw::Ns2,
            payload_bytes,
            ip_overhead_bytes,
            distance_m,
        }
    }
}

/// One cycle of the saturated single-hop exchange and the goodput it gives.
/// All durations in seconds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SingleHop {
    pub access: Access,
    pub draw: BackoffDraw,
    /// Sizes and frame durations used.
    pub frames: FrameTimes,
    /// DIFS before the backoff countdown.
    pub difs_s: f64,
    /// Mean backoff in slots, (W_0 − 1)/2.
    pub backoff_slots: f64,
    /// Mean backoff time, `backoff_slots`·σ.
    pub backoff_s: f64,
    /// Sum of the SIFS gaps (3 with RTS/CTS, 1 basic).
    pub sifs_total_s: f64,
    /// Sum of the propagation delays (4δ with RTS/CTS, 2δ basic).
    pub propagation_total_s: f64,
    /// Mean cycle: DIFS + backoff + frames + SIFS gaps + propagation.
    pub cycle_s: f64,
    /// Packets delivered per second, 1 / cycle.
    pub packets_per_s: f64,
    /// Application payload goodput, bit/s.
    pub goodput_bps: f64,
}

/// The saturated single-hop cycle and goodput for `p`.
pub fn single_hop(p: &SingleHopParams) -> SingleHop {
    let prop = propagation_delay_s(p.distance_m);
    let frames = FrameTimes::new(&p.timing, p.format, p.payload_bytes, p.ip_overhead_bytes, prop);
    let backoff_slots = p.draw.mean_first_backoff_slots(p.timing.cw_min);
    let backoff_s = backoff_slots * frames.slot_s;
    let (n_sifs, n_prop) = match p.access {
        Access::RtsCts => (3.0, 4.0),
        Access::Basic => (1.0, 2.0),
    };
    let cycle_s = frames.difs_s + backoff_s + frames.exchange_s(p.access);
    SingleHop {
        access: p.access,
        draw: p.draw,
        frames,
        difs_s: frames.difs_s,
        backoff_slots,
        backoff_s,
        sifs_total_s: n_sifs * frames.sifs_s,
        propagation_total_s: n_prop * prop,
        cycle_s,
        packets_per_s: 1.0 / cycle_s,
        goodput_bps: frames.payload_bits() / cycle_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::common::{TCP_IP_OVERHEAD_BYTES, UDP_IP_OVERHEAD_BYTES};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    #[test]
    fn default_udp_rts_cts() {
        // 1460 B UDP payload → 1488 B IP → 1522 B MAC; 2 Mb/s data, 1 Mb/s basic, 200 m.
        // DIFS 50 + backoff 15×20 = 300 + RTS 352 + CTS 304 + DATA 6280 + ACK 304
        // + 3 SIFS 30 = 7620 µs, plus 4 × 200/3e8 s = 2.6667 µs → 7622.6667 µs.
        let r = single_hop(&SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0));
        assert!(close(r.cycle_s, 7620e-6 + 800.0 / 3e8, 1e-12));
        assert!(close(r.cycle_s, 7.622_666_666_7e-3, 1e-10));
        assert!(close(r.goodput_bps, 11680.0 / (7620e-6 + 800.0 / 3e8), 1e-12));
        // 11680 bit / 7622.6667 µs = 1 532 272.17 bit/s.
        assert!((r.goodput_bps - 1_532_272.170_718_9).abs() < 1e-3);
        assert_eq!(r.backoff_slots, 15.0);
        assert!(close(r.propagation_total_s, 2.666_666_666_7e-6, 1e-9));
    }

    #[test]
    fn default_udp_basic() {
        // DIFS 50 + 300 + DATA 6280 + SIFS 10 + ACK 304 = 6944 µs + 2δ.
        let mut p = SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0);
        p.access = Access::Basic;
        let r = single_hop(&p);
        assert!(close(r.cycle_s, 6944e-6 + 400.0 / 3e8, 1e-12));
        assert!(close(r.goodput_bps, 11680.0 / (6944e-6 + 400.0 / 3e8), 1e-12));
        assert!((r.goodput_bps - 1_681_704.741_793).abs() < 1e-2);
    }

    #[test]
    fn tcp_and_standard_draw() {
        // TCP: 1500 B IP → 1534 B MAC → DATA 6328 µs; cycle 7668 µs + 4δ.
        let r = single_hop(&SingleHopParams::ns2(1460, TCP_IP_OVERHEAD_BYTES, 200.0));
        assert!(close(r.cycle_s, 7668e-6 + 800.0 / 3e8, 1e-12));
        assert!((r.goodput_bps - 1_522_683.817_139).abs() < 1e-2);
        // The standard draw (0..=cw) waits half a slot more on average.
        let mut p = SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0);
        p.draw = BackoffDraw::Standard;
        let r = single_hop(&p);
        assert!(close(r.cycle_s, 7630e-6 + 800.0 / 3e8, 1e-12));
    }

    fn with_timing(standard: Standard, data: f64, basic: f64) -> SingleHopParams {
        SingleHopParams {
            timing: Timing::new(standard, data, basic),
            ..SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0)
        }
    }

    #[test]
    fn dsss_11_mbps_by_hand() {
        // 802.11b at 11 Mb/s as ns-2 times it: DIFS 50 + 15 × 20 + RTS 352 +
        // CTS 304 + DATA (192 + 1522 × 8 / 11 = 1298.909 µs) + ACK 304 +
        // 3 SIFS 30 = 2638.909 µs, + 4δ.
        let r = single_hop(&with_timing(Standard::Dsss, 11.0, 1.0));
        let data = 192e-6 + 12176.0 / 11e6;
        assert!((r.frames.data_s - data).abs() < 1e-9);
        let cycle = (50.0 + 300.0 + 352.0 + 304.0 + 304.0 + 30.0) * 1e-6 + data + 800.0 / 3e8;
        // (The simulator's times are whole nanoseconds: DATA is 1298.909 µs.)
        assert!((r.cycle_s - cycle).abs() < 1e-9, "{} vs {cycle}", r.cycle_s);
        // 11680 bit per 2.6416 ms: 4.42 Mb/s, 40 % of the 11 Mb/s rate.
        assert!((r.goodput_bps - 11680.0 / cycle).abs() < 10.0);
        assert!((4.41e6..4.43e6).contains(&r.goodput_bps), "{}", r.goodput_bps);
    }

    #[test]
    fn erp_54_mbps_by_hand() {
        // 802.11g ERP-OFDM, 54/6 Mb/s: DIFS 28 + 7 × 9 = 63 (ns-2 draw from
        // cw 15) + RTS 58 + CTS 50 + DATA (1522 B: 12198 bits, 57 symbols:
        // 20 + 228 + 6 = 254) + ACK 50 + 3 SIFS 30 = 533 µs, + 4δ.
        let r = single_hop(&with_timing(Standard::Erp, 54.0, 6.0));
        assert_eq!(r.backoff_slots, 7.0);
        assert!((r.frames.data_s - 254e-6).abs() < 1e-12);
        let cycle = 533e-6 + 800.0 / 3e8;
        assert!(close(r.cycle_s, cycle, 1e-12), "{} vs {cycle}", r.cycle_s);
        assert!(close(r.goodput_bps, 11680.0 / cycle, 1e-12));
        // 21.8 Mb/s: the 54 Mb/s rate loses 60 % to preambles, gaps and backoff.
        assert!((21.7e6..21.9e6).contains(&r.goodput_bps), "{}", r.goodput_bps);
    }

    #[test]
    fn ns2_g_54_mbps_by_hand() {
        // ns-2's "54 Mb/s": 802.11b MAC timing, DSSS PLCP on every frame,
        // control frames at 1 Mb/s: DIFS 50 + 300 + RTS 352 + CTS 304 +
        // DATA (192 + 12176 / 54 = 417.481 µs) + ACK 304 + 30 = 1757.481 µs.
        let r = single_hop(&with_timing(Standard::Ns2G, 54.0, 1.0));
        let cycle = (50.0 + 300.0 + 352.0 + 304.0 + 304.0 + 30.0 + 192.0) * 1e-6 + 12176.0 / 54e6 + 800.0 / 3e8;
        assert!((r.cycle_s - cycle).abs() < 1e-9, "{} vs {cycle}", r.cycle_s);
        // 6.64 Mb/s, less than a third of the ERP cycle's 21.8 Mb/s.
        assert!((6.6e6..6.7e6).contains(&r.goodput_bps), "{}", r.goodput_bps);
        let erp = single_hop(&with_timing(Standard::Erp, 54.0, 6.0));
        assert!(erp.goodput_bps > 3.0 * r.goodput_bps);
    }
}
