//! The TCP sender: machinery common to every congestion-control variant
//! (sequence state, the send loop, the retransmission timer, RTT timing,
//! ECN response, statistics), modelled on ns-2.35's `TcpAgent`. The state
//! the controllers share is in `state.rs`; the sender names a controller
//! only through `congestion::Controller` (see `congestion/mod.rs`).
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

use super::config::TcpConfig;
use super::congestion::bbr::BbrStats;
use super::congestion::{self, Ack, Controller};
use super::sack::recovery::SackRecovery;
use super::sack::SackStats;
use super::state::SenderState;
use super::tcp_ap::{TcpAp, TcpApStats};
use crate::engine::Time;
use crate::wire::TcpSegment;

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
    /// BBR's states and estimates, with `variant = "bbr"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbr: Option<BbrStats>,
    /// SACK recovery's counters, with `tcp.sack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<SackStats>,
}

/// A TCP sender as a sans-IO state machine. Feed it ACKs and timer calls;
/// drain [`TcpSender::poll_transmit`] after each.
#[derive(Debug)]
pub struct TcpSender {
    core: SenderState,
    cc: Box<dyn Controller>,
    /// TCP-AP: packets the window allows wait here for the pacer.
    ap: Option<TcpAp>,
    /// SACK-based loss recovery (`tcp.sack`): it takes the ACKs the
    /// controller's own duplicate-ACK handling would.
    sack: Option<SackRecovery>,
}

impl TcpSender {
    pub fn new(cfg: &TcpConfig) -> Self {
        let core = SenderState::new(cfg);
        let ap = cfg.pacing.as_ref().map(|p| TcpAp::new(p, cfg.payload_bytes));
        let cc = congestion::for_config(cfg, &core);
        let sack = cfg.sack.filter(|_| !cc.own_sack()).map(|p| SackRecovery::new(p, core.highest_ack));
        TcpSender { core, cc, ap, sack }
    }

    /// Phase of the coarse RTT clock (ns-2 draws `boot_time_` uniformly in
    /// [0, tick) per agent). Default 0.
    pub fn set_tick_phase(&mut self, phase: Time) {
        self.core.rto.set_phase(phase);
    }

    /// Seed the controller's own random draws (BBR's ProbeBW phases after
    /// those `tcp.bbr_phases` gives).
    pub fn seed_controller(&mut self, seed: u64) {
        self.cc.seed(seed);
    }

    /// BBR's state, BtlBw (packets/s), RTprop (s; 0 before any), pacing rate
    /// (packets/s) and pacing gain, once a BBR connection is open.
    pub fn bbr_point(&self) -> Option<[f64; 5]> {
        use super::congestion::bbr::model::NO_RTT;
        let b = self.cc.bbr()?;
        let rt = if b.rt_prop() == NO_RTT { 0.0 } else { b.rt_prop() as f64 * 1e-9 };
        Some([b.state().index() as f64, b.btl_bw(), rt, b.pacing_rate(), b.pacing_gain()])
    }

    #[cfg(test)] // only the unit tests read it
    pub(super) fn bbr(&self) -> Option<&super::congestion::bbr::model::Bbr> {
        self.cc.bbr()
    }

    /// The application has `packets` more packets to send (`u64::MAX` for
    /// an infinite backlog).
    pub fn add_data(&mut self, now: Time, packets: u64) {
        self.cc.on_app_data(&self.core);
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
        let a = Ack { now, ack, ece: seg.ece, rtt: Some(now.saturating_sub(seg.ts)) };
        let mut blocks = [(0, 0); crate::wire::MAX_SACK_BLOCKS];
        let mut n = 0;
        for (l, r) in seg.sack_blocks() {
            blocks[n] = (l.min(i64::MAX as u64) as i64, r.min(i64::MAX as u64) as i64);
            n += 1;
        }
        if self.cc.own_sack() {
            // Older ACKs change nothing (TCP-Linux's `old_ack`).
            if ack >= self.core.highest_ack {
                self.cc.on_sack_ack(&mut self.core, &a, &blocks[..n]);
            }
            self.core.budget = self.cc.send_budget(&self.core);
        } else if let Some(sack) = self.sack.as_mut() {
            sack.on_ack(&mut self.core, self.cc.as_mut(), &a, &blocks[..n]);
            self.core.budget = sack.send_budget(&self.core);
        } else {
            if ack > self.core.highest_ack {
                self.cc.on_ack(&mut self.core, &a);
            } else if ack == self.core.highest_ack {
                self.cc.on_dupack(&mut self.core, &a);
            }
            self.core.budget = self.cc.send_budget(&self.core);
        }
        self.track_window(now);
    }

    /// Handle expired timers. Harmless when nothing is due.
    pub fn on_timer(&mut self, now: Time) {
        match self.core.rtx_deadline {
            Some(d) if now >= d => {
                self.core.rtx_deadline = None;
                if let Some(sack) = self.sack.as_mut() {
                    sack.on_timeout(&self.core);
                }
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
            let (seq, _) = self.take_next(now)?;
            return Some(self.output(now, seq));
        }
        while let Some((seq, fast_rtx)) = self.take_next(now) {
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
    fn take_next(&mut self, now: Time) -> Option<(i64, bool)> {
        if let Some(seq) = self.core.forced.pop_front() {
            let fast = self.core.dupack_rtx == Some(seq);
            if fast {
                self.core.dupack_rtx = None;
            }
            return Some((seq, fast));
        }
        if self.cc.own_sack() {
            return self.cc.next_segment(&mut self.core).map(|seq| (seq, false));
        }
        let recovering = self.sack.as_ref().is_some_and(SackRecovery::in_recovery);
        if (!recovering && self.core.budget == Some(0)) || self.cc.pacing_deadline(&self.core, now).is_some() {
            return None;
        }
        if let Some(sack) = self.sack.as_mut() {
            if recovering {
                return sack.next_segment(&mut self.core).map(|seq| (seq, false));
            }
            while sack.skips(self.core.t_seqno, &self.core) {
                self.core.t_seqno += 1;
            }
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
        let pace = self.ap.as_ref().and_then(TcpAp::next_release).or_else(|| self.controller_release());
        match (self.core.rtx_deadline, pace) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When a pacing controller holds a packet the window would send now,
    /// the time it may leave.
    fn controller_release(&self) -> Option<Time> {
        let c = &self.core;
        let until = self.cc.pacing_deadline(c, 0)?;
        let open = c.t_seqno <= c.highest_ack + c.window() as i64 && c.has_data(c.t_seqno);
        open.then_some(until)
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
            bbr: self.cc.bbr_stats(now),
            sack: self.sack.as_ref().map(SackRecovery::stats).or_else(|| self.cc.sack_stats()),
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
mod bbr_tests;
#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod newreno_tests;
#[cfg(test)]
mod pacing_tests;
#[cfg(test)]
mod reno_tests;
#[cfg(test)]
mod sack_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;
#[cfg(test)]
mod vegas_tests;
