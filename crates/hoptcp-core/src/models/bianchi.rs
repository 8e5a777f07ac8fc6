//! Bianchi's (2000) saturation throughput of n stations sharing one
//! collision domain, with RTS/CTS or basic access, and the mapping of ns-2's
//! DCF onto it.
//!
//! Model (G. Bianchi, "Performance analysis of the IEEE 802.11 distributed
//! coordination function", IEEE JSAC 18(3), 2000): every station is always
//! backlogged; each transmission attempt collides with a constant,
//! independent probability p. A station in backoff stage i draws a counter
//! uniformly among W_i values 0..W_i−1 and transmits when it reaches 0. The
//! per-slot attempt probability τ, as a function of p, is the number of
//! attempts per packet divided by the number of slots (counter values,
//! the attempt slot included) per packet:
//!
//! ```text
//! τ(p) = Σ_i π_i / Σ_i π_i·(W_i + 1)/2
//! ```
//!
//! with π_i the expected number of visits to stage i per packet: p^i for
//! i < m and p^m/(1 − p) for the last stage m (infinite retries, Bianchi), or
//! p^i for i = 0..K−1 when a packet is dropped after K attempts (Wu et al.
//! 2002, Chatzimisios et al. 2002; stage i uses W_min(i, m)). With
//! W_i = 2^i·W this is exactly Bianchi's eq. (7) ([`bianchi_tau_closed_form`])
//! or Wu's finite-retry form ([`wu_tau_closed_form`]); the sum form is used
//! because it takes ns-2's real windows and has no 1/(1−2p) singularity.
//! Coupled with p = 1 − (1 − τ)^(n−1), τ is the unique root of the strictly
//! increasing f(τ) = τ − τ(p(τ)) on (0, 1), found by bisection.
//!
//! Throughput (eq. 13): with P_tr = 1 − (1 − τ)^n and
//! P_s = nτ(1 − τ)^(n−1)/P_tr,
//!
//! ```text
//! S = P_s·P_tr·L / ((1 − P_tr)·σ + P_tr·P_s·T_s + P_tr·(1 − P_s)·T_c)
//! ```
//!
//! with L the payload bits, σ the slot, T_s and T_c the channel time of a
//! success and of a collision (see [`slot_durations`]).
//!
//! ns-2 mapping (see `docs/models.md`):
//! * backoff draw 0..cw−1: [`BackoffDraw::Ns2`] (W_i = cw_i = 31…1023, mean
//!   half a slot shorter per stage; at n = 1 exactly the single-hop cycle);
//!   [`BackoffDraw::Ns2Scaled`] is the W = CWmin shortcut in eq. (7);
//! * retry limit 7 (short retry counter, RTS attempts; basic-access DATA
//!   also counts on it): `retry_limit: Some(7)`, i.e. stages 0..6, the last
//!   two at cw = 1023;
//! * post-success backoff: ns-2 draws a fresh backoff after every ACK and the
//!   next packet waits for it, which is exactly Bianchi's saturated station
//!   (stage 0 after every success or drop);
//! * a collision leaves every station (colliders included: they receive the
//!   other frame while transmitting) with an errored frame, so NAV = EIFS,
//!   then DIFS before counting resumes: [`CollisionRecovery::Eifs`].

use super::common::{propagation_delay_s, Access, BackoffDraw, FrameTimes, UDP_IP_OVERHEAD_BYTES};
use super::ModelError;
use crate::mac::{FrameFormat, Standard, Timing};

/// Channel time after a collision before backoff counters run again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollisionRecovery {
    /// Bianchi (2000): T_c = collided frame + DIFS + δ.
    Difs,
    /// ns-2: the collided frame is received in error, NAV is set to EIFS,
    /// and the backoff resumes after a further DIFS:
    /// T_c = collided frame + δ + EIFS + DIFS (EIFS = 364 µs more than `Difs`
    /// for DSSS).
    Eifs,
}

/// Inputs of the saturation model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BianchiParams {
    /// PHY timing set: σ, SIFS, DIFS, EIFS, CWmin, CWmax, rates.
    pub timing: Timing,
    /// MAC frame sizes.
    pub format: FrameFormat,
    /// Number of saturated stations n (≥ 1).
    pub stations: u32,
    pub access: Access,
    /// Backoff draw, which fixes the per-stage windows W_i.
    pub draw: BackoffDraw,
    /// Transmission attempts per packet before it is dropped (ns-2's
    /// ShortRetryLimit, 7); `None` = retry forever (Bianchi).
    pub retry_limit: Option<u32>,
    pub collision: CollisionRecovery,
    /// Application payload per packet, bytes.
    pub payload_bytes: u32,
    /// IP + transport header bytes (UDP 28, TCP 40).
    pub ip_overhead_bytes: u32,
    /// One-way propagation delay δ, seconds.
    pub prop_delay_s: f64,
}

impl BianchiParams {
    /// Bianchi (2000) as published, with the papers' DSSS 2/1 Mb/s PHY and
    /// ns-2 frame sizes: standard draw (W = 32, m = 5), infinite retries,
    /// T_c with DIFS; UDP payload; δ for 200 m.
    pub fn classic(stations: u32, payload_bytes: u32) -> Self {
        BianchiParams {
            timing: Timing::new(Standard::Dsss, 2.0, 1.0),
            format: FrameFormat::Ns2,
            stations,
            access: Access::RtsCts,
            draw: BackoffDraw::Standard,
            retry_limit: None,
            collision: CollisionRecovery::Difs,
            payload_bytes,
            ip_overhead_bytes: UDP_IP_OVERHEAD_BYTES,
            prop_delay_s: propagation_delay_s(200.0),
        }
    }

    /// The same scenario with ns-2's DCF mapped on: ns-2 draw (W_i = cw_i),
    /// 7 attempts, EIFS after collisions.
    pub fn ns2(stations: u32, payload_bytes: u32) -> Self {
        BianchiParams {
            draw: BackoffDraw::Ns2,
            retry_limit: Some(7),
            collision: CollisionRecovery::Eifs,
            ..Self::classic(stations, payload_bytes)
        }
    }
}

/// Solution of the model. Durations in seconds, rates in bit/s.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BianchiResult {
    /// n.
    pub stations: u32,
    pub access: Access,
    pub draw: BackoffDraw,
    /// Attempts per packet before a drop; `None` = infinite.
    pub retry_limit: Option<u32>,
    pub collision: CollisionRecovery,
    /// Window sizes W_0..=W_m of the backoff stages.
    pub windows: Vec<u32>,
    /// m: the number of window doublings (index of the last stage).
    pub backoff_stages: u32,
    /// τ: probability that a station transmits in a given slot.
    pub tau: f64,
    /// p: conditional collision probability of an attempt, 1 − (1 − τ)^(n−1).
    pub p: f64,
    /// P_tr: probability that a slot holds at least one transmission.
    pub p_tr: f64,
    /// P_s: probability that a transmission in a slot is alone (a success).
    pub p_s: f64,
    /// Probability that a packet is dropped after `retry_limit` attempts, p^K
    /// (0 with infinite retries).
    pub drop_probability: f64,
    /// Sizes and frame durations used.
    pub frames: FrameTimes,
    /// σ.
    pub slot_s: f64,
    /// T_s: channel time of a successful transmission.
    pub ts_s: f64,
    /// T_c: channel time of a collision.
    pub tc_s: f64,
    /// E\[slot\] = (1 − P_tr)σ + P_tr·P_s·T_s + P_tr(1 − P_s)·T_c.
    pub mean_slot_s: f64,
    /// Aggregate application payload goodput of the n stations, bit/s.
    pub goodput_bps: f64,
    /// Goodput of one station, `goodput_bps / n`.
    pub per_station_bps: f64,
    /// Bianchi's normalised throughput S: goodput / data rate.
    pub normalized: f64,
    /// Bisection steps taken.
    pub iterations: u32,
}

/// τ(p): per-slot attempt probability of a station whose attempts collide
/// with probability `p`, for stage windows `windows` = [W_0, …, W_m] and at
/// most `retry_limit` attempts per packet (`None`: infinite).
pub fn attempt_probability(windows: &[u32], retry_limit: Option<u32>, p: f64) -> f64 {
    let m = windows.len() - 1;
    let half = |i: usize| (windows[i.min(m)] as f64 + 1.0) / 2.0;
    let (mut num, mut den, mut pi) = (0.0, 0.0, 1.0);
    match retry_limit {
        Some(k) => {
            for i in 0..k.max(1) as usize {
                num += pi;
                den += pi * half(i);
                pi *= p;
            }
        }
        None => {
            // Multiplied through by (1 − p) so that p → 1 stays finite.
            for i in 0..m {
                num += pi * (1.0 - p);
                den += pi * (1.0 - p) * half(i);
                pi *= p;
            }
            num += pi;
            den += pi * half(m);
        }
    }
    num / den
}

#[cfg(test)] // only the unit tests read it
/// Bianchi's eq. (7): τ for W_i = 2^i·W, m doublings, infinite retries.
/// Singular at p = 1/2 (removable); use [`attempt_probability`] in code.
pub fn bianchi_tau_closed_form(w: f64, m: u32, p: f64) -> f64 {
    let q = 2.0 * p;
    2.0 * (1.0 - q) / ((1.0 - q) * (w + 1.0) + p * w * (1.0 - q.powi(m as i32)))
}

#[cfg(test)] // only the unit tests read it
/// Wu et al. (2002) finite-retry τ for W_i = 2^min(i,m)·W with at most
/// `retries` retransmissions (m' = attempts − 1). Singular at p = 1/2.
pub fn wu_tau_closed_form(w: f64, m: u32, retries: u32, p: f64) -> f64 {
    let q = 2.0 * p;
    let num = 2.0 * (1.0 - q) * (1.0 - p.powi(retries as i32 + 1));
    let den = if retries <= m {
        w * (1.0 - q.powi(retries as i32 + 1)) * (1.0 - p) + (1.0 - q) * (1.0 - p.powi(retries as i32 + 1))
    } else {
        w * (1.0 - q.powi(m as i32 + 1)) * (1.0 - p)
            + (1.0 - q) * (1.0 - p.powi(retries as i32 + 1))
            + w * 2f64.powi(m as i32) * p.powi(m as i32 + 1) * (1.0 - q) * (1.0 - p.powi((retries - m) as i32))
    };
    num / den
}

/// (T_s, T_c) in seconds for the access mode and collision recovery:
///
/// * RTS/CTS: T_s = RTS + SIFS + δ + CTS + SIFS + δ + DATA + SIFS + δ + ACK
///   + DIFS + δ; T_c = RTS + DIFS + δ (Bianchi) or RTS + δ + EIFS + DIFS (ns-2);
/// * basic: T_s = DATA + SIFS + δ + ACK + DIFS + δ; T_c = DATA + DIFS + δ or
///   DATA + δ + EIFS + DIFS.
pub fn slot_durations(f: &FrameTimes, access: Access, collision: CollisionRecovery) -> (f64, f64) {
    let ts = f.exchange_s(access) + f.difs_s;
    let first = match access {
        Access::RtsCts => f.rts_s,
        Access::Basic => f.data_s,
    };
    let tc = match collision {
        CollisionRecovery::Difs => first + f.difs_s + f.prop_s,
        CollisionRecovery::Eifs => first + f.prop_s + f.eifs_s + f.difs_s,
    };
    (ts, tc)
}

/// Solve the fixed point and return the saturation throughput.
pub fn saturation_throughput(params: &BianchiParams) -> Result<BianchiResult, ModelError> {
    let n = params.stations;
    if n == 0 {
        return Err(ModelError::InvalidParameter("stations must be at least 1".into()));
    }
    if params.retry_limit == Some(0) {
        return Err(ModelError::InvalidParameter("retry_limit must be at least 1 attempt".into()));
    }
    if !(params.prop_delay_s >= 0.0 && params.prop_delay_s.is_finite()) {
        return Err(ModelError::InvalidParameter("prop_delay_s must be finite and >= 0".into()));
    }
    let t = &params.timing;
    if t.cw_min == 0 || t.cw_max < t.cw_min {
        return Err(ModelError::InvalidParameter("need 1 <= cw_min <= cw_max".into()));
    }
    let windows = params.draw.stage_windows(t.cw_min, t.cw_max);
    let coll = |tau: f64| 1.0 - (1.0 - tau).powi(n as i32 - 1);
    // f(τ) = τ − τ(p(τ)) is strictly increasing, f(0) < 0 < f(1).
    let (mut lo, mut hi, mut iterations) = (0.0f64, 1.0f64, 0u32);
    while iterations < 200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        iterations += 1;
        if mid - attempt_probability(&windows, params.retry_limit, coll(mid)) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let tau = 0.5 * (lo + hi);
    let p = coll(tau);
    let p_tr = 1.0 - (1.0 - tau).powi(n as i32);
    let p_s = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / p_tr;
    let frames = FrameTimes::new(t, params.format, params.payload_bytes, params.ip_overhead_bytes, params.prop_delay_s);
    let (ts, tc) = slot_durations(&frames, params.access, params.collision);
    let mean_slot = (1.0 - p_tr) * frames.slot_s + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc;
    let goodput = p_s * p_tr * frames.payload_bits() / mean_slot;
    Ok(BianchiResult {
        stations: n,
        access: params.access,
        draw: params.draw,
        retry_limit: params.retry_limit,
        collision: params.collision,
        backoff_stages: windows.len() as u32 - 1,
        windows,
        tau,
        p,
        p_tr,
        p_s,
        drop_probability: params.retry_limit.map_or(0.0, |k| p.powi(k as i32)),
        frames,
        slot_s: frames.slot_s,
        ts_s: ts,
        tc_s: tc,
        mean_slot_s: mean_slot,
        goodput_bps: goodput,
        per_station_bps: goodput / n as f64,
        normalized: goodput / frames.data_rate_bps,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::single_hop::{single_hop, SingleHopParams};

    fn solve(p: BianchiParams) -> BianchiResult {
        saturation_throughput(&p).unwrap()
    }

    #[test]
    fn sum_form_matches_closed_forms() {
        let std_w = BackoffDraw::Standard.stage_windows(31, 1023);
        let scaled = BackoffDraw::Ns2Scaled.stage_windows(31, 1023);
        for &p in &[0.0, 0.05, 0.2, 0.37, 0.49, 0.51, 0.8, 0.95] {
            let a = attempt_probability(&std_w, None, p);
            assert!((a - bianchi_tau_closed_form(32.0, 5, p)).abs() < 1e-12, "p={p}");
            let a = attempt_probability(&scaled, None, p);
            assert!((a - bianchi_tau_closed_form(31.0, 5, p)).abs() < 1e-12, "p={p}");
            // 7 attempts = 6 retransmissions (m' = 6 > m = 5), and 4 attempts (m' = 3 < m).
            let a = attempt_probability(&std_w, Some(7), p);
            assert!((a - wu_tau_closed_form(32.0, 5, 6, p)).abs() < 1e-12, "p={p}");
            let a = attempt_probability(&std_w, Some(4), p);
            assert!((a - wu_tau_closed_form(32.0, 5, 3, p)).abs() < 1e-12, "p={p}");
        }
        // p = 1, infinite retries: the station stays in the last stage.
        assert!((attempt_probability(&std_w, None, 1.0) - 2.0 / 1025.0).abs() < 1e-15);
    }

    #[test]
    fn fixed_point_is_solved() {
        for n in [2, 5, 10, 20, 50, 200] {
            for params in [BianchiParams::classic(n, 1000), BianchiParams::ns2(n, 1000)] {
                let r = solve(params);
                let w = &r.windows;
                let again = attempt_probability(w, r.retry_limit, r.p);
                assert!((r.tau - again).abs() < 1e-14, "n={n}");
                assert!((r.p - (1.0 - (1.0 - r.tau).powi(n as i32 - 1))).abs() < 1e-15);
                assert!(r.iterations <= 60);
            }
        }
    }

    #[test]
    fn tau_decreases_and_p_increases_with_n() {
        for mk in [BianchiParams::classic, BianchiParams::ns2] {
            let mut last: Option<BianchiResult> = None;
            for n in 1..=60 {
                let r = solve(mk(n, 1000));
                if let Some(l) = &last {
                    assert!(r.tau < l.tau, "n={n}");
                    assert!(r.p > l.p, "n={n}");
                }
                last = Some(r);
            }
        }
    }

    #[test]
    fn single_station_is_the_single_hop_cycle() {
        let sh = single_hop(&SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0));
        // ns-2 draw: identical to the exact cycle (15 idle slots per packet).
        let r = solve(BianchiParams::ns2(1, 1460));
        assert_eq!(r.p, 0.0);
        assert!((r.tau - 2.0 / 32.0).abs() < 1e-15);
        assert!((r.goodput_bps - sh.goodput_bps).abs() < 1e-6 * sh.goodput_bps);
        assert!((r.goodput_bps - 1_532_272.170_718_9).abs() < 1e-2);
        // Classic draw: 15.5 idle slots, 10 µs longer cycle: 0.13 % lower.
        let c = solve(BianchiParams::classic(1, 1460));
        let rel = (sh.goodput_bps - c.goodput_bps) / sh.goodput_bps;
        assert!(rel > 0.0 && rel < 0.002, "rel={rel}");
        assert!((c.goodput_bps - 11680.0 / (7630e-6 + 800.0 / 3e8)).abs() < 1e-3);
    }

    /// The numbers quoted in docs/models.md: 1000 B UDP payload (IP 1028 B,
    /// MAC 1062 B, DATA 4440 µs), 2 Mb/s data, 1 Mb/s basic, RTS/CTS, 200 m.
    #[test]
    fn key_numbers_1000_byte_udp() {
        let table: [(u32, f64, f64, f64); 4] = [
            // n, classic, ns-2 draw only, ns-2 (draw + 7 attempts + EIFS)
            (5, 1_427_342.575, 1_427_509.183, 1_417_577.796),
            (10, 1_425_449.090, 1_425_344.143, 1_407_377.184),
            (20, 1_417_844.005, 1_417_670.641, 1_389_487.952),
            (50, 1_401_227.165, 1_401_053.853, 1_353_298.630),
        ];
        for (n, classic, draw_only, ns2) in table {
            let c = solve(BianchiParams::classic(n, 1000));
            let d = solve(BianchiParams { draw: BackoffDraw::Ns2, ..BianchiParams::classic(n, 1000) });
            let s = solve(BianchiParams::ns2(n, 1000));
            assert!((c.goodput_bps - classic).abs() < 0.01, "n={n} {}", c.goodput_bps);
            assert!((d.goodput_bps - draw_only).abs() < 0.01, "n={n} {}", d.goodput_bps);
            assert!((s.goodput_bps - ns2).abs() < 0.01, "n={n} {}", s.goodput_bps);
        }
        let c = solve(BianchiParams::classic(10, 1000));
        assert!((c.tau - 0.037_305_08).abs() < 1e-8 && (c.p - 0.289_771).abs() < 1e-6);
        assert!((c.ts_s - (5480e-6 + 800.0 / 3e8)).abs() < 1e-12);
        assert!((c.tc_s - (402e-6 + 200.0 / 3e8)).abs() < 1e-12);
        let s = solve(BianchiParams::ns2(10, 1000));
        assert!((s.tc_s - (766e-6 + 200.0 / 3e8)).abs() < 1e-12);
        assert!((s.drop_probability - 1.856e-4).abs() < 1e-7);
    }

    #[test]
    fn rts_cts_goodput_is_nearly_flat_in_n() {
        // Spread over n = 2..50: 1.85 % classic, 4.60 % ns-2 (EIFS collisions).
        type Make = fn(u32, u32) -> BianchiParams;
        let cases: [(Make, f64); 2] = [(BianchiParams::classic, 0.025), (BianchiParams::ns2, 0.05)];
        for (mk, bound) in cases {
            let g: Vec<f64> = (2..=50).map(|n| solve(mk(n, 1000)).goodput_bps).collect();
            let max = g.iter().cloned().fold(f64::MIN, f64::max);
            let min = g.iter().cloned().fold(f64::MAX, f64::min);
            assert!((max - min) / max < bound, "spread {}", (max - min) / max);
        }
    }

    #[test]
    fn basic_access_degrades_faster_than_rts_cts() {
        let mut b5 = BianchiParams::classic(5, 1000);
        b5.access = Access::Basic;
        let mut b50 = BianchiParams::classic(50, 1000);
        b50.access = Access::Basic;
        let drop_basic = 1.0 - solve(b50).goodput_bps / solve(b5).goodput_bps;
        let drop_rts = 1.0
            - solve(BianchiParams::classic(50, 1000)).goodput_bps / solve(BianchiParams::classic(5, 1000)).goodput_bps;
        assert!(drop_basic > 0.15 && drop_basic > 3.0 * drop_rts, "{drop_basic} {drop_rts}");
    }

    #[test]
    fn finite_retries_drop_p_to_the_k() {
        let r = solve(BianchiParams::ns2(20, 1000));
        assert!((r.drop_probability - r.p.powi(7)).abs() < 1e-18);
        assert_eq!(r.backoff_stages, 5);
        assert_eq!(r.windows, vec![31, 63, 127, 255, 511, 1023]);
        let c = solve(BianchiParams::classic(20, 1000));
        assert_eq!(c.drop_probability, 0.0);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(saturation_throughput(&BianchiParams::classic(0, 1000)).is_err());
        let mut p = BianchiParams::ns2(5, 1000);
        p.retry_limit = Some(0);
        assert!(saturation_throughput(&p).is_err());
    }
}
