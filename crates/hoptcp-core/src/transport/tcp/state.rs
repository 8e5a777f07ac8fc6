//! The sender's state that every congestion controller reads and changes:
//! ns-2.35 `TcpAgent`'s members (sequence numbers, cwnd, ssthresh, the
//! retransmission timer, counters) and the helpers the controllers build on
//! (`opencwnd`, `slowdown`, `newack`, the ECN response, the base timeout).
//! It imports no controller and not the sender, so the controllers
//! (`congestion/`) depend on it and on nothing above it.

use super::config::TcpConfig;
use super::rto::RtoEstimator;
use super::window_stats::WindowStats;
use crate::engine::Time;
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

/// Flags for [`SenderState::slowdown`] (ns-2 `slowdown(how)`).
pub(super) mod how {
    pub const SSTHRESH_HALF: u32 = 1;
    pub const CWND_HALF: u32 = 2;
    /// cwnd = 1 (ns-2 `CLOSE_CWND_RESTART` with `wnd_restart_` 1).
    pub const CWND_RESTART: u32 = 4;
    pub const CWND_ONE: u32 = 8;
}

/// Sender state shared by all variants: ns-2 `TcpAgent`'s members and the
/// helpers the variants build on. Sequence numbers are `i64` so that -1
/// can mean "nothing yet", as in ns-2.
#[derive(Clone, Debug)]
pub(super) struct SenderState {
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

impl SenderState {
    pub(super) fn new(cfg: &TcpConfig) -> Self {
        let wnd = cfg.max_window.max(1);
        let wnd_init = cfg.initial_window.max(1) as f64;
        let start: i64 = if cfg.syn { -1 } else { 0 };
        SenderState {
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
            // The setup segment goes out alone (ns-2 syn_ + delay_growth_);
            // TCP-Linux sets delay_growth_ false: it goes with the initial window.
            cwnd: if cfg.syn && !cfg.tcp_linux() { 1.0 } else { wnd_init },
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
