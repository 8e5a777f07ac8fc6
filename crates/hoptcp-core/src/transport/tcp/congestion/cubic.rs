//! CUBIC (RFC 9438) with HyStart++ (RFC 9406) in slow start, over the
//! NewReno loss recovery hoptcp's other variants use (`newreno.rs`).
//!
//! Window growth in congestion avoidance follows RFC 9438 section 4, in
//! packets and seconds:
//!   W_cubic(t) = C (t - K)^3 + W_max,  K = cbrt((W_max - cwnd_epoch) / C),
//! t counted from the epoch's start (the first ACK of congestion avoidance
//! after a reduction). Per ACK, cwnd grows by (target - cwnd) / cwnd
//! towards target = W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd]; where
//! W_cubic(t) is below the Reno-friendly estimate W_est (which grows by
//! alpha_cubic per window), cwnd follows W_est. A congestion event (fast
//! retransmit, ECN-Echo, timeout) sets ssthresh = max(beta_cubic w, 2)
//! with w the window at the event, remembers W_max (fast convergence:
//! W_max = w (1 + beta) / 2 if w fell short of the last W_max) and ends
//! the epoch.
//!
//! Slow start is HyStart++ (RFC 9406, not paced, so no per-ACK limit L):
//! rounds end when the ACK passes the highest packet sent at the round's
//! start; with N_RTT_SAMPLE samples in a round, a round minimum RTT above
//! the last round's by RttThresh (its eighth, clamped to [4, 16] ms) moves
//! to Conservative Slow Start (cwnd += 1/4 per ACK), which returns to slow
//! start if the RTT falls below the baseline, or ends in congestion
//! avoidance (ssthresh = cwnd) after CSS_ROUNDS rounds.
//!
//! The RTT samples are the echoed send times of the acknowledged segments
//! (the `Ack::rtt` the sender computes); RTT for the target is their
//! RFC 6298 smoothed mean.
//!
//! This is the `rfc9438` profile (`tcp.cubic.profile`, the default). The
//! `ns2_linux` profile (`cubic/ns2_linux.rs`) is ns-2.35's
//! `Agent/TCP/Linux` + `select_ca cubic` (Linux 2.6.22's tcp_cubic.c v2.1
//! in tcp/linux/src, run by tcp-linux.cc) behind a plain `TCPSink`; what
//! it does differently:
//! - beta = 819/1024 (~0.8, not 0.7): ssthresh = max(cwnd 0.8, 2), fast
//!   convergence W_max = 0.9 cwnd; C = 410/1024 (bic_scale 41, x10).
//! - Integer cwnd grown by one every `cnt` ACKs, cnt = cwnd / (target -
//!   cwnd), the target taken at t + delay_min (the minimum timestamp RTT;
//!   0 without timestamps), not t + srtt; time in jiffies (1 ms), the curve
//!   in 1/1024 s, cnt recomputed at most every 32 ms while cwnd holds; at
//!   most max_increment 16 packets per 0.1 s past the plateau (with
//!   timestamps only); cnt scaled by a tracked packets-per-ACK ratio that
//!   starts at 2 and, in integers, settles at 31/16.
//! - Before the first loss since the last reset (loss_cwnd 0) cnt = 50:
//!   one packet per 50 ACKs above ssthresh. Slow start while cwnd <=
//!   ssthresh (ABC), no HyStart (Linux 2.6.29 added it); growth only when
//!   cwnd-limited (in flight >= cwnd).
//! - TCP-friendliness: a Reno estimate that gains a packet every
//!   cwnd * 23 / 8 ACKs (8 (1024 + 819) / 3 / (1024 - 819) in integers),
//!   not alpha_cubic per RTT.
//! - Recovery is TCP-Linux's own: a SACK scoreboard (ScoreBoard1) decides
//!   what is lost; behind a plain sink it never sees a loss, so there is no
//!   fast retransmit: every loss ends in a timeout (duplicate ACKs re-arm
//!   the timer). A timeout resets every CUBIC variable (W_max included:
//!   bictcp_state on TCP_CA_Loss), cwnd = 1, and leaving Loss sets cwnd =
//!   max(cwnd, ssthresh) moderated to in flight + 3. The RTO clock ticks in
//!   jiffies (tcp_tick_ = 1 ms once a CA module is installed), not 10 ms;
//!   the setup segment goes with the initial window (delay_growth_ false).
//! - With `tcp.sack` (behind `TCPSink/Sack1`) that scoreboard sees the
//!   holes: TCP-Linux's Recovery with rate halving (`cubic/ns2_linux_sack.rs`,
//!   the scoreboard in `cubic/linux_scoreboard.rs`).

mod linux_scoreboard;
pub(super) mod ns2_linux;
pub(super) mod ns2_linux_sack;

use super::super::state::{CwndAction, SenderState};
use super::newreno::NewReno;
use super::reno::{on_dupack_common, timeout_common};
use super::{Ack, Controller};
use crate::engine::time::to_secs;
use crate::engine::{Time, NS_PER_MS};

/// RFC 9438 constants.
pub(super) const C: f64 = 0.4;
pub(super) const BETA: f64 = 0.7;

/// alpha_cubic = 3 (1 - beta) / (1 + beta): Reno's average rate at beta.
pub(super) fn alpha() -> f64 {
    3.0 * (1.0 - BETA) / (1.0 + BETA)
}

/// K (seconds): the time W_cubic takes from cwnd_epoch back to W_max.
pub(super) fn k(w_max: f64, cwnd_epoch: f64) -> f64 {
    ((w_max - cwnd_epoch) / C).cbrt()
}

/// W_cubic(t) in packets, t seconds into the epoch.
pub(super) fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    C * (t - k).powi(3) + w_max
}

/// RFC 9406 constants.
const MIN_RTT_THRESH: Time = 4 * NS_PER_MS;
const MAX_RTT_THRESH: Time = 16 * NS_PER_MS;
const MIN_RTT_DIVISOR: Time = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

/// Where slow start stands (RFC 9406 section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    SlowStart,
    /// Conservative Slow Start, with its rounds so far.
    Css(u32),
    /// Congestion avoidance (slow start has ended once for good).
    Avoidance,
}

/// HyStart++'s per-round RTT bookkeeping.
#[derive(Clone, Debug)]
pub(super) struct HyStart {
    pub phase: Phase,
    /// The round ends when an ACK passes this packet.
    window_end: i64,
    last_round_min: Option<Time>,
    current_round_min: Option<Time>,
    samples: u32,
    css_baseline: Option<Time>,
}

impl HyStart {
    fn new() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            window_end: 0,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_baseline: None,
        }
    }

    /// One ACK while cwnd < ssthresh: returns the cwnd increment.
    pub fn on_ack(&mut self, core: &mut SenderState, ack: i64, rtt: Option<Time>) -> f64 {
        if ack > self.window_end {
            // A round ends: the next one lasts until what is sent now is acknowledged.
            self.last_round_min = self.current_round_min.take();
            self.samples = 0;
            self.window_end = core.maxseq;
            if let Phase::Css(n) = self.phase {
                if n + 1 >= CSS_ROUNDS {
                    self.phase = Phase::Avoidance;
                    core.ssthresh = core.cwnd;
                    return 0.0;
                }
                self.phase = Phase::Css(n + 1);
            }
        }
        if let Some(r) = rtt {
            self.current_round_min = Some(self.current_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        match self.phase {
            Phase::SlowStart => {
                if let (Some(cur), Some(last)) = (self.current_round_min, self.last_round_min) {
                    let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                    if self.samples >= N_RTT_SAMPLE && cur >= last + thresh {
                        self.css_baseline = Some(cur);
                        self.phase = Phase::Css(0);
                        return 1.0 / CSS_GROWTH_DIVISOR;
                    }
                }
                1.0
            }
            Phase::Css(_) => {
                if let (Some(cur), Some(base)) = (self.current_round_min, self.css_baseline) {
                    if self.samples >= N_RTT_SAMPLE && cur < base {
                        // The RTT increase was spurious: back to slow start.
                        self.css_baseline = None;
                        self.phase = Phase::SlowStart;
                        return 1.0;
                    }
                }
                1.0 / CSS_GROWTH_DIVISOR
            }
            Phase::Avoidance => 0.0,
        }
    }

    /// A congestion event ends slow start and CSS.
    fn on_congestion(&mut self) {
        self.phase = Phase::Avoidance;
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    recovery: NewReno,
    pub(super) hystart: HyStart,
    /// Window before the last reduction (packets); 0 before any.
    pub(super) w_max: f64,
    pub(super) k: f64,
    /// Start of the current epoch; None until congestion avoidance resumes.
    pub(super) epoch_start: Option<Time>,
    pub(super) cwnd_epoch: f64,
    /// The Reno-friendly window estimate and the cwnd it aims back at.
    pub(super) w_est: f64,
    cwnd_prior: f64,
    /// Smoothed RTT (RFC 6298) of the echoed send times, seconds.
    srtt: Option<f64>,
    /// Epochs begun so far (for the trace features: one per reduction).
    pub(super) epochs: u64,
}

impl Cubic {
    pub fn new() -> Self {
        Cubic {
            recovery: NewReno::default(),
            hystart: HyStart::new(),
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            srtt: None,
            epochs: 0,
        }
    }

    fn note_rtt(&mut self, rtt: Option<Time>) {
        if let Some(r) = rtt {
            let r = to_secs(r);
            self.srtt = Some(self.srtt.map_or(r, |s| 0.875 * s + 0.125 * r));
        }
    }

    /// The window the reduction starts from: cwnd without fast-recovery inflation.
    fn reduce(&mut self, core: &mut SenderState, w: f64) {
        self.w_max = if w < self.w_max { w * (1.0 + BETA) / 2.0 } else { w };
        self.cwnd_prior = w;
        core.ssthresh = (w * BETA).max(2.0);
        self.epoch_start = None;
        self.hystart.on_congestion();
    }

    /// One ACK of new data in congestion avoidance (RFC 9438 4.2-4.4).
    pub(super) fn avoidance(&mut self, core: &mut SenderState, now: Time) {
        let cwnd = core.cwnd;
        let t0 = *self.epoch_start.get_or_insert_with(|| {
            self.epochs += 1;
            self.cwnd_epoch = cwnd;
            self.w_est = cwnd;
            // No loss yet (left slow start by ssthresh or HyStart++): the
            // curve starts at its plateau, W_max = cwnd.
            if self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.k = k(self.w_max, cwnd);
            now
        });
        let t = to_secs(now.saturating_sub(t0));
        let rtt = self.srtt.unwrap_or(0.0);
        // Reno-friendly region: alpha per window, 1 once past the prior cwnd.
        let a = if self.w_est >= self.cwnd_prior { 1.0 } else { alpha() };
        self.w_est += a / cwnd;
        if w_cubic(t, self.k, self.w_max) < self.w_est {
            core.cwnd = self.w_est.max(cwnd);
        } else {
            let target = w_cubic(t + rtt, self.k, self.w_max).clamp(cwnd, 1.5 * cwnd);
            core.cwnd += (target - cwnd) / cwnd;
        }
    }
}

impl Controller for Cubic {
    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        self.note_rtt(a.rtt);
        if a.ack < core.recover && core.last_action == CwndAction::Dupack {
            self.recovery.partial_ack(core, a.now, a.ack);
            return;
        }
        if core.dupwnd > 0 {
            core.dupwnd = 0;
            if core.last_action == CwndAction::Dupack {
                core.last_action = CwndAction::Exited;
            }
        }
        self.recovery.end_recovery();
        core.newack(a.now, a.ack, a.ece);
        if !(core.ecn && a.ece) {
            if core.cwnd < core.ssthresh && self.hystart.phase != Phase::Avoidance {
                core.cwnd += self.hystart.on_ack(core, a.ack, a.rtt);
            } else if core.cwnd < core.ssthresh {
                core.cwnd += 1.0;
            } else {
                self.avoidance(core, a.now);
            }
        }
        if core.ecn && !a.ece {
            core.ecn_backoff = false;
        }
        core.delay_growth(a.ack);
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        let w = core.windowd();
        let before = core.fast_retransmits;
        on_dupack_common(core, a.now, false);
        if core.fast_retransmits > before {
            // The common fast retransmit halved; CUBIC cuts by beta instead.
            self.reduce(core, w);
            core.cwnd = core.ssthresh;
        }
    }

    fn on_sack_recovery(&mut self, core: &mut SenderState) {
        let w = core.windowd();
        self.reduce(core, w);
        core.cwnd = core.ssthresh;
    }

    fn on_ecn(&mut self, core: &mut SenderState, ack: i64) {
        let w = core.windowd();
        let before = core.ecn_reductions;
        core.ecn_response(ack);
        if core.ecn_reductions > before {
            self.reduce(core, w);
            core.cwnd = core.ssthresh;
        }
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        let w = core.windowd();
        let before = core.timeouts;
        timeout_common(core, now);
        if core.timeouts > before {
            self.reduce(core, w);
        }
    }

    fn send_budget(&self, core: &SenderState) -> Option<u32> {
        self.recovery.send_budget(core)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::config::TcpConfig;
    use super::*;
    use crate::engine::NS_PER_S;

    const MS: Time = NS_PER_MS;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn k_and_w_cubic_are_rfc_9438_eq_1_and_2() {
        // W_max 100, cwnd_epoch 70 (= beta W_max): K = cbrt(30 / 0.4) = cbrt(75).
        let kk = k(100.0, 70.0);
        assert!(close(kk, 4.217163326508746, 1e-12), "{kk}");
        assert!(close(w_cubic(0.0, kk, 100.0), 70.0, 1e-9));
        assert!(close(w_cubic(kk, kk, 100.0), 100.0, 1e-12), "plateau at W_max at t = K");
        assert!(close(w_cubic(kk + 1.0, kk, 100.0), 100.4, 1e-12), "C per cubed second beyond K");
        assert!(close(alpha(), 0.9 / 1.7, 1e-15));
        // No reduction below W_max: K = 0.
        assert_eq!(k(50.0, 50.0), 0.0);
    }

    /// A state in congestion avoidance at `cwnd`, just after a reduction from `w_max`.
    fn after_reduction(w_max: f64, cwnd: f64) -> (SenderState, Cubic) {
        let cfg = TcpConfig { max_window: 10_000, syn: false, ..TcpConfig::default() };
        let mut s = SenderState::new(&cfg);
        s.data_total = i64::MAX / 2;
        s.cwnd = cwnd;
        s.ssthresh = cwnd;
        s.highest_ack = 0;
        s.maxseq = 10_000;
        let mut c = Cubic::new();
        c.w_max = w_max;
        c.cwnd_prior = w_max;
        c.hystart.phase = Phase::Avoidance;
        (s, c)
    }

    /// ACK one packet per `cwnd`-th of an RTT for `secs` seconds (a full
    /// pipe), each with RTT sample `rtt`; returns (t, cwnd) after each ACK.
    fn run(s: &mut SenderState, c: &mut Cubic, rtt: Time, secs: f64) -> Vec<(f64, f64)> {
        let mut now: Time = NS_PER_S;
        let end = now + (secs * 1e9) as Time;
        let mut out = Vec::new();
        let mut ack = s.highest_ack;
        while now < end {
            ack += 1;
            s.maxseq = s.maxseq.max(ack + 1000);
            c.on_ack(s, &Ack { now, ack, ece: false, rtt: Some(rtt) });
            out.push((to_secs(now - NS_PER_S), s.cwnd));
            now += (rtt as f64 / s.cwnd) as Time;
        }
        out
    }

    #[test]
    fn cwnd_follows_w_cubic_in_the_cubic_region() {
        // W_max 100 packets, reduced to 70, RTT 100 ms: far from the Reno
        // region (alpha/RTT = 5.3 packets/s against 3 C K^2 = 21 at t = 0).
        let (mut s, mut c) = after_reduction(100.0, 70.0);
        let trace = run(&mut s, &mut c, 100 * MS, 8.0);
        let kk = k(100.0, 70.0);
        assert!(close(c.k, kk, 1e-12));
        assert_eq!(c.epochs, 1);
        // cwnd aims one RTT ahead on the curve, so it runs at most ~one RTT
        // early. (From ~5.7 s on, W_est, grown by alpha per RTT to cwnd_prior
        // and by one since, passes the curve: the Reno-friendly region.)
        for &(t, w) in trace.iter().filter(|(t, _)| *t > 0.3 && *t < 5.0) {
            let lo = w_cubic(t - 0.2, kk, 100.0);
            let hi = w_cubic(t + 0.1, kk, 100.0) + 1.0;
            assert!(w >= lo - 1.0 && w <= hi, "t {t}: cwnd {w} outside [{lo}, {hi}]");
        }
        // Concave below W_max, flat around K, convex beyond.
        let at = |x: f64| trace.iter().find(|(t, _)| *t >= x).unwrap().1;
        assert!(at(1.0) - at(0.5) > at(kk) - at(kk - 0.5), "concave: slows towards W_max");
        assert!(close(at(kk), 100.0, 1.5), "{}", at(kk));
        assert!(at(7.5) - at(7.0) > at(kk + 0.5) - at(kk), "speeds up again past K");
        assert!(s.cwnd >= c.w_est && c.w_est > w_cubic(8.0 - 0.01, kk, 100.0), "Reno-friendly by 8 s");
    }

    #[test]
    fn reno_friendly_region_follows_w_est() {
        // Small window and short RTT: alpha/RTT = 53 packets/s beats the cubic
        // curve's 3 C K^2 = 4.6 packets/s, so cwnd = W_est, which grows by
        // alpha per RTT (alpha / cwnd per ACK) until it reaches cwnd_prior.
        let (mut s, mut c) = after_reduction(10.0, 7.0);
        let trace = run(&mut s, &mut c, 10 * MS, 0.03);
        assert!(w_cubic(0.03, c.k, 10.0) < c.w_est, "in the Reno-friendly region");
        assert_eq!(s.cwnd, c.w_est);
        // Three RTTs: about 3 alpha packets more.
        let grown = trace.last().unwrap().1 - 7.0;
        assert!(close(grown, 3.0 * alpha(), 0.25), "{grown} vs {}", 3.0 * alpha());
        // Past cwnd_prior (10) alpha becomes 1: one packet per RTT.
        let (mut s, mut c) = after_reduction(10.0, 11.0);
        c.cwnd_prior = 10.0;
        let w0 = s.cwnd;
        run(&mut s, &mut c, 10 * MS, 0.05);
        assert!(s.cwnd - w0 >= 4.0, "{}", s.cwnd);
    }

    #[test]
    fn fast_convergence_and_beta_on_a_congestion_event() {
        let (mut s, mut c) = after_reduction(100.0, 80.0);
        c.reduce(&mut s, 80.0);
        assert!(close(c.w_max, 80.0 * 1.7 / 2.0, 1e-12), "below the last W_max: release bandwidth");
        assert!(close(s.ssthresh, 56.0, 1e-12));
        assert_eq!(c.epoch_start, None);
        c.reduce(&mut s, 120.0);
        assert_eq!(c.w_max, 120.0);
        assert!(close(s.ssthresh, 84.0, 1e-12));
        c.reduce(&mut s, 2.0);
        assert_eq!(s.ssthresh, 2.0, "never below two packets");
    }

    /// A sender in its first slow start at cwnd 16, nothing acknowledged, and a fresh HyStart++.
    fn slow_start_at_16() -> (SenderState, HyStart) {
        let cfg = TcpConfig { max_window: 10_000, initial_ssthresh: 10_000, ..TcpConfig::default() };
        let mut s = SenderState::new(&cfg);
        s.cwnd = 16.0;
        s.highest_ack = 0;
        s.maxseq = 16;
        (s, HyStart::new())
    }

    /// HyStart++ driven by hand-made rounds: `per_round` ACKs, each with `rtt`.
    fn round(s: &mut SenderState, h: &mut HyStart, per_round: i64, rtt: Time) {
        let start = s.highest_ack;
        for i in 1..=per_round {
            let a = start + i;
            s.highest_ack = a;
            let inc = h.on_ack(s, a, Some(rtt));
            s.cwnd += inc;
            s.maxseq = s.maxseq.max(a + s.cwnd as i64);
        }
    }

    #[test]
    fn hystart_rounds_css_and_exit() {
        let (mut s, mut h) = slow_start_at_16();
        // Steady RTT: slow start goes on (one packet per ACK).
        round(&mut s, &mut h, 16, 100 * MS);
        round(&mut s, &mut h, 32, 100 * MS);
        assert_eq!(h.phase, Phase::SlowStart);
        assert_eq!(s.cwnd, 64.0);
        // RTT up by less than the threshold (100/8 = 12.5 ms): still slow start.
        round(&mut s, &mut h, 64, 110 * MS);
        assert_eq!(h.phase, Phase::SlowStart);
        // Up by 14 ms over the last round's 110 (threshold 110/8 = 13.75 ms),
        // after 8 samples: CSS.
        let w = s.cwnd;
        round(&mut s, &mut h, 8, 124 * MS);
        assert_eq!(h.phase, Phase::Css(0));
        assert_eq!(s.cwnd, w + 7.0 + 0.25, "seven slow-start ACKs, then a quarter per ACK");
        // In CSS the RTT falls below the baseline: back to slow start.
        let mut h2 = h.clone();
        let mut s2 = s.clone();
        round(&mut s2, &mut h2, 200, 115 * MS);
        assert_eq!(h2.phase, Phase::SlowStart);
        // Otherwise five CSS rounds, then congestion avoidance with ssthresh = cwnd.
        let mut rounds = 0;
        while h.phase != Phase::Avoidance {
            let n = (s.maxseq - s.highest_ack).max(1);
            round(&mut s, &mut h, n, 130 * MS);
            rounds += 1;
            assert!(rounds < 10);
        }
        assert_eq!(s.ssthresh, s.cwnd);
        assert!((5..=6).contains(&rounds), "{rounds}");
    }

    #[test]
    fn hystart_clamps_the_threshold() {
        // A 10 ms path: RttThresh = max(10/8, 4) = 4 ms; a 3 ms rise stays in slow start.
        let (mut s, mut h) = slow_start_at_16();
        round(&mut s, &mut h, 16, 10 * MS);
        round(&mut s, &mut h, 32, 13 * MS);
        assert_eq!(h.phase, Phase::SlowStart);
        round(&mut s, &mut h, 64, 17 * MS);
        assert_eq!(h.phase, Phase::Css(0));
    }
}
