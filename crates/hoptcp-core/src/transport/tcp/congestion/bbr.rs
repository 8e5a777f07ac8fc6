//! BBR as the sender's congestion controller: feeds [`Bbr`] the delivery-rate
//! samples, RTTs and in-flight counts it needs, paces window sends at BBR's
//! rate, and does loss recovery the way ns-3.37's `TcpSocketBase` does for
//! BBR without SACK.
//!
//! - RTT: ns-3's (the oldest newly acknowledged segment, if never
//!   retransmitted, the setup segment included, smoothed; [`SmoothedRtt`]).
//!   The retransmission timer stays the sender's (ns-2's estimator).
//! - Pacing (ns-3 `TcpSocketBase`'s pacing timer): once the initial window
//!   has been sent, a window send must wait until the timer set by the
//!   previous send expires, `1 / pacing rate` after it; retransmissions
//!   forced by loss recovery leave at once (and start the timer if idle).
//! - Loss recovery: the third duplicate ACK retransmits the first missing
//!   packet and enters recovery (BBR: packet conservation for a round);
//!   partial ACKs retransmit the next one (RFC 6582); the ACK reaching
//!   `recover` ends recovery (BBR restores its cwnd). A timeout sets cwnd
//!   to one packet and goes back N, as ns-3 does; BBR rebuilds cwnd from
//!   its model. No limited transmit, no window inflation.

mod delivery_rate;
pub(crate) mod model;
mod windowed_filter;

use super::{Ack, Controller};
use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::transport::tcp::config::TcpConfig;
use crate::transport::tcp::state::{CwndAction, SenderState};
use delivery_rate::DeliveryRate;
use model::{AckInput, Bbr, BbrParams, Draws, SmoothedRtt, NO_RTT};
use std::collections::VecDeque;

/// What a run reports about BBR.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BbrStats {
    /// Seconds in Startup, Drain, ProbeBW and ProbeRTT, from the connection's start.
    pub state_s: [f64; 4],
    /// BtlBw at the end (packets/s).
    pub btl_bw_pps: f64,
    /// RTprop at the end (s; 0 before any).
    pub rt_prop_s: f64,
    pub pacing_rate_pps: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct BbrController {
    params: BbrParams,
    /// ProbeBW's first phases; taken when the connection opens.
    draws: Option<Draws>,
    /// The model, from the setup segment's ACK on (ns-3: `CA_OPEN`).
    bbr: Option<Bbr>,
    rate: DeliveryRate,
    rtt: SmoothedRtt,
    /// Packets sent and not yet acknowledged: (seq, first send, retransmitted).
    history: VecDeque<(i64, Time, bool)>,
    in_recovery: bool,
    /// Packets marked lost since the last ACK's sample.
    lost: u32,
    /// No window send before this (the pacing timer).
    pace_until: Time,
    initial_window: i64,
    state_time: [Time; 4],
    state_since: Time,
    /// cwnd set by a restart from idle, applied at the next ACK.
    restart_cwnd: Option<f64>,
}

impl BbrController {
    pub(super) fn new(cfg: &TcpConfig, draws: Draws) -> Self {
        BbrController {
            params: BbrParams::new(cfg.initial_window, cfg.payload_bytes),
            draws: Some(draws),
            bbr: None,
            rate: DeliveryRate::new(),
            rtt: SmoothedRtt::default(),
            history: VecDeque::new(),
            in_recovery: false,
            lost: 0,
            pace_until: 0,
            initial_window: cfg.initial_window.max(1) as i64,
            state_time: [0; 4],
            state_since: 0,
            restart_cwnd: None,
        }
    }

    /// Packets sent beyond the cumulative ACK (up to the go-back point).
    fn flight(core: &SenderState) -> u32 {
        (core.t_seqno - 1 - core.highest_ack).max(0) as u32
    }

    /// Pacing applies once the initial window has gone (ns-3 `PaceInitialWindow` false).
    fn pacing_on(&self, core: &SenderState) -> bool {
        self.bbr.is_some() && core.maxseq >= self.initial_window
    }

    /// The pacing timer holds window sends until this time, if it does now.
    fn paced_until(&self, core: &SenderState, now: Time) -> Option<Time> {
        (self.pacing_on(core) && now < self.pace_until).then_some(self.pace_until)
    }

    fn record_send(&mut self, core: &SenderState, now: Time, seq: i64) {
        let first = self.history.back().is_none_or(|h| h.0 < seq) && seq > core.highest_ack;
        if first {
            self.history.push_back((seq, now, false));
        } else if let Some(h) = self.history.iter_mut().find(|h| h.0 == seq) {
            h.2 = true;
        }
        if core.syn && seq == 0 {
            return;
        }
        // In flight before this send: t_seqno has already passed a window send.
        let flight = Self::flight(core) - u32::from(seq == core.t_seqno - 1 && Self::flight(core) > 0);
        // ns-3 CA_EVENT_TX_START: sending with nothing in flight.
        if flight == 0 {
            if let Some(b) = self.bbr.as_mut() {
                // A cwnd it restores applies from the next ACK (this hook cannot write it).
                let mut cwnd = core.cwnd;
                b.on_restart_from_idle(now, &mut cwnd, self.rtt.min());
                self.restart_cwnd = (cwnd != core.cwnd).then_some(cwnd);
            }
        }
        self.rate.on_send(now, seq, flight == 0);
        if self.pacing_on(core) && now >= self.pace_until {
            self.pace_until = now + self.bbr.as_ref().map_or(0, Bbr::pacing_interval);
        }
    }

    /// The application offers more data (ns-3 `CalculateAppLimited` on a
    /// write): if nothing was waiting and cwnd was not full, the samples of
    /// what is in flight are application-limited.
    fn app_data(&mut self, core: &SenderState) {
        let nothing_waiting = !core.has_data(core.t_seqno);
        let flight = Self::flight(core);
        if self.bbr.is_some() && nothing_waiting && (flight as f64) < core.cwnd {
            self.rate.mark_app_limited(flight);
        }
    }

    /// An RTT sample from the oldest packet `ack` covers (ns-3 `EstimateRtt`).
    fn take_rtt(&mut self, now: Time, ack: i64) {
        if let Some(&(seq, sent, retx)) = self.history.front() {
            if !retx && ack >= seq {
                self.rtt.sample(now - sent);
            }
        }
        while self.history.front().is_some_and(|h| h.0 <= ack) {
            self.history.pop_front();
        }
    }

    fn new_ack(&mut self, core: &mut SenderState, now: Time, ack: i64, ece: bool) {
        if let Some(c) = self.restart_cwnd.take() {
            core.cwnd = c;
        }
        let prior_in_flight = Self::flight(core);
        self.take_rtt(now, ack);
        let old = core.highest_ack;
        if self.bbr.is_none() {
            // The setup segment's ACK opens the connection (ns-3 CA_OPEN).
            core.newack(now, ack, ece);
            core.delay_growth(ack);
            let draws = self.draws.take().expect("opened once");
            self.bbr = Some(Bbr::new(self.params.clone(), draws, now, core.cwnd, self.rtt.last(), self.rtt.min()));
            self.state_since = now;
            return;
        }
        for seq in (old + 1)..=ack {
            self.rate.on_delivered(now, seq);
        }
        if self.in_recovery {
            if ack >= core.recover {
                self.in_recovery = false;
                core.last_action = CwndAction::Exited;
                let bbr = self.bbr.as_mut().expect("open");
                bbr.on_exit_recovery(&mut core.cwnd);
            } else {
                core.queue_output(ack + 1);
            }
        }
        core.newack(now, ack, ece);
        self.sample_and_control(core, now, (ack - old) as u32, prior_in_flight);
    }

    fn dup_ack(&mut self, core: &mut SenderState, now: Time) {
        let prior_in_flight = Self::flight(core);
        core.dupacks += 1;
        if self.bbr.is_none() {
            return;
        }
        if core.dupacks == core.numdupacks && !self.in_recovery && core.highest_ack >= core.recover {
            core.recover = core.maxseq;
            core.last_action = CwndAction::Dupack;
            core.reset_rtx_timer(now, true, false);
            core.queue_dupack_output(core.highest_ack + 1);
            core.fast_retransmits += 1;
            self.in_recovery = true;
            self.lost += 1;
            let flight = Self::flight(core);
            let bbr = self.bbr.as_mut().expect("open");
            bbr.on_enter_recovery(&mut core.cwnd, flight, 0);
        }
        self.sample_and_control(core, now, 0, prior_in_flight);
    }

    /// ns-3 runs BBR's `CongControl` on every ACK, duplicates included.
    fn sample_and_control(&mut self, core: &mut SenderState, now: Time, acked: u32, prior_in_flight: u32) {
        let min_rtt = (self.rtt.min() != NO_RTT).then_some(self.rtt.min());
        let rs = self.rate.generate(acked, std::mem::take(&mut self.lost), prior_in_flight, min_rtt);
        let input = AckInput {
            now,
            rs,
            delivered: self.rate.delivered,
            in_flight: Self::flight(core),
            last_rtt: self.rtt.last(),
            min_rtt: self.rtt.min(),
            in_recovery: self.in_recovery,
        };
        let bbr = self.bbr.as_mut().expect("open");
        let before = bbr.state();
        bbr.on_ack(&input, &mut core.cwnd);
        if bbr.state() != before {
            self.state_time[before.index()] += now - self.state_since;
            self.state_since = now;
        }
    }

    fn timeout(&mut self, core: &mut SenderState, now: Time) {
        if !core.outstanding() || self.bbr.is_none() {
            if self.bbr.is_none() {
                // The setup segment was lost: send it again.
                core.base_timeout(now);
            } else {
                core.rtx_deadline = None;
            }
            return;
        }
        let bbr = self.bbr.as_mut().expect("open");
        bbr.on_timeout(core.cwnd, self.in_recovery);
        self.in_recovery = false;
        self.lost += Self::flight(core);
        core.cwnd = 1.0;
        core.dupacks = 0;
        core.recover = core.maxseq;
        core.last_action = CwndAction::Timeout;
        core.timeouts += 1;
        core.reset_rtx_timer(now, false, core.timeout_backoff);
        for h in self.history.iter_mut() {
            h.2 = true;
        }
    }

    fn stats(&self, now: Time) -> BbrStats {
        let mut state_time = self.state_time;
        let Some(b) = self.bbr.as_ref() else { return BbrStats::default() };
        state_time[b.state().index()] += now.saturating_sub(self.state_since);
        BbrStats {
            state_s: state_time.map(to_secs),
            btl_bw_pps: b.btl_bw(),
            rt_prop_s: if b.rt_prop() == NO_RTT { 0.0 } else { to_secs(b.rt_prop()) },
            pacing_rate_pps: b.pacing_rate(),
        }
    }
}

impl Controller for BbrController {
    fn on_ack(&mut self, state: &mut SenderState, ack: &Ack) {
        self.new_ack(state, ack.now, ack.ack, ack.ece);
    }

    fn on_dupack(&mut self, state: &mut SenderState, ack: &Ack) {
        self.dup_ack(state, ack.now);
    }

    fn on_timeout(&mut self, state: &mut SenderState, now: Time) {
        self.timeout(state, now);
    }

    fn on_transmit(&mut self, state: &SenderState, now: Time, seq: i64) {
        self.record_send(state, now, seq);
    }

    /// No per-ACK burst limit: the pacer spaces sends.
    fn send_budget(&self, _state: &SenderState) -> Option<u32> {
        None
    }

    fn pacing_deadline(&self, state: &SenderState, now: Time) -> Option<Time> {
        self.paced_until(state, now)
    }

    fn on_app_data(&mut self, state: &SenderState) {
        self.app_data(state);
    }

    fn seed(&mut self, seed: u64) {
        if let Some(d) = self.draws.as_mut() {
            d.reseed(seed);
        }
    }

    fn bbr(&self) -> Option<&Bbr> {
        self.bbr.as_ref()
    }

    fn bbr_stats(&self, now: Time) -> Option<BbrStats> {
        Some(self.stats(now))
    }
}
