//! CUBIC as ns-2.35 runs it: `Agent/TCP/Linux` (tcp/tcp-linux.cc) with
//! `select_ca cubic`, Linux 2.6.22's tcp_cubic.c v2.1, and a plain
//! `Agent/TCPSink` without timestamps — the `ns2_linux` profile. With
//! `tcp.sack` the agent runs behind `TCPSink/Sack1` and its own SACK
//! recovery (`ns2_linux_sack.rs`) wraps this controller's arithmetic.
//!
//! [`Bictcp`] is the module's arithmetic, in its own integers: cwnd in
//! whole packets, time in jiffies (ns-2's `JIFFY_RATIO`: 1 ms, `HZ` 1000),
//! the cubic curve in 1/1024 s (`BICTCP_HZ` 10), beta 819/1024, C =
//! 410/1024 (`bic_scale` 41 x 10). cwnd grows by one packet every `cnt`
//! ACKs; `cnt` is recomputed at most every 32 jiffies while cwnd holds
//! still, from the curve's target at now + delay_min, capped by the
//! Reno-friendly estimate and scaled by the packets-per-ACK ratio; before
//! the first loss it is 50 (hence the slow growth above ssthresh).
//!
//! [`Ns2LinuxCubic`] is what TCP-Linux's agent does around it, as far as a
//! plain sink sees it:
//! - No fast retransmit. TCP-Linux finds losses only through its SACK
//!   scoreboard (scoreboard1.cc); a plain sink sends no SACK blocks, so the
//!   scoreboard stays empty and duplicate ACKs change nothing but the
//!   retransmission timer, which every ACK re-arms (`renew_timer`), so the
//!   timer runs an RTO from the last duplicate ACK.
//! - A timeout: ssthresh from the module (`bictcp_recalc_ssthresh`: W_max,
//!   fast convergence, loss_cwnd), cwnd = 1, then the Loss state, whose
//!   `set_state` resets every CUBIC variable: W_max and loss_cwnd are 0
//!   again, so the next congestion avoidance is in the 50-ACK mode. The
//!   scoreboard marks everything outstanding lost and sends it again in
//!   order (go-back-N here: the same packets leave in the same order).
//! - Leaving Loss (the ACK passes what was outstanding at the timeout):
//!   cwnd = ssthresh if below, then at most in flight + 3 (`tcp_moderate_cwnd`).
//! - Slow start while cwnd <= ssthresh, one packet per ACK of new data
//!   (ABC with `sysctl_tcp_abc` 1); growth only when cwnd-limited (in
//!   flight before the ACK >= cwnd); cwnd never above `window_` (the clamp).
//! - The setup segment goes out with the initial window (TCP-Linux's
//!   `delay_growth_` is false) and the RTT clock ticks in jiffies (1 ms),
//!   RTT timed one segment at a time as any ns-2 agent without timestamps.
//!
//! Not reproduced: Linux's table-and-Newton cube root (error ~0.2 %, here
//! an exact integer cube root); without timestamps delay_min stays 0, so
//! the target is W(t) and the max_increment cap never applies (both are
//! computed here and tested, for a profile with timestamps later).

use super::super::super::state::{CwndAction, SenderState};
use super::super::{Ack, Controller};
use crate::engine::{Time, NS_PER_MS};

/// `BICTCP_BETA_SCALE` and tcp_cubic.c's defaults.
const BETA_SCALE: u32 = 1024;
const BETA: u32 = 819;
const BIC_SCALE: u64 = 41;
const MAX_INCREMENT: u32 = 16;
/// Jiffies per second (ns-2's `HZ` and `JIFFY_RATIO`).
const HZ: u32 = 1000;
/// The curve's time unit: 2^10 per second.
const BICTCP_HZ: u32 = 10;
const ACK_RATIO_SHIFT: u32 = 4;
/// Linux's `tcp_max_burst`: leaving recovery, cwnd <= in flight + 3.
const MAX_BURST: u32 = 3;

/// C / RTT with the fixed RTT of 100 ms the module assumes: 410.
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// Reno-friendliness: 8 (1 + beta) / 3 / (1 - beta), in integers (23).
const FRIENDLY_SCALE: u32 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);

/// 2^(10 + 3 BICTCP_HZ) / (C / RTT): K^3 = CUBE_FACTOR (W_max - cwnd).
fn cube_factor() -> u64 {
    (1u64 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE
}

/// floor(cbrt(a)).
pub(crate) fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && x.saturating_mul(x).saturating_mul(x) > a {
        x -= 1;
    }
    while (x + 1).saturating_mul(x + 1).saturating_mul(x + 1) <= a {
        x += 1;
    }
    x
}

/// Jiffies at `now` (ns-2: `trunc(clock * JIFFY_RATIO)`).
fn jiffies(now: Time) -> u32 {
    (now / NS_PER_MS) as u32
}

/// tcp_cubic.c's per-connection state (`struct bictcp`), its integers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bictcp {
    /// Grow cwnd by one after this many ACKs.
    pub cnt: u32,
    /// W_max: cwnd before the last reduction (0: none since the last reset).
    pub last_max_cwnd: u32,
    /// cwnd at the last loss (0: none since the last reset: the 50-ACK mode).
    pub loss_cwnd: u32,
    pub last_cwnd: u32,
    pub last_time: u32,
    /// The curve's plateau (packets) and the time to reach it (1/1024 s).
    pub origin_point: u32,
    pub k: u32,
    /// Minimum RTT in jiffies x 8 (0: none; needs timestamps).
    pub delay_min: u32,
    /// Jiffy the epoch began (0: no epoch).
    pub epoch_start: u32,
    pub ack_cnt: u32,
    /// The Reno-friendly window estimate.
    pub tcp_cwnd: u32,
    /// Packets per ACK, x 16.
    pub delayed_ack: u32,
    /// Epochs begun (for the trace features; not in the module).
    pub epochs: u64,
}

impl Bictcp {
    pub fn new() -> Self {
        let mut b = Bictcp::default();
        b.reset();
        b
    }

    /// `bictcp_reset`: every variable back to its start (the epoch count stays).
    pub fn reset(&mut self) {
        *self = Bictcp { delayed_ack: 2 << ACK_RATIO_SHIFT, epochs: self.epochs, ..Bictcp::default() };
    }

    /// `bictcp_update`: recompute `cnt` for cwnd `cwnd` at jiffy `now`.
    pub fn update(&mut self, cwnd: u32, now: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(1);
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.epochs += 1;
            self.ack_cnt = 1;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.k = 0;
                self.origin_point = cwnd;
            } else {
                self.k = cube_root(cube_factor().wrapping_mul((self.last_max_cwnd - cwnd) as u64)) as u32;
                self.origin_point = self.last_max_cwnd;
            }
        }
        // Curve time of now + delay_min, in 1/1024 s (u32 as in the module).
        let t = (now.wrapping_add(self.delay_min >> 3).wrapping_sub(self.epoch_start) << BICTCP_HZ) / HZ;
        let offs = t.abs_diff(self.k) as u64;
        let delta =
            (CUBE_RTT_SCALE.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs) >> (10 + 3 * BICTCP_HZ)) as u32;
        let target =
            if t < self.k { self.origin_point.wrapping_sub(delta) } else { self.origin_point.wrapping_add(delta) };
        self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        if self.delay_min > 0 {
            // At most MAX_INCREMENT packets per 0.1 s past the plateau.
            let min_cnt = (cwnd * HZ * 8) / (10 * MAX_INCREMENT * self.delay_min);
            if self.cnt < min_cnt && t >= self.k {
                self.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        // Reno-friendliness: the estimate gains one per cwnd * 23 / 8 ACKs.
        let per = (cwnd * FRIENDLY_SCALE) >> 3;
        while per > 0 && self.ack_cnt > per {
            self.ack_cnt -= per;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        self.cnt = (self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1);
        if self.cnt == 0 {
            self.cnt = 1;
        }
    }

    /// `bictcp_recalc_ssthresh` at cwnd `cwnd`: end the epoch, remember
    /// W_max (fast convergence) and the loss; returns the new ssthresh.
    pub fn recalc_ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd =
            if cwnd < self.last_max_cwnd { cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE) } else { cwnd };
        self.loss_cwnd = cwnd;
        (cwnd * BETA / BETA_SCALE).max(2)
    }

    /// `bictcp_acked`: `acked` packets newly acknowledged; the ratio moves
    /// by 1/16 of the difference, only in the Open state (u32 wrapping as
    /// in the module, so it can fall).
    pub fn acked(&mut self, acked: u32, open: bool) {
        if acked > 0 && open {
            let d = acked.wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(d);
        }
    }

    /// `measure_delay`: an RTT of `rtt_jiffies` (from a timestamp echo),
    /// ignored within a second of the epoch's start.
    #[cfg(test)] // no timestamps in the profile's sink: delay_min stays 0
    pub fn measure_delay(&mut self, now: u32, rtt_jiffies: u32) {
        if (now.wrapping_sub(self.epoch_start) as i32) < HZ as i32 {
            return;
        }
        let delay = (rtt_jiffies << 3).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
    }
}

/// ns-2.35's TCP-Linux agent with tcp_cubic.c, behind a plain sink.
#[derive(Clone, Debug)]
pub struct Ns2LinuxCubic {
    pub(crate) ca: Bictcp,
    /// Linux's integer cwnd, its ACK counter and ssthresh.
    pub(crate) snd_cwnd: u32,
    pub(super) snd_cwnd_cnt: u32,
    pub(crate) ssthresh: u32,
    /// `window_`: cwnd never grows beyond it.
    clamp: u32,
    /// ABC: packets acknowledged since slow start last grew.
    pub(super) acked_since: u32,
    /// In the Loss state (after a timeout) until the ACK reaches `recover`.
    loss: bool,
}

impl Ns2LinuxCubic {
    pub fn new(state: &SenderState) -> Self {
        Ns2LinuxCubic {
            ca: Bictcp::new(),
            snd_cwnd: state.cwnd as u32,
            snd_cwnd_cnt: 0,
            ssthresh: state.ssthresh as u32,
            clamp: state.wnd,
            acked_since: 0,
            loss: false,
        }
    }

    /// `tcp_slow_start` (ABC 1) or CUBIC's one-per-`cnt` growth.
    pub(super) fn cong_avoid(&mut self, in_flight: i64, now: Time) {
        if in_flight < self.snd_cwnd as i64 {
            return;
        }
        if self.snd_cwnd <= self.ssthresh {
            if self.acked_since == 0 {
                return;
            }
            self.acked_since = 0;
            self.snd_cwnd_cnt += self.snd_cwnd;
            while self.snd_cwnd_cnt >= self.snd_cwnd {
                self.snd_cwnd_cnt -= self.snd_cwnd;
                if self.snd_cwnd < self.clamp {
                    self.snd_cwnd += 1;
                }
            }
        } else {
            self.ca.update(self.snd_cwnd, jiffies(now));
            if self.snd_cwnd_cnt >= self.ca.cnt {
                if self.snd_cwnd < self.clamp {
                    self.snd_cwnd += 1;
                }
                self.snd_cwnd_cnt = 0;
            } else {
                self.snd_cwnd_cnt += 1;
            }
        }
    }

    /// A timeout with nothing outstanding: back to the initial window (ns-2
    /// CLOSE_CWND_INIT), W_max kept.
    pub(super) fn idle_restart(&mut self, core: &mut SenderState) {
        self.snd_cwnd = core.wnd_init as u32;
        core.rtx_deadline = None;
        core.t_seqno = core.highest_ack + 1;
        core.rto.cancel_timing();
        self.store(core);
    }

    /// `enter_loss` at a timeout with data outstanding: ssthresh from the
    /// module, cwnd 1, and the Loss state, whose `set_state` resets every
    /// CUBIC variable (W_max included). The timer and what is resent are the
    /// caller's.
    pub(super) fn enter_loss(&mut self, core: &mut SenderState) {
        self.ssthresh = self.ca.recalc_ssthresh(self.snd_cwnd);
        self.snd_cwnd = 1;
        self.snd_cwnd_cnt = 0;
        self.acked_since = 0;
        self.ca.reset();
        core.recover = core.maxseq;
        core.last_action = CwndAction::Timeout;
        core.timeouts += 1;
    }

    pub(super) fn store(&self, core: &mut SenderState) {
        core.cwnd = self.snd_cwnd as f64;
        core.ssthresh = self.ssthresh as f64;
    }
}

impl Controller for Ns2LinuxCubic {
    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        let in_flight = core.t_seqno - core.highest_ack - 1;
        let acked = (a.ack - core.highest_ack) as u32;
        self.acked_since = self.acked_since.saturating_add(acked);
        core.newack(a.now, a.ack, a.ece);
        self.ca.acked(acked, !self.loss);
        self.cong_avoid(in_flight, a.now);
        if self.loss && core.highest_ack >= core.recover {
            self.loss = false;
            if self.snd_cwnd < self.ssthresh {
                let now_in_flight = (core.t_seqno - core.highest_ack - 1).max(0) as u32;
                self.snd_cwnd = self.ssthresh.min(now_in_flight + MAX_BURST);
            }
        }
        self.store(core);
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        // No SACK blocks: the scoreboard sees no loss. Only the timer moves.
        if core.outstanding() {
            core.arm_rtx(a.now);
        }
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        if !core.outstanding() {
            self.idle_restart(core);
            return;
        }
        self.enter_loss(core);
        self.loss = true;
        core.reset_rtx_timer(now, false, core.timeout_backoff);
        self.store(core);
    }

    fn on_ecn(&mut self, _core: &mut SenderState, _ack: i64) {
        // The scenario refuses tcp.ecn with this profile (TCP-Linux's ECN
        // response is its SACK recovery, not modelled).
    }

    fn send_budget(&self, _core: &SenderState) -> Option<u32> {
        None
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::super::super::config::TcpConfig;
    use super::*;

    #[test]
    fn cube_root_is_exact() {
        for a in [0u64, 1, 7, 8, 26, 27, 1000, 999_999, 1 << 40, u64::MAX / 3] {
            let x = cube_root(a);
            assert!(x * x * x <= a && (x + 1).checked_pow(3).is_none_or(|c| c > a), "{a}: {x}");
        }
        assert_eq!(FRIENDLY_SCALE, 23, "8 * 1843 / 3 / 205 in integers");
        assert_eq!(cube_factor(), 2_681_735_677, "2^40 / 410");
    }

    /// A state just after a loss at `w_max` (loss_cwnd set), ratio 1 packet per ACK.
    fn after_loss(w_max: u32) -> Bictcp {
        let mut b = Bictcp::new();
        b.last_max_cwnd = w_max;
        b.loss_cwnd = w_max;
        b.delayed_ack = 16;
        b
    }

    #[test]
    fn k_and_cnt_follow_the_fixed_point_curve() {
        // W_max 100, epoch at cwnd 80, 5 s into the run.
        let mut b = after_loss(100);
        b.update(80, 5000);
        // K = cbrt((W_max - cwnd) / C) with C = 410/1024 per s^3, in 1/1024 s.
        let k_exact = 1024.0 * (20.0 * 1024.0 / 410.0_f64).cbrt();
        assert_eq!(b.k, cube_root(2_681_735_677 * 20) as u32);
        assert!((b.k as f64 - k_exact).abs() < 1.0, "{} vs {k_exact}", b.k);
        assert_eq!(b.origin_point, 100);
        // At t = 0: delta = 410 K^3 / 2^40 = 19 with K floored, so the
        // target is 81, one above cwnd: cnt = cwnd / 1.
        assert_eq!((410 * (b.k as u64).pow(3)) >> 40, 19);
        assert_eq!(b.cnt, 80);
        // One second later (t = 1024/1024 s): delta = 410 (K - t)^3 / 2^40.
        b.update(80, 6000);
        let offs = (b.k - 1024) as u64;
        let delta = (410 * offs * offs * offs) >> 40;
        assert_eq!(delta, 7, "hand: 410 * {offs}^3 / 2^40");
        assert_eq!(b.cnt, 80 / (100 - 7 - 80), "cwnd / (target - cwnd)");
        // Past K the curve is convex: t = 5 s, delta = 410 (5120 - K)^3 / 2^40.
        b.update(81, 10_000);
        let offs = 5120 - b.k as u64;
        let target = 100 + ((410 * offs * offs * offs) >> 40) as u32;
        assert_eq!(b.cnt, 81 / (target - 81));
    }

    #[test]
    fn cnt_is_recomputed_at_most_every_32_jiffies_while_cwnd_holds() {
        let mut b = after_loss(100);
        b.update(80, 5000);
        let c = b.cnt;
        b.update(80, 5031);
        assert_eq!(b.cnt, c, "31 jiffies: kept");
        assert_eq!(b.ack_cnt, 2, "ACKs still counted");
        b.update(81, 5031);
        assert_ne!(b.cnt, c, "a new cwnd recomputes at once");
    }

    #[test]
    fn fifty_acks_per_packet_before_the_first_loss_scaled_by_the_ack_ratio() {
        let mut b = Bictcp::new();
        b.update(30, 2000);
        // cnt = 50, then x 16 / delayed_ack (2 packets per ACK at the start).
        assert_eq!(b.cnt, 50 * 16 / 32);
        b.delayed_ack = 16;
        b.update(31, 2001);
        assert_eq!(b.cnt, 50);
    }

    #[test]
    fn the_ack_ratio_moves_by_a_sixteenth_in_integers() {
        let mut b = Bictcp::new();
        assert_eq!(b.delayed_ack, 32);
        // One packet per ACK: 32 + 1 - 2 = 31; then 1 - 31/16 = 0 each time.
        b.acked(1, true);
        assert_eq!(b.delayed_ack, 31);
        b.acked(1, true);
        assert_eq!(b.delayed_ack, 31, "integer floor: the ratio settles at 31/16");
        b.acked(4, true);
        assert_eq!(b.delayed_ack, 31 + 4 - 1);
        b.acked(4, false);
        assert_eq!(b.delayed_ack, 34, "not in the Loss state");
    }

    #[test]
    fn reno_friendly_estimate_caps_cnt() {
        // Loss at 10, epoch at 10: K = 0, the curve is flat for a while.
        let mut b = after_loss(10);
        b.update(10, 3000);
        assert_eq!((b.k, b.tcp_cwnd, b.ack_cnt), (0, 10, 1));
        for _ in 0..59 {
            b.update(10, 3000);
        }
        assert_eq!(b.ack_cnt, 60);
        b.update(10, 3032);
        // 61 ACKs, one estimate packet per 10 * 23 / 8 = 28 ACKs: W_est = 12.
        assert_eq!(b.tcp_cwnd, 12);
        assert_eq!(b.ack_cnt, 61 - 2 * 28);
        // The curve: t = 32/1024 s past K, delta 0, target = cwnd: cnt 100 cwnd;
        // the estimate is 2 ahead: cnt = cwnd / 2.
        assert_eq!(b.cnt, 5);
    }

    #[test]
    fn delay_min_moves_the_target_and_caps_growth_past_the_plateau() {
        let mut b = after_loss(100);
        b.update(80, 5000);
        b.measure_delay(5500, 100);
        assert_eq!(b.delay_min, 0, "within a second of the epoch: ignored");
        b.measure_delay(6100, 100);
        assert_eq!(b.delay_min, 800);
        b.measure_delay(6200, 150);
        assert_eq!(b.delay_min, 800, "the minimum");
        // Target at t + 100 ms: (1100 jiffies << 10) / 1000 = 1126.
        b.update(80, 6000);
        let offs = (b.k - 1126) as u64;
        let delta = ((410 * offs * offs * offs) >> 40) as u32;
        assert_eq!(b.cnt, 80 / (100 - delta - 80));
        // Far past K the target runs away; max_increment keeps cnt >=
        // cwnd * 8000 / (160 * delay_min) = 16 packets per 100 ms.
        b.update(150, 25_000);
        assert_eq!(b.cnt, 150 * 8000 / (160 * 800));
    }

    #[test]
    fn ssthresh_beta_and_fast_convergence() {
        let mut b = after_loss(120);
        b.epoch_start = 7;
        assert_eq!(b.recalc_ssthresh(100), 100 * 819 / 1024);
        assert_eq!(b.last_max_cwnd, 100 * 1843 / 2048, "below the last W_max: 0.9 cwnd");
        assert_eq!((b.loss_cwnd, b.epoch_start), (100, 0));
        assert_eq!(b.recalc_ssthresh(150), 150 * 819 / 1024);
        assert_eq!(b.last_max_cwnd, 150);
        assert_eq!(b.recalc_ssthresh(2), 2, "never below two");
    }

    /// A TCP-Linux sender in congestion avoidance: cwnd 20, all sent, nothing acked beyond 100.
    pub(in super::super) fn sender(cwnd: u32, ssthresh: u32) -> (SenderState, Ns2LinuxCubic) {
        let cfg = TcpConfig {
            variant: crate::transport::Variant::Cubic,
            cubic_profile: super::super::super::super::config::CubicProfile::Ns2Linux,
            max_window: 1000,
            syn: false,
            ..TcpConfig::default()
        };
        let mut s = SenderState::new(&cfg);
        s.data_total = i64::MAX / 2;
        s.highest_ack = 100;
        s.t_seqno = 101 + cwnd as i64;
        s.maxseq = 100 + cwnd as i64;
        s.cwnd = cwnd as f64;
        s.ssthresh = ssthresh as f64;
        let c = Ns2LinuxCubic::new(&s);
        (s, c)
    }

    fn ack(c: &mut Ns2LinuxCubic, s: &mut SenderState, now: Time, n: i64) {
        c.on_ack(s, &Ack { now, ack: n, ece: false, rtt: None });
        // The window refills: everything cwnd allows is in flight.
        s.t_seqno = s.highest_ack + 1 + s.cwnd as i64;
        s.maxseq = s.maxseq.max(s.t_seqno - 1);
    }

    #[test]
    fn slow_start_one_per_ack_up_to_and_at_ssthresh_then_fifty_acks() {
        let cfg = TcpConfig::default();
        assert_eq!(cfg.rtt_tick(), 10 * NS_PER_MS);
        let (mut s, mut c) = sender(8, 10);
        let ms = NS_PER_MS;
        for i in 1..=3i64 {
            ack(&mut c, &mut s, 1000 * ms + i as Time * ms, 100 + i);
        }
        assert_eq!(c.snd_cwnd, 11, "8 -> 11: at cwnd == ssthresh still slow start");
        // No loss yet: one packet per 50 ACKs x 16/32 (the ratio starts at 2, and
        // 3 ACKs of one packet have brought it to 31): cnt = 50 * 16 / 31 = 25.
        let mut n: i64 = 103;
        for _ in 0..26 {
            n += 1;
            ack(&mut c, &mut s, 2000 * ms + n as Time * ms, n);
        }
        assert_eq!(c.ca.cnt, 50 * 16 / 31);
        assert_eq!(c.snd_cwnd, 12, "one packet after cnt + 1 ACKs");
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn no_growth_unless_cwnd_limited() {
        let (mut s, mut c) = sender(8, 4);
        s.t_seqno = 105; // 4 in flight of 8
        c.on_ack(&mut s, &Ack { now: NS_PER_MS * 3000, ack: 101, ece: false, rtt: None });
        assert_eq!(c.snd_cwnd, 8);
        assert_eq!(c.ca.epoch_start, 0, "the module is not even called");
    }

    #[test]
    fn duplicate_acks_only_rearm_the_timer() {
        let (mut s, mut c) = sender(20, 10);
        s.arm_rtx(0);
        let d0 = s.rtx_deadline.unwrap();
        for i in 1..=5 {
            c.on_dupack(&mut s, &Ack { now: i * 10 * NS_PER_MS, ack: 100, ece: false, rtt: None });
        }
        assert_eq!((s.cwnd, s.ssthresh, s.fast_retransmits), (20.0, 10.0, 0));
        assert!(s.forced.is_empty(), "no fast retransmission");
        assert_eq!(s.rtx_deadline.unwrap(), d0 + 50 * NS_PER_MS, "an RTO from the last one");
    }

    #[test]
    fn a_timeout_resets_w_max_and_leaving_loss_moderates_cwnd() {
        let (mut s, mut c) = sender(40, 10);
        c.ca = after_loss(60);
        c.ca.update(40, 1000);
        c.on_timeout(&mut s, 2000 * NS_PER_MS);
        assert_eq!(c.ssthresh, 40 * 819 / 1024);
        assert_eq!((c.snd_cwnd, s.cwnd), (1, 1.0));
        assert_eq!(c.ca, Bictcp { epochs: 1, ..Bictcp::new() }, "W_max, loss_cwnd, the ratio: all reset");
        assert_eq!((s.t_seqno, s.recover, s.timeouts), (101, 140, 1), "go back to the first unacked");
        // Slow start back; the ACK that passes 140 ends Loss: cwnd = ssthresh (31)
        // but at most in flight + 3.
        let ms = NS_PER_MS;
        s.t_seqno = 102; // 101 sent again
        ack(&mut c, &mut s, 2100 * ms, 101);
        assert_eq!(c.snd_cwnd, 2);
        assert!(c.loss);
        s.t_seqno = 143; // 101 acked; 102..=142 sent again or new
        c.on_ack(&mut s, &Ack { now: 2200 * ms, ack: 140, ece: false, rtt: None });
        assert!(!c.loss);
        assert_eq!(c.snd_cwnd, 2 + 3, "min(ssthresh 31, in flight 2 + 3)");
        // The next congestion avoidance is in the 50-ACK mode again (loss_cwnd 0).
        c.ssthresh = 4;
        s.t_seqno = 141 + 5;
        ack(&mut c, &mut s, 2300 * ms, 141);
        assert_eq!(c.ca.loss_cwnd, 0);
        assert_eq!(c.ca.cnt, 50 * 16 / 31, "the ratio too: 32, then 31 after this ACK");
    }
}
