//! The TCP sender: machinery common to every congestion-control variant
//! (sequence state, the send loop, the retransmission timer, RTT timing,
//! ECN response, statistics), modelled on ns-2.35's `TcpAgent`, plus the
//! enum that dispatches to the variant-specific hooks.
//!
//! Conventions kept from ns-2 because they shape the dynamics:
//! - `cwnd` is not clamped to `max_window`; the usable window is
//!   `min(floor(cwnd) + dupwnd, max_window)` (ns-2 `window()`). Clamping
//!   cwnd itself would change NewReno's partial window deflation.
//! - Reno and NewReno inflate the window during fast recovery through a
//!   separate `dupwnd` (ns-2 `dupwnd_`); [`TcpSender::cwnd`] reports
//!   `cwnd + dupwnd`, the congestion window the sender actually uses.
//! - ssthresh is an integer (ns-2 `ssthresh_` is a `TracedInt`); window
//!   halvings set cwnd to exactly half the window (`precisionReduce_ true`).
//! - Every new ACK re-arms the retransmission timer, even when everything
//!   is acknowledged (`timerfix_ true` makes ns-2's `newtimer()` always
//!   re-arm). An expiry with nothing outstanding is ns-2's slow-start
//!   restart after idleness: cwnd = 1, ssthresh kept, no backoff.
//! - Sends triggered by an ACK are limited as in ns-2's `recv()`: none on
//!   the first and second duplicate ACK (except limited transmit), two per
//!   ACK during NewReno fast recovery, otherwise the whole window.

use super::config::{TcpConfig, Variant};
use super::newreno::NewReno;
use super::reno::Reno;
use super::rto::RtoEstimator;
use super::tcp_ap::{TcpAp, TcpApStats};
use super::vegas::Vegas;
use super::window_stats::WindowStats;
use crate::engine::Time;
use crate::wire::TcpSegment;
use std::collections::VecDeque;

/// The last congestion response (ns-2 `last_cwnd_action_`). It decides
/// whether a later signal in the same window may cut cwnd again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CwndAction {
    None,
    Dupack,
    Timeout,
    Ecn,
    /// Fast recovery ended (after `Dupack`).
    Exited,
}

/// Flags for [`Core::slowdown`] (ns-2 `slowdown(how)`).
pub(super) mod how {
    pub const SSTHRESH_HALF: u32 = 1;
    pub const CWND_HALF: u32 = 2;
    /// cwnd = 1 (ns-2 `CLOSE_CWND_RESTART` with `wnd_restart_` 1).
    pub const CWND_RESTART: u32 = 4;
    pub const CWND_ONE: u32 = 8;
}

/// Counters and averages reported at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TcpSenderStats {
    /// Every segment sent, the setup segment and retransmissions included.
    pub packets_sent: u64,
    /// Segments sent that had been sent before.
    pub retransmissions: u64,
    /// Retransmission-timer expiries with data outstanding.
    pub timeouts: u64,
    /// Fast-retransmit episodes (not the partial-ACK retransmissions).
    pub fast_retransmits: u64,
    /// Window halvings in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// RTT samples taken by the RTO estimator.
    pub rtt_samples: u64,
    /// Mean of those samples (unquantized), seconds.
    pub avg_rtt_s: f64,
    /// Time-weighted mean of min(cwnd, max_window) from the first
    /// transmission to the time of the report.
    pub avg_window: f64,
    /// Seconds spent with floor(min(cwnd, max_window)) == i, index i.
    pub window_hist: Vec<f64>,
    /// Time-weighted mean of min(cwnd, max_window) without NewReno/Reno's
    /// fast-recovery inflation: the average of ns-2's traced `cwnd_`
    /// (`dupwnd_` is a separate, untraced member; tcp/tcp-reno.cc `window()`).
    pub avg_window_traced: f64,
    pub final_cwnd: f64,
    /// TCP-AP's pacing statistics, when pacing is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<TcpApStats>,
}

/// Sender state shared by all variants: ns-2 `TcpAgent`'s members and the
/// helpers the variants build on. Sequence numbers are `i64` so that -1
/// can mean "nothing yet", as in ns-2.
#[derive(Clone, Debug)]
pub(super) struct Core {
    pub wnd: u32,
    pub numdupacks: u32,
    pub ecn: bool,
    pub syn: bool,
    pub limited_transmit: bool,
    pub payload: u32,
    /// Window after the setup segment is acknowledged (ns-2 `wnd_init_`).
    pub wnd_init: f64,
    /// Next packet to send (ns-2 `t_seqno_`); goes back after a timeout.
    pub t_seqno: i64,
    /// Highest packet sent (ns-2 `maxseq_`).
    pub maxseq: i64,
    /// Highest cumulative ACK (ns-2 `highest_ack_` == `last_ack_` here).
    pub highest_ack: i64,
    /// Data packets the application has offered: numbers 1..=data_total.
    pub data_total: i64,
    pub dupacks: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Fast-recovery inflation (Reno/NewReno), packets.
    pub dupwnd: u32,
    /// Highest packet sent when the last congestion response began.
    pub recover: i64,
    pub last_action: CwndAction,
    /// Set CWR on the next segment sent (ns-2 `cong_action_`).
    pub cong_action: bool,
    /// ECN arrived while cwnd was already 1 (ns-2 `ecn_backoff_`).
    pub ecn_backoff: bool,
    pub rto: RtoEstimator,
    pub rtx_deadline: Option<Time>,
    /// Segments to send regardless of the window (retransmissions, limited
    /// transmit), in order. Reused, so no allocation in steady state.
    pub forced: VecDeque<i64>,
    /// The fast retransmission among `forced` (ns-2 `TCP_REASON_DUPACK`):
    /// it bypasses TCP-AP's pacer.
    pub dupack_rtx: Option<i64>,
    /// Back off the RTO after a timeout (TCP-AP's ns-2 code does not).
    pub timeout_backoff: bool,
    /// Window sends still allowed after the last ACK; `None` = no limit.
    pub budget: Option<u32>,
    pub first_tx: Option<Time>,
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub wstats: WindowStats,
    /// The same for cwnd without the fast-recovery inflation.
    pub wstats_traced: WindowStats,
}

impl Core {
    fn new(cfg: &TcpConfig) -> Self {
        let wnd = cfg.max_window.max(1);
        let wnd_init = cfg.initial_window.max(1) as f64;
        let start: i64 = if cfg.syn { -1 } else { 0 };
        Core {
            wnd,
            numdupacks: cfg.dupack_threshold.max(1),
            ecn: cfg.ecn,
            syn: cfg.syn,
            limited_transmit: cfg.limited_transmit,
            payload: cfg.payload_bytes,
            wnd_init,
            t_seqno: start + 1,
            maxseq: start,
            highest_ack: start,
            data_total: 0,
            dupacks: 0,
            // The setup segment goes out alone (ns-2 syn_ + delay_growth_).
            cwnd: if cfg.syn { 1.0 } else { wnd_init },
            ssthresh: cfg.effective_initial_ssthresh() as f64,
            dupwnd: 0,
            recover: 0,
            last_action: CwndAction::None,
            cong_action: false,
            ecn_backoff: false,
            rto: RtoEstimator::new(cfg),
            rtx_deadline: None,
            forced: VecDeque::with_capacity(8),
            dupack_rtx: None,
            timeout_backoff: cfg.pacing.as_ref().is_none_or(|p| p.timeout_backoff),
            budget: None,
            first_tx: None,
            packets_sent: 0,
            retransmissions: 0,
            timeouts: 0,
            fast_retransmits: 0,
            ecn_reductions: 0,
            wstats: WindowStats::new(wnd),
            wstats_traced: WindowStats::new(0),
        }
    }

    /// Usable window in packets (ns-2 `window()`).
    pub fn window(&self) -> u32 {
        let w = self.cwnd.max(0.0).floor() as u64 + self.dupwnd as u64;
        w.min(self.wnd as u64) as u32
    }

    /// Window for reductions (ns-2 `windowd()`).
    pub fn windowd(&self) -> f64 {
        (self.cwnd + self.dupwnd as f64).min(self.wnd as f64)
    }

    pub fn has_data(&self, seq: i64) -> bool {
        self.data_total > 0 && seq <= self.data_total
    }

    pub fn outstanding(&self) -> bool {
        self.highest_ack < self.maxseq
    }

    /// Additive increase (ns-2 `opencwnd()`, `windowOption_ 1`).
    pub fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// Multiplicative decrease (ns-2 `slowdown()`).
    pub fn slowdown(&mut self, flags: u32) {
        let halfwin = self.windowd() / 2.0;
        if flags & how::SSTHRESH_HALF != 0 {
            self.ssthresh = halfwin.floor();
        }
        if flags & how::CWND_HALF != 0 {
            self.cwnd = halfwin;
        } else if flags & (how::CWND_RESTART | how::CWND_ONE) != 0 {
            self.cwnd = 1.0;
        }
        if self.ssthresh < 2.0 {
            self.ssthresh = 2.0;
        }
        // No floor: ns-2.35 raises cwnd to one packet only in timeout(). A halving at
        // cwnd < 2 (an ECN echo) leaves it below one, window() is 0 and the sender waits
        // for its retransmission timer (ns-2 newtimer()). Found by the clean-room ns-2.35
        // ports of LDM and Link RED (validation/ns2/ports/*-disagreements.md).
        if self.ecn && flags & (how::CWND_HALF | how::CWND_RESTART | how::CWND_ONE) != 0 {
            self.cong_action = true;
        }
    }

    pub fn arm_rtx(&mut self, now: Time) {
        self.rtx_deadline = Some(now + self.rto.timeout());
    }

    /// ns-2 `reset_rtx_timer(mild, backoff)`: optionally back off, re-arm,
    /// go back to the first unacknowledged packet unless `mild`, and stop
    /// RTT timing (Karn).
    pub fn reset_rtx_timer(&mut self, now: Time, mild: bool, backoff: bool) {
        if backoff {
            self.rto.back_off();
        }
        self.arm_rtx(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rto.cancel_timing();
    }

    /// Bookkeeping for an ACK of new data (ns-2 `newack()`).
    pub fn newack(&mut self, now: Time, ack: i64, ece: bool) {
        self.dupacks = 0;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rto.take_timed(ack) {
            // Karn: the backoff ends only with a sample from a segment sent
            // once; and not while ECN keeps cwnd at 1.
            if !(self.ecn && self.ecn_backoff && ece) {
                self.rto.reset_backoff();
                self.ecn_backoff = false;
            }
            self.rto.sample(now);
        }
        self.arm_rtx(now);
    }

    /// A new ACK outside recovery (ns-2 `recv_newack_helper()`): no growth
    /// on an ACK carrying ECN-Echo.
    pub fn recv_newack_helper(&mut self, now: Time, ack: i64, ece: bool) {
        self.newack(now, ack, ece);
        if !(self.ecn && ece) {
            self.opencwnd();
        }
        if self.ecn && !ece {
            self.ecn_backoff = false;
        }
    }

    /// Once the setup segment is acknowledged, start from the initial
    /// window (ns-2 `delay_growth_`).
    pub fn delay_growth(&mut self, ack: i64) {
        if self.syn && ack == 0 {
            self.cwnd = self.wnd_init;
        }
    }

    /// ECN-Echo received (ns-2 `ecn()`): halve at most once per window of
    /// data, i.e. only for an ACK beyond the last response's recover point.
    pub fn ecn_response(&mut self, ack: i64) {
        if ack > self.recover || self.last_action == CwndAction::Timeout {
            self.recover = self.maxseq;
            self.last_action = CwndAction::Ecn;
            if self.cwnd <= 1.0 {
                if self.ecn_backoff {
                    self.rto.back_off();
                } else {
                    self.ecn_backoff = true;
                }
            } else {
                self.ecn_backoff = false;
            }
            self.slowdown(how::CWND_HALF | how::SSTHRESH_HALF);
            self.ecn_reductions += 1;
        }
    }

    /// Limited transmit on the first and second duplicate ACK (ns-2
    /// `send_one()`): one new packet if cwnd + dupacks allows it.
    pub fn send_one(&mut self) {
        let s = self.t_seqno;
        if s <= self.highest_ack + self.wnd as i64
            && self.has_data(s)
            && s as f64 <= self.highest_ack as f64 + self.cwnd + self.dupacks as f64
        {
            self.forced.push_back(s);
            self.t_seqno += 1;
        }
    }

    pub fn queue_output(&mut self, seq: i64) {
        self.forced.push_back(seq);
    }

    /// Queue the fast retransmission of `seq`.
    pub fn queue_dupack_output(&mut self, seq: i64) {
        self.dupack_rtx = Some(seq);
        self.forced.push_back(seq);
    }

    /// Retransmission timeout as ns-2 `TcpAgent::timeout()` handles it
    /// (Reno and NewReno reset their own state first).
    pub fn base_timeout(&mut self, now: Time) {
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        self.recover = self.maxseq;
        if !self.outstanding() {
            // Idle for a whole RTO: restart from one packet, keep ssthresh.
            self.slowdown(how::CWND_ONE);
            // ns-2 re-arms without backoff, but later idle expiries change
            // nothing, so the timer may lapse: output() re-arms it.
            self.rtx_deadline = None;
            self.t_seqno = self.highest_ack + 1;
            self.rto.cancel_timing();
        } else {
            if self.highest_ack == -1 && self.wnd_init > 1.0 {
                // The setup segment was lost: start data with one packet
                // (ns-2 bugfix_ss_).
                self.wnd_init = 1.0;
            }
            if self.last_action == CwndAction::Ecn {
                // ECN already halved ssthresh for this window; like ns-2's nrexmit_,
                // this expiry is not counted as a timeout.
                self.slowdown(how::CWND_ONE);
            } else {
                self.last_action = CwndAction::Timeout;
                self.slowdown(how::SSTHRESH_HALF | how::CWND_RESTART);
                self.timeouts += 1;
            }
            self.reset_rtx_timer(now, false, self.timeout_backoff);
        }
        self.last_action = CwndAction::Timeout;
    }
}

/// Congestion-control variants, dispatched by enum (no boxing).
#[derive(Clone, Debug)]
pub(super) enum CongestionControl {
    NewReno(NewReno),
    Reno(Reno),
    Vegas(Vegas),
}

impl CongestionControl {
    fn new(cfg: &TcpConfig) -> Self {
        match cfg.variant {
            Variant::NewReno => CongestionControl::NewReno(NewReno::default()),
            Variant::Reno => CongestionControl::Reno(Reno),
            Variant::Vegas => CongestionControl::Vegas(Vegas::new(cfg)),
        }
    }

    /// An ACK for data not acknowledged before.
    fn on_ack(&mut self, core: &mut Core, now: Time, ack: i64, ece: bool) {
        match self {
            CongestionControl::NewReno(c) => c.on_ack(core, now, ack, ece),
            CongestionControl::Reno(c) => c.on_ack(core, now, ack, ece),
            CongestionControl::Vegas(c) => c.on_ack(core, now, ack, ece),
        }
    }

    /// An ACK repeating the highest cumulative ACK.
    fn on_dupack(&mut self, core: &mut Core, now: Time, ack: i64) {
        match self {
            CongestionControl::NewReno(c) => c.on_dupack(core, now),
            CongestionControl::Reno(c) => c.on_dupack(core, now),
            CongestionControl::Vegas(c) => c.on_dupack(core, now, ack),
        }
    }

    fn on_timeout(&mut self, core: &mut Core, now: Time) {
        match self {
            CongestionControl::NewReno(c) => c.on_timeout(core, now),
            CongestionControl::Reno(c) => c.on_timeout(core, now),
            CongestionControl::Vegas(c) => c.on_timeout(core, now),
        }
    }

    /// ECN-Echo: all of ns-2's variants share `TcpAgent::ecn()`.
    fn on_ecn(&mut self, core: &mut Core, ack: i64) {
        core.ecn_response(ack);
    }

    /// A segment is leaving (Vegas records fine-grained send times).
    fn on_transmit(&mut self, core: &Core, now: Time, seq: i64) {
        if let CongestionControl::Vegas(c) = self {
            c.on_transmit(core, now, seq);
        }
    }

    /// How many window sends the ACK just processed allows.
    fn send_budget(&self, core: &Core) -> Option<u32> {
        match self {
            CongestionControl::NewReno(_) => NewReno::send_budget(core),
            CongestionControl::Reno(_) => Reno::send_budget(core),
            CongestionControl::Vegas(_) => Vegas::send_budget(core),
        }
    }
}

/// A TCP sender as a sans-IO state machine. Feed it ACKs and timer calls;
/// drain [`TcpSender::poll_transmit`] after each.
#[derive(Clone, Debug)]
pub struct TcpSender {
    core: Core,
    cc: CongestionControl,
    /// TCP-AP: packets the window allows wait here for the pacer.
    ap: Option<TcpAp>,
}

impl TcpSender {
    pub fn new(cfg: &TcpConfig) -> Self {
        let mut core = Core::new(cfg);
        // Vegas handles duplicate ACKs its own way (no send_one in ns-2).
        core.limited_transmit &= cfg.variant != Variant::Vegas;
        let ap = cfg.pacing.as_ref().map(|p| TcpAp::new(p, cfg.payload_bytes));
        TcpSender { core, cc: CongestionControl::new(cfg), ap }
    }

    /// Phase of the coarse RTT clock (ns-2 draws `boot_time_` uniformly in
    /// [0, tick) per agent). Default 0.
    pub fn set_tick_phase(&mut self, phase: Time) {
        self.core.rto.set_phase(phase);
    }

    /// The application has `packets` more packets to send (`u64::MAX` for
    /// an infinite backlog).
    pub fn add_data(&mut self, now: Time, packets: u64) {
        let total = (self.core.data_total as u64).saturating_add(packets);
        self.core.data_total = total.min(i64::MAX as u64 - 1) as i64;
        // ns-2 advanceby() calls send_much() without a burst limit.
        self.core.budget = None;
        self.track_window(now);
    }

    /// The application stops offering data (`pauses`, after ns-2's `$ftp
    /// stop`): nothing beyond what was already sent goes out; outstanding
    /// data is still retransmitted. [`Self::add_data`] resumes with the
    /// connection's window and timers as they are.
    pub fn withhold_new_data(&mut self) {
        self.core.data_total = self.core.data_total.min(self.core.t_seqno - 1);
    }

    #[cfg(test)] // only the unit tests read it
    /// An ACK arrived. Non-ACK segments are ignored. The path length is
    /// not known: TCP-AP takes no RTT sample (see [`Self::on_segment_via`]).
    pub fn on_segment(&mut self, now: Time, seg: &TcpSegment) {
        self.on_segment_via(now, seg, 0);
    }

    /// An ACK arrived after `hops` hops of the wireless part (0: unknown).
    /// TCP-AP samples the RTT of the wireless part from it: now minus the
    /// echoed send time minus the RTT_wired a gateway wrote into the ACK.
    pub fn on_segment_via(&mut self, now: Time, seg: &TcpSegment, hops: u32) {
        if !seg.is_ack {
            return;
        }
        if let Some(ap) = self.ap.as_mut() {
            let wired = seg.rtt_wired_ms.map_or(0.0, |ms| ms as f64 * 1e-3);
            let rtt = now.saturating_sub(seg.ts) as f64 * 1e-9 - wired;
            ap.on_ack(now, (hops > 0 && rtt > 0.0).then_some(rtt), hops);
        }
        let ack = seg.ack.min(i64::MAX as u64) as i64;
        if ack > self.core.maxseq {
            // Acknowledges something never sent: not from our receiver.
            return;
        }
        if self.core.ecn && seg.ece {
            self.cc.on_ecn(&mut self.core, ack);
        }
        if ack > self.core.highest_ack {
            self.cc.on_ack(&mut self.core, now, ack, seg.ece);
        } else if ack == self.core.highest_ack {
            self.cc.on_dupack(&mut self.core, now, ack);
        }
        self.core.budget = self.cc.send_budget(&self.core);
        self.track_window(now);
    }

    /// Handle expired timers. Harmless when nothing is due.
    pub fn on_timer(&mut self, now: Time) {
        match self.core.rtx_deadline {
            Some(d) if now >= d => {
                self.core.rtx_deadline = None;
                self.cc.on_timeout(&mut self.core, now);
                self.core.budget = None;
                if let Some(ap) = self.ap.as_mut() {
                    ap.on_timeout();
                }
                self.track_window(now);
            }
            _ => {}
        }
    }

    /// The next segment allowed now: forced sends (retransmissions) first,
    /// then new or go-back-N packets as the window allows. Call until None.
    /// With TCP-AP, what the window allows waits in the pacing queue (the
    /// fast retransmission excepted) and leaves when the pacer says so.
    pub fn poll_transmit(&mut self, now: Time) -> Option<TcpSegment> {
        if self.ap.is_none() {
            let (seq, _) = self.take_next()?;
            return Some(self.output(now, seq));
        }
        while let Some((seq, fast_rtx)) = self.take_next() {
            let ap = self.ap.as_mut().expect("paced");
            if fast_rtx {
                ap.on_fast_retransmit();
                return Some(self.output(now, seq));
            }
            if ap.suspended() {
                ap.bypass();
                return Some(self.output(now, seq));
            }
            ap.hold(seq, now);
        }
        let seq = self.ap.as_mut().expect("paced").release(now)?;
        Some(self.output(now, seq))
    }

    /// The next packet the window (ns-2 `send_much()`) or loss recovery
    /// releases, and whether it is the fast retransmission.
    fn take_next(&mut self) -> Option<(i64, bool)> {
        if let Some(seq) = self.core.forced.pop_front() {
            let fast = self.core.dupack_rtx == Some(seq);
            if fast {
                self.core.dupack_rtx = None;
            }
            return Some((seq, fast));
        }
        if self.core.budget == Some(0) {
            return None;
        }
        let seq = self.core.t_seqno;
        if seq <= self.core.highest_ack + self.core.window() as i64 && self.core.has_data(seq) {
            self.core.t_seqno += 1;
            if let Some(b) = self.core.budget.as_mut() {
                *b -= 1;
            }
            return Some((seq, false));
        }
        None
    }

    /// The earliest deadline at which [`TcpSender::on_timer`] (or, for a
    /// paced packet, [`TcpSender::poll_transmit`]) has work.
    pub fn next_timer(&self) -> Option<Time> {
        let pace = self.ap.as_ref().and_then(TcpAp::next_release);
        match (self.core.rtx_deadline, pace) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// TCP-AP's state, when pacing is on.
    pub fn pacing(&self) -> Option<&TcpAp> {
        self.ap.as_ref()
    }

    /// Congestion window in packets, fast-recovery inflation included.
    pub fn cwnd(&self) -> f64 {
        self.core.cwnd + self.core.dupwnd as f64
    }

    pub fn ssthresh(&self) -> f64 {
        self.core.ssthresh
    }

    /// ns-2's traced `cwnd_`: the window without fast-recovery inflation.
    pub fn cwnd_traced(&self) -> f64 {
        self.core.cwnd
    }

    /// RTT samples taken so far and the latest (seconds).
    pub fn rtt_samples(&self) -> (u64, f64) {
        (self.core.rto.samples(), self.core.rto.last_sample_s())
    }

    /// Retransmission timeouts and retransmitted segments so far.
    pub fn loss_counts(&self) -> (u64, u64) {
        (self.core.timeouts, self.core.retransmissions)
    }

    #[cfg(test)] // only the unit tests read it
    /// Packets the window allows in flight: min(cwnd, max_window), floored.
    pub fn effective_window(&self) -> u32 {
        self.core.window()
    }

    #[cfg(test)] // only the unit tests read it
    /// Highest cumulative ACK received (packet number), if any.
    pub fn highest_ack(&self) -> Option<u64> {
        u64::try_from(self.core.highest_ack).ok()
    }

    #[cfg(test)] // only the unit tests read it
    /// Next packet number the window loop would send.
    pub fn next_seq(&self) -> u64 {
        self.core.t_seqno as u64
    }

    #[cfg(test)] // only the unit tests read it
    /// Highest packet number sent so far, if any.
    pub fn max_sent(&self) -> Option<u64> {
        u64::try_from(self.core.maxseq).ok()
    }

    /// The retransmission timeout that would be armed now.
    pub fn rto(&self) -> Time {
        self.core.rto.timeout()
    }

    /// All data the application offered has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.core.data_total > 0 && self.core.highest_ack >= self.core.data_total
    }

    pub fn stats(&self, now: Time) -> TcpSenderStats {
        let c = &self.core;
        TcpSenderStats {
            packets_sent: c.packets_sent,
            retransmissions: c.retransmissions,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            ecn_reductions: c.ecn_reductions,
            rtt_samples: c.rto.samples(),
            avg_rtt_s: c.rto.mean_sample_s(),
            avg_window: c.wstats.mean(now),
            window_hist: c.wstats.histogram(now),
            avg_window_traced: c.wstats_traced.mean(now),
            final_cwnd: self.cwnd(),
            pacing: self.ap.as_ref().map(TcpAp::stats),
        }
    }

    fn window_value(&self) -> f64 {
        self.cwnd().min(self.core.wnd as f64)
    }

    /// ns-2's traced cwnd_ (no fast-recovery inflation), capped like the window.
    fn traced_window_value(&self) -> f64 {
        self.core.cwnd.min(self.core.wnd as f64)
    }

    fn track_window(&mut self, now: Time) {
        let v = self.window_value();
        self.core.wstats.update(now, v);
        let t = self.traced_window_value();
        self.core.wstats_traced.update(now, t);
    }

    /// Emit packet `seq` (ns-2 `output()`).
    fn output(&mut self, now: Time, seq: i64) -> TcpSegment {
        let v = self.window_value();
        let t = self.traced_window_value();
        let c = &mut self.core;
        c.first_tx.get_or_insert(now);
        c.wstats.start(now, v);
        c.wstats_traced.start(now, t);
        let is_syn = c.syn && seq == 0;
        let mut seg = TcpSegment {
            seq: seq as u64,
            syn: is_syn,
            ect: c.ecn && !is_syn,
            payload_bytes: if is_syn { 0 } else { c.payload },
            ts: now,
            ..Default::default()
        };
        // ns-2 SetCWRonRetransmit_ true: the next segment, whatever it is.
        if c.cong_action {
            seg.cwr = true;
            c.cong_action = false;
        }
        // With nothing outstanding the timer restarts from this send.
        let force_timer = c.highest_ack == c.maxseq;
        c.packets_sent += 1;
        if seq > c.maxseq {
            c.maxseq = seq;
            c.rto.on_new_segment(seq, now);
        } else {
            c.retransmissions += 1;
        }
        if c.rtx_deadline.is_none() || force_timer {
            c.arm_rtx(now);
        }
        self.cc.on_transmit(&self.core, now, seq);
        seg
    }
}

#[cfg(test)]
pub(super) mod testutil {
    use super::*;
    use crate::engine::NS_PER_MS;

    pub const MS: Time = NS_PER_MS;

    pub fn ack(n: u64) -> TcpSegment {
        TcpSegment::new_ack(n, 0)
    }

    pub fn ack_ece(n: u64) -> TcpSegment {
        TcpSegment { ece: true, ..TcpSegment::new_ack(n, 0) }
    }

    /// Drain everything the sender may send now.
    pub fn drain(s: &mut TcpSender, now: Time) -> Vec<TcpSegment> {
        let mut v = Vec::new();
        while let Some(seg) = s.poll_transmit(now) {
            v.push(seg);
            assert!(v.len() < 10_000, "runaway sender");
        }
        v
    }

    pub fn seqs(v: &[TcpSegment]) -> Vec<u64> {
        v.iter().map(|s| s.seq).collect()
    }

    /// cwnd 8 in congestion-free slow start, with 1..=6 acked and 7..=14 in
    /// flight (initial ssthresh high enough not to interfere).
    pub fn at_window_8(c: &TcpConfig) -> TcpSender {
        let c = TcpConfig { initial_ssthresh: 1000, ..c.clone() };
        let mut s = established(&c, 100 * MS);
        for p in 1..=6 {
            ack_and_send(&mut s, 100 * MS + p * MS, ack(p));
        }
        assert_eq!(s.cwnd(), 8.0);
        assert_eq!(s.max_sent(), Some(14));
        s
    }

    /// Deliver an ACK and drain, returning the numbers sent.
    pub fn ack_and_send(s: &mut TcpSender, now: Time, seg: TcpSegment) -> Vec<u64> {
        s.on_segment(now, &seg);
        seqs(&drain(s, now))
    }

    pub fn cfg(variant: Variant) -> TcpConfig {
        TcpConfig { variant, ..TcpConfig::default() }
    }

    /// A sender with an infinite backlog whose setup segment has been sent
    /// at t=0 and acknowledged at `rtt`; returns it with data 1, 2 sent.
    pub fn established(cfg: &TcpConfig, rtt: Time) -> TcpSender {
        let mut s = TcpSender::new(cfg);
        s.add_data(0, u64::MAX);
        assert_eq!(seqs(&drain(&mut s, 0)), vec![0]);
        let sent = ack_and_send(&mut s, rtt, ack(0));
        assert_eq!(sent, vec![1, 2]);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::engine::time::to_secs;
    use crate::engine::NS_PER_S;

    #[test]
    fn setup_segment_then_initial_window() {
        let c = TcpConfig::default();
        let mut s = TcpSender::new(&c);
        assert!(s.poll_transmit(0).is_none(), "no data yet");
        s.add_data(0, u64::MAX);
        let first = drain(&mut s, 0);
        assert_eq!(first.len(), 1, "cwnd 1 for the setup segment");
        assert!(first[0].syn);
        assert_eq!(first[0].seq, 0);
        assert_eq!(first[0].ip_bytes(), 40);
        assert_eq!(s.cwnd(), 1.0);
        assert_eq!(s.next_timer(), Some(3 * NS_PER_S), "initial RTO 3 s");
        let sent = ack_and_send(&mut s, 100 * MS, ack(0));
        assert_eq!(sent, vec![1, 2]);
        assert_eq!(s.cwnd(), 2.0);
        // The setup segment's RTT (10 ticks) was the first sample.
        assert_eq!(s.stats(100 * MS).rtt_samples, 1);
        assert_eq!(s.rto(), 300 * MS);
    }

    #[test]
    fn without_setup_segment_data_starts_at_one() {
        let c = TcpConfig { syn: false, ..TcpConfig::default() };
        let mut s = TcpSender::new(&c);
        s.add_data(0, 5);
        let v = drain(&mut s, 0);
        assert_eq!(seqs(&v), vec![1, 2]);
        assert!(v.iter().all(|x| !x.syn && x.ip_bytes() == 1500));
    }

    #[test]
    fn finite_data_stops_and_reports_done() {
        let c = TcpConfig::default();
        let mut s = TcpSender::new(&c);
        s.add_data(0, 3);
        drain(&mut s, 0);
        assert_eq!(ack_and_send(&mut s, 10 * MS, ack(0)), vec![1, 2]);
        assert_eq!(ack_and_send(&mut s, 20 * MS, ack(1)), vec![3]);
        assert_eq!(ack_and_send(&mut s, 20 * MS, ack(2)), Vec::<u64>::new());
        assert!(!s.all_acked());
        s.on_segment(30 * MS, &ack(3));
        assert!(s.all_acked());
        s.add_data(40 * MS, 1);
        assert_eq!(seqs(&drain(&mut s, 40 * MS)), vec![4]);
    }

    #[test]
    fn slow_start_doubles_per_rtt() {
        let c = TcpConfig { initial_ssthresh: 1000, max_window: 1000, ..TcpConfig::default() };
        let mut s = established(&c, 10 * MS);
        let mut in_flight: Vec<u64> = vec![1, 2];
        let mut now = 10 * MS;
        for round in 0..5 {
            now += 10 * MS;
            let mut next = Vec::new();
            for &p in &in_flight {
                next.extend(ack_and_send(&mut s, now, ack(p)));
            }
            // Each ACK opens cwnd by one and releases two packets.
            assert_eq!(next.len(), 2 * in_flight.len(), "round {round}");
            assert_eq!(s.cwnd(), (2 * next.len()) as f64 / 2.0 + 0.0);
            in_flight = next;
        }
        assert_eq!(in_flight.len(), 64);
    }

    #[test]
    fn congestion_avoidance_adds_one_per_window() {
        let c = TcpConfig { initial_ssthresh: 2, max_window: 1000, ..TcpConfig::default() };
        let mut s = established(&c, 10 * MS);
        assert_eq!(s.cwnd(), 2.0);
        let mut acks_at = [0u32; 12];
        let mut next_ack = 1;
        let mut now = 10 * MS;
        while s.cwnd() < 10.0 {
            now += MS;
            let w = s.cwnd();
            ack_and_send(&mut s, now, ack(next_ack));
            next_ack += 1;
            assert_eq!(s.cwnd(), w + 1.0 / w, "cwnd += 1/cwnd per ACK");
            acks_at[w.floor() as usize] += 1;
            let flight = s.max_sent().unwrap() - s.highest_ack().unwrap();
            assert_eq!(flight, s.cwnd().floor() as u64);
        }
        // About one window of ACKs per packet of growth.
        for (k, &n) in acks_at.iter().enumerate().take(10).skip(2) {
            assert!(n == k as u32 || n == k as u32 + 1, "{k}: {n}");
        }
    }

    #[test]
    fn max_window_limits_flight_even_with_huge_cwnd() {
        let c = TcpConfig { max_window: 4, initial_ssthresh: 1000, ..TcpConfig::default() };
        let mut s = established(&c, 10 * MS);
        let mut now = 10 * MS;
        for next_ack in 1..=200 {
            now += MS;
            ack_and_send(&mut s, now, ack(next_ack));
            let flight = s.max_sent().unwrap() - s.highest_ack().unwrap();
            assert!(flight <= 4, "{flight} in flight");
        }
        assert!(s.cwnd() > 100.0, "cwnd keeps growing as in ns-2");
        assert_eq!(s.effective_window(), 4);
        assert_eq!(s.max_sent().unwrap() - s.highest_ack().unwrap(), 4);
    }

    #[test]
    fn ack_for_unsent_data_and_data_segments_are_ignored() {
        let mut s = established(&TcpConfig::default(), 10 * MS);
        let before = s.cwnd();
        s.on_segment(20 * MS, &ack(50));
        let data = TcpSegment { seq: 1, payload_bytes: 1460, ..Default::default() };
        s.on_segment(20 * MS, &data);
        assert_eq!(s.cwnd(), before);
        assert_eq!(s.highest_ack(), Some(0));
    }

    #[test]
    fn rto_fires_goes_back_and_halves() {
        let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
        let mut s = established(&c, 100 * MS); // RTO 0.3 s
                                               // Grow to cwnd 6 with 1..4 acked; 5..10 in flight.
        let mut now = 100 * MS;
        for p in 1..=4 {
            now += 10 * MS;
            ack_and_send(&mut s, now, ack(p));
        }
        assert_eq!(s.cwnd(), 6.0);
        assert_eq!(s.max_sent(), Some(10));
        let deadline = s.next_timer().unwrap();
        let rto = s.rto();
        // A stale call does nothing.
        s.on_timer(deadline - 1);
        assert_eq!(s.cwnd(), 6.0);
        s.on_timer(deadline);
        assert_eq!(s.cwnd(), 1.0);
        assert_eq!(s.ssthresh(), 3.0);
        assert_eq!(s.stats(deadline).timeouts, 1);
        // Go-back-N from the first unacknowledged packet.
        let v = drain(&mut s, deadline);
        assert_eq!(seqs(&v), vec![5]);
        assert_eq!(s.stats(deadline).retransmissions, 1);
        // Backed-off timer.
        assert_eq!(s.next_timer(), Some(deadline + 2 * rto));
        // ACK 5 releases 6 and 7 (slow start from 1), both retransmissions.
        assert_eq!(ack_and_send(&mut s, deadline + 50 * MS, ack(5)), vec![6, 7]);
        assert_eq!(s.stats(deadline).retransmissions, 3);
        // A receiver that had buffered 6..10 jumps the ACK forward.
        let sent = ack_and_send(&mut s, deadline + 60 * MS, ack(10));
        assert_eq!(sent, vec![11, 12, 13]);
    }

    #[test]
    fn karn_no_sample_from_retransmission_and_backoff_persists() {
        let c = TcpConfig::default();
        let mut s = TcpSender::new(&c);
        s.add_data(0, u64::MAX);
        drain(&mut s, 0);
        // The setup segment is lost: timeout at 3 s, again at 3 + 6 s.
        s.on_timer(3 * NS_PER_S);
        assert_eq!(seqs(&drain(&mut s, 3 * NS_PER_S)), vec![0]);
        assert_eq!(s.next_timer(), Some(9 * NS_PER_S));
        assert_eq!(s.ssthresh(), 2.0, "ns-2: a lost setup segment sets ssthresh 2");
        // Its ACK comes back quickly: no RTT sample (retransmitted), and
        // the backoff stays: the re-armed timer is still 2 x 3 s.
        let t = 3 * NS_PER_S + 50 * MS;
        let sent = ack_and_send(&mut s, t, ack(0));
        assert_eq!(s.stats(t).rtt_samples, 0);
        assert_eq!(s.next_timer(), Some(t + 6 * NS_PER_S));
        // ns-2 bugfix_ss_: the initial window drops to 1.
        assert_eq!(sent, vec![1]);
        // Packet 1 is new, hence timed: its ACK gives the first sample and
        // ends the backoff.
        let t2 = t + 120 * MS;
        s.on_segment(t2, &ack(1));
        assert_eq!(s.stats(t2).rtt_samples, 1);
        assert_eq!(s.rto(), 360 * MS); // 12 ticks: 12 + 4*6
        assert_eq!(s.next_timer(), Some(t2 + 360 * MS));
    }

    #[test]
    fn idle_expiry_restarts_from_one_packet() {
        let c = TcpConfig { initial_ssthresh: 1000, ..TcpConfig::default() };
        let mut s = TcpSender::new(&c);
        s.add_data(0, 6);
        drain(&mut s, 0);
        let mut now = 100 * MS;
        ack_and_send(&mut s, now, ack(0));
        for p in 1..=6 {
            now += 10 * MS;
            ack_and_send(&mut s, now, ack(p));
        }
        assert!(s.all_acked());
        assert_eq!(s.cwnd(), 8.0);
        // The timer stays armed after the last ACK (ns-2 timerfix_).
        let d = s.next_timer().expect("armed");
        s.on_timer(d);
        assert_eq!(s.cwnd(), 1.0);
        assert_eq!(s.ssthresh(), 1000.0, "ssthresh kept");
        assert_eq!(s.stats(d).timeouts, 0, "not a loss");
        assert_eq!(s.next_timer(), None);
        s.add_data(d + NS_PER_S, 5);
        assert_eq!(seqs(&drain(&mut s, d + NS_PER_S)), vec![7]);
        assert!(s.next_timer().is_some());
    }

    #[test]
    fn window_stats_follow_cwnd() {
        let c = TcpConfig { initial_ssthresh: 1000, max_window: 4, ..TcpConfig::default() };
        let mut s = TcpSender::new(&c);
        s.add_data(0, u64::MAX);
        drain(&mut s, 0); // cwnd 1 from t=0
        ack_and_send(&mut s, NS_PER_S, ack(0)); // cwnd 2 from 1 s
        ack_and_send(&mut s, 3 * NS_PER_S, ack(1)); // 3 from 3 s
        ack_and_send(&mut s, 3 * NS_PER_S, ack(2)); // 4 from 3 s
        ack_and_send(&mut s, 4 * NS_PER_S, ack(3)); // 5, counted as 4
        let st = s.stats(6 * NS_PER_S);
        // 1*1 + 2*2 + 4*3 = 17 over 6 s
        assert!((st.avg_window - 17.0 / 6.0).abs() < 1e-9, "{}", st.avg_window);
        assert_eq!(st.window_hist, vec![0.0, 1.0, 2.0, 0.0, 3.0]);
        assert_eq!(st.final_cwnd, 5.0);
        // Nothing inflated the window: the traced average is the same.
        assert!((st.avg_window_traced - st.avg_window).abs() < 1e-12);
    }

    #[test]
    fn traced_window_average_excludes_fast_recovery_inflation() {
        let c = TcpConfig { limited_transmit: false, ..TcpConfig::default() };
        let mut s = at_window_8(&c); // cwnd 8 since 106 ms
        let t = 200 * MS;
        for _ in 0..3 {
            ack_and_send(&mut s, t, ack(6)); // third dupack: ssthresh 4, cwnd 4 + dupwnd 3
        }
        assert_eq!(s.cwnd(), 7.0);
        for _ in 0..4 {
            ack_and_send(&mut s, t, ack(6)); // dupwnd 7: the usable window is 11
        }
        assert_eq!(s.cwnd(), 11.0);
        let end = t + NS_PER_S;
        let st = s.stats(end);
        let before = s.core.wstats.mean(t) * to_secs(t); // the same for both up to t
        let span = to_secs(end);
        assert!((st.avg_window - (before + 11.0) / span).abs() < 1e-9, "{}", st.avg_window);
        assert!((st.avg_window_traced - (before + 4.0) / span).abs() < 1e-9, "{}", st.avg_window_traced);
    }
}
