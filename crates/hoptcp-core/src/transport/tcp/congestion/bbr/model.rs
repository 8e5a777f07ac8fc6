//! BBR v1 as a sans-IO state machine: draft-cardwell-iccrg-bbr-congestion-
//! control-00 (2017) as ns-3.37's `TcpBbr` implements it. Units are packets
//! (data segments) and nanoseconds; rates are packets per second.
//!
//! The model (§4.1): BtlBw, a windowed maximum of delivery-rate samples over
//! 10 packet-timed round trips; RTprop, the minimum RTT over 10 s. Control:
//! pacing rate = pacing_gain × BtlBw, cwnd = cwnd_gain × BtlBw × RTprop
//! (plus quanta). States (§4.3): Startup (both gains 2.89) until the
//! bandwidth stops growing by 25 % over three rounds; Drain (pacing gain
//! 1/2.89) until in-flight data falls to one BDP; ProbeBW, cycling pacing
//! gains 5/4, 3/4, 1 × 6, one phase per RTprop; ProbeRTT, cwnd 4 for 200 ms
//! and a round trip when RTprop has not been refreshed for 10 s.
//!
//! Where ns-3.37 differs from the draft this follows ns-3, because BBR is
//! checked against it (docs/validation.md lists them):
//! - High gain 2.89 (draft 2/ln 2 = 2.885).
//! - RTprop and the connection's minimum RTT are fed ns-3's *smoothed* RTT
//!   (`TcpSocketState::m_lastRtt` is the RFC 6298 SRTT), not raw samples.
//! - The first ProbeBW phase index is 7 − U, U uniform in 0..=5 (draft:
//!   0..=6), so ProbeBW never starts in the 3/4 or the following phase.
//! - The initial pacing rate is high_gain × cwnd / RTT, RTT = the minimum
//!   RTT in whole milliseconds (1 ms before any; recomputed at the first
//!   RTT sample), and cwnd / RTT stands in the BtlBw filter as a
//!   placeholder that the first delivery-rate sample replaces, however small.
//! - Target inflight adds 3 packets of send quantum, and 2 more in the
//!   ProbeBW 5/4 phase; once the pipe is full the target adds ACK
//!   aggregation (Linux's `extra_acked`), with ns-3's epoch age counted in
//!   whole seconds and its 4096-byte epoch reset.
//! - An ACK without a delivery-rate sample feeds the last sample again;
//!   ProbeRTT does not mark rate samples application-limited.

use super::delivery_rate::RateSample;
use super::windowed_filter::WindowedMax;
use crate::engine::{Time, NS_PER_MS, NS_PER_S};

/// No RTT known yet (ns-3 `Time::Max()`).
pub const NO_RTT: Time = Time::MAX;

/// ProbeBW's pacing-gain cycle (draft §4.3.4.3).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BbrState {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl BbrState {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// BBR's constants (ns-3.37 `TcpBbr` attribute defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct BbrParams {
    pub high_gain: f64,
    /// BtlBw filter length in round trips.
    pub bw_window_rounds: u64,
    /// RTprop filter length.
    pub rtprop_window: Time,
    pub probe_rtt_duration: Time,
    /// Smallest cwnd BBR targets, packets.
    pub min_pipe_cwnd: f64,
    /// Initial window, packets (Startup grows cwnd until this much is delivered).
    pub initial_cwnd: f64,
    /// Segment payload, bytes: ns-3's byte-valued constants in packets.
    pub mss_bytes: f64,
    /// ACK-aggregation window, round trips.
    pub extra_acked_rounds: u32,
    /// ACK-aggregation epoch reset, bytes.
    pub ack_epoch_reset_bytes: f64,
    /// ns-3 `TcpSocketState::m_maxPacingRate` (4 Gb/s), bits/s.
    pub max_pacing_bps: f64,
}

impl BbrParams {
    pub fn new(initial_cwnd: u32, mss_bytes: u32) -> Self {
        BbrParams {
            high_gain: 2.89,
            bw_window_rounds: 10,
            rtprop_window: 10 * NS_PER_S,
            probe_rtt_duration: 200 * NS_PER_MS,
            min_pipe_cwnd: 4.0,
            initial_cwnd: initial_cwnd.max(1) as f64,
            mss_bytes: mss_bytes.max(1) as f64,
            extra_acked_rounds: 5,
            ack_epoch_reset_bytes: 4096.0,
            max_pacing_bps: 4e9,
        }
    }
}

/// What the sender knows after processing one ACK, as BBR needs it.
#[derive(Clone, Copy, Debug)]
pub struct AckInput {
    pub now: Time,
    pub rs: RateSample,
    /// Packets delivered so far (the rate estimator's C.delivered).
    pub delivered: u64,
    /// Packets in flight after this ACK.
    pub in_flight: u32,
    /// The latest smoothed RTT ([`NO_RTT`] before any sample).
    pub last_rtt: Time,
    /// The smallest smoothed RTT so far ([`NO_RTT`] before any).
    pub min_rtt: Time,
    /// The sender is in fast recovery.
    pub in_recovery: bool,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    state: BbrState,
    btl_bw: WindowedMax,
    pacing_gain: f64,
    cwnd_gain: f64,
    filled_pipe: bool,
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prior_cwnd: f64,
    /// ns-3 `m_appLimited`: set in ProbeRTT, read only on restart from idle.
    app_limited_mark: bool,
    idle_restart: bool,
    full_bw: f64,
    full_bw_count: u32,
    rt_prop: Time,
    rt_prop_stamp: Time,
    rt_prop_expired: bool,
    cycle_stamp: Time,
    cycle_index: usize,
    has_seen_rtt: bool,
    pacing_rate: f64,
    extra_acked: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_rounds: u32,
    ack_epoch_time: Time,
    /// Bytes, as ns-3 counts them.
    ack_epoch_acked: f64,
    /// ProbeBW's starting phases.
    draws: Draws,
}

/// Where each entry into ProbeBW starts its gain cycle: the given phases
/// in turn, then uniform draws as ns-3.37 makes them (phase 7 − U advanced
/// once, U in 0..=5: phase 0 or 3..=7).
#[derive(Clone, Debug)]
pub struct Draws {
    given: std::collections::VecDeque<usize>,
    rng: rand_pcg::Pcg64,
}

impl Draws {
    pub fn new(given: &[u8], seed: u64) -> Self {
        use rand::SeedableRng;
        Draws { given: given.iter().map(|&p| p as usize % 8).collect(), rng: rand_pcg::Pcg64::seed_from_u64(seed) }
    }

    /// Reseed the draws that follow the given phases.
    pub fn reseed(&mut self, seed: u64) {
        use rand::SeedableRng;
        self.rng = rand_pcg::Pcg64::seed_from_u64(seed);
    }

    /// Phase index before the advance that starts ProbeBW.
    fn pre_index(&mut self) -> usize {
        use rand::Rng;
        match self.given.pop_front() {
            Some(p) => (p + 7) % 8,
            None => 7 - self.rng.random_range(0..6usize),
        }
    }
}

impl Bbr {
    /// BBR at connection establishment (ns-3: `CongestionStateSet(CA_OPEN)`
    /// the first time) with cwnd `cwnd` packets and the RTT known then.
    pub fn new(p: BbrParams, draws: Draws, now: Time, cwnd: f64, last_rtt: Time, min_rtt: Time) -> Self {
        let mut b = Bbr {
            btl_bw: WindowedMax::new(p.bw_window_rounds),
            state: BbrState::Startup,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            filled_pipe: false,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd: cwnd,
            app_limited_mark: false,
            idle_restart: false,
            full_bw: 0.0,
            full_bw_count: 0,
            rt_prop: last_rtt,
            rt_prop_stamp: now,
            rt_prop_expired: false,
            cycle_stamp: 0,
            cycle_index: 0,
            has_seen_rtt: false,
            pacing_rate: 0.0,
            extra_acked: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_rounds: 0,
            ack_epoch_time: now,
            ack_epoch_acked: 0.0,
            draws,
            p,
        };
        b.init_pacing_rate(cwnd, min_rtt);
        b
    }

    pub fn state(&self) -> BbrState {
        self.state
    }
    /// BtlBw, packets per second.
    pub fn btl_bw(&self) -> f64 {
        self.btl_bw.best()
    }
    /// RTprop ([`NO_RTT`] before any).
    pub fn rt_prop(&self) -> Time {
        self.rt_prop
    }
    /// Pacing rate, packets per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    #[cfg(test)]
    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }
    #[cfg(test)]
    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }
    #[cfg(test)]
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    #[cfg(test)]
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// Time between two paced packets now.
    pub fn pacing_interval(&self) -> Time {
        if self.pacing_rate <= 0.0 {
            return 0;
        }
        (NS_PER_S as f64 / self.pacing_rate).round() as Time
    }

    fn init_pacing_rate(&mut self, cwnd: f64, min_rtt: Time) {
        // ns-3: the minimum RTT in whole milliseconds, at least 1.
        let rtt_ms = if min_rtt != NO_RTT {
            self.has_seen_rtt = true;
            (min_rtt / NS_PER_MS).max(1)
        } else {
            1
        };
        let nominal = cwnd / (rtt_ms as f64 * 1e-3);
        self.pacing_rate = self.pacing_gain * nominal;
        self.btl_bw.seed(nominal, 0);
    }

    /// Packets in flight for `gain` × the estimated BDP, plus quanta.
    pub fn inflight(&self, gain: f64) -> f64 {
        if self.rt_prop == NO_RTT {
            return self.p.initial_cwnd;
        }
        let bdp = self.btl_bw.best() * self.rt_prop as f64 * 1e-9;
        let quanta = 3.0;
        let probe = if self.state == BbrState::ProbeBw && self.cycle_index == 0 { 2.0 } else { 0.0 };
        gain * bdp + quanta + probe
    }

    /// One ACK (ns-3 `CongControl`): update the model and state, then the
    /// pacing rate and `cwnd` (packets).
    pub fn on_ack(&mut self, a: &AckInput, cwnd: &mut f64) {
        self.update_btl_bw(a);
        self.update_ack_aggregation(a, *cwnd);
        self.check_cycle_phase(a);
        self.check_full_pipe(&a.rs);
        self.check_drain(a.now, a.in_flight);
        self.update_rt_prop(a.now, a.last_rtt);
        self.check_probe_rtt(a, cwnd);
        self.set_pacing_rate(self.pacing_gain, *cwnd, a.min_rtt);
        self.set_cwnd(a, cwnd);
    }

    fn update_btl_bw(&mut self, a: &AckInput) {
        let rate = a.rs.delivery_rate;
        if rate == 0.0 {
            return;
        }
        if a.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        } else {
            self.round_start = false;
        }
        if rate >= self.btl_bw.best() || !a.rs.is_app_limited {
            self.btl_bw.update(rate, self.round_count);
        }
    }

    fn update_ack_aggregation(&mut self, a: &AckInput, cwnd: f64) {
        if a.rs.acked == 0 || a.rs.delivered < 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= self.p.extra_acked_rounds {
                self.extra_acked_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0.0;
            }
        }
        let mss = self.p.mss_bytes;
        // ns-3 keeps the epoch's age in whole seconds.
        let epoch_s = ((a.now as f64 - self.ack_epoch_time as f64) * 1e-9).max(0.0).floor();
        let mut expected = self.btl_bw.best() * mss * epoch_s;
        let acked = a.rs.acked as f64 * mss;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= self.p.ack_epoch_reset_bytes {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_time = a.now;
            expected = 0.0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(cwnd * mss);
        if extra > self.extra_acked[self.extra_acked_idx] {
            self.extra_acked[self.extra_acked_idx] = extra;
        }
    }

    /// Extra cwnd for ACK aggregation, packets.
    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.filled_pipe {
            return 0.0;
        }
        let max_aggr = self.btl_bw.best() * 0.1; // 100 ms at BtlBw
        (self.extra_acked[0].max(self.extra_acked[1]) / self.p.mss_bytes).min(max_aggr)
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
    }

    fn is_next_cycle_phase(&self, a: &AckInput) -> bool {
        let full_length = self.rt_prop != NO_RTT && a.now.saturating_sub(self.cycle_stamp) > self.rt_prop;
        let prior = a.rs.prior_in_flight as f64;
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (a.rs.lost > 0 || prior >= self.inflight(self.pacing_gain))
        } else {
            full_length || prior <= self.inflight(1.0)
        }
    }

    fn check_cycle_phase(&mut self, a: &AckInput) {
        if self.state == BbrState::ProbeBw && self.is_next_cycle_phase(a) {
            self.advance_cycle_phase(a.now);
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.btl_bw.best() >= self.full_bw * 1.25 {
            self.full_bw = self.btl_bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    fn enter_startup(&mut self) {
        self.state = BbrState::Startup;
        self.pacing_gain = self.p.high_gain;
        self.cwnd_gain = self.p.high_gain;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.state = BbrState::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        self.cycle_index = self.draws.pre_index();
        self.advance_cycle_phase(now);
    }

    fn check_drain(&mut self, now: Time, in_flight: u32) {
        if self.state == BbrState::Startup && self.filled_pipe {
            self.state = BbrState::Drain;
            self.pacing_gain = 1.0 / self.p.high_gain;
            self.cwnd_gain = self.p.high_gain;
        }
        // The same ACK may end Drain at once.
        if self.state == BbrState::Drain && in_flight as f64 <= self.inflight(1.0) {
            self.enter_probe_bw(now);
        }
    }

    fn update_rt_prop(&mut self, now: Time, last_rtt: Time) {
        self.rt_prop_expired = now > self.rt_prop_stamp.saturating_add(self.p.rtprop_window);
        if last_rtt <= self.rt_prop || self.rt_prop_expired {
            self.rt_prop = last_rtt;
            self.rt_prop_stamp = now;
        }
    }

    fn save_cwnd(&mut self, cwnd: f64, in_recovery: bool) {
        if !in_recovery && self.state != BbrState::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    fn restore_cwnd(&self, cwnd: &mut f64) {
        *cwnd = cwnd.max(self.prior_cwnd);
    }

    fn check_probe_rtt(&mut self, a: &AckInput, cwnd: &mut f64) {
        if self.state != BbrState::ProbeRtt && self.rt_prop_expired && !self.idle_restart {
            self.state = BbrState::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(*cwnd, a.in_recovery);
            self.probe_rtt_done = None;
        }
        if self.state == BbrState::ProbeRtt {
            self.app_limited_mark = true;
            match self.probe_rtt_done {
                None if a.in_flight as f64 <= self.p.min_pipe_cwnd => {
                    self.probe_rtt_done = Some(a.now + self.p.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = a.delivered;
                }
                None => {}
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && a.now > done {
                        self.rt_prop_stamp = a.now;
                        self.restore_cwnd(cwnd);
                        self.exit_probe_rtt(a.now);
                    }
                }
            }
        }
        // ns-3 tests the sample's delivered count, which is -1 (true) when invalid.
        if a.rs.delivered != 0 {
            self.idle_restart = false;
        }
    }

    fn exit_probe_rtt(&mut self, now: Time) {
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }

    fn set_pacing_rate(&mut self, gain: f64, cwnd: f64, min_rtt: Time) {
        let max_rate = self.p.max_pacing_bps / (8.0 * self.p.mss_bytes);
        let rate = (gain * self.btl_bw.best()).min(max_rate);
        if !self.has_seen_rtt && min_rtt != NO_RTT {
            self.init_pacing_rate(cwnd, min_rtt);
        }
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn set_cwnd(&mut self, a: &AckInput, cwnd: &mut f64) {
        let acked = a.rs.acked as f64;
        if acked > 0.0 && !(a.in_recovery && self.modulate_cwnd_for_recovery(a, cwnd)) {
            let target = self.inflight(self.cwnd_gain) + self.ack_aggregation_cwnd();
            if self.filled_pipe {
                *cwnd = (*cwnd + acked).min(target);
            } else if *cwnd < target || (a.delivered as f64) < self.p.initial_cwnd {
                *cwnd += acked;
            }
            *cwnd = cwnd.max(self.p.min_pipe_cwnd);
        }
        if self.state == BbrState::ProbeRtt {
            *cwnd = cwnd.min(self.p.min_pipe_cwnd);
        }
    }

    fn modulate_cwnd_for_recovery(&self, a: &AckInput, cwnd: &mut f64) -> bool {
        if a.rs.lost > 0 {
            *cwnd = (*cwnd - a.rs.lost as f64).max(1.0);
        }
        if self.packet_conservation {
            *cwnd = cwnd.max(a.in_flight as f64 + a.rs.acked as f64);
            return true;
        }
        false
    }

    /// Fast recovery begins (ns-3 `CongestionStateSet(CA_RECOVERY)`):
    /// packet conservation for a round, from in-flight plus what was acked.
    pub fn on_enter_recovery(&mut self, cwnd: &mut f64, in_flight: u32, last_acked: u32) {
        self.save_cwnd(*cwnd, false);
        *cwnd = in_flight as f64 + last_acked.max(1) as f64;
        self.packet_conservation = true;
    }

    /// Fast recovery ends (ns-3 `CA_EVENT_COMPLETE_CWR`).
    pub fn on_exit_recovery(&mut self, cwnd: &mut f64) {
        self.packet_conservation = false;
        self.restore_cwnd(cwnd);
    }

    /// The retransmission timer expired (ns-3 `CongestionStateSet(CA_LOSS)`),
    /// `cwnd` before the sender cuts it.
    pub fn on_timeout(&mut self, cwnd: f64, in_recovery: bool) {
        self.save_cwnd(cwnd, in_recovery);
        self.round_start = true;
    }

    /// Transmission restarts with nothing in flight (ns-3 `CA_EVENT_TX_START`):
    /// after a ProbeRTT, an idle restart keeps the pacing rate at BtlBw.
    pub fn on_restart_from_idle(&mut self, now: Time, cwnd: &mut f64, min_rtt: Time) {
        if !self.app_limited_mark {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_time = now;
        self.ack_epoch_acked = 0.0;
        if self.state == BbrState::ProbeBw {
            self.set_pacing_rate(1.0, *cwnd, min_rtt);
        } else if self.state == BbrState::ProbeRtt
            && self.probe_rtt_round_done
            && self.probe_rtt_done.is_some_and(|d| now > d)
        {
            self.rt_prop_stamp = now;
            self.restore_cwnd(cwnd);
            self.exit_probe_rtt(now);
        }
    }
}

/// The RTT BBR is fed, as ns-3.37 computes it (`RttMeanDeviation` with
/// α = 1/8 in integer nanoseconds; `m_lastRtt` is this smoothed value and
/// `m_minRtt` its minimum): one sample per ACK that newly acknowledges the
/// oldest outstanding packet, if that packet was never retransmitted.
#[derive(Clone, Copy, Debug)]
pub struct SmoothedRtt {
    srtt: Time,
    min: Time,
}

impl Default for SmoothedRtt {
    fn default() -> Self {
        SmoothedRtt { srtt: NO_RTT, min: NO_RTT }
    }
}

impl SmoothedRtt {
    pub fn sample(&mut self, m: Time) {
        if self.srtt == NO_RTT {
            self.srtt = m;
        } else {
            // srtt += (m - srtt) >> 3, arithmetic shift as ns-3's IntegerUpdate.
            let delta = m as i64 - self.srtt as i64;
            self.srtt = ((self.srtt as i64) + (delta >> 3)) as Time;
        }
        self.min = self.min.min(self.srtt);
    }
    /// The latest smoothed RTT ([`NO_RTT`] before any sample).
    pub fn last(&self) -> Time {
        self.srtt
    }
    /// The smallest smoothed RTT so far.
    pub fn min(&self) -> Time {
        self.min
    }
}

#[cfg(test)]
mod tests {
    use super::super::delivery_rate::DeliveryRate;
    use super::*;
    use std::collections::VecDeque;

    const MS: Time = NS_PER_MS;

    fn params() -> BbrParams {
        BbrParams::new(10, 1460)
    }

    fn rs(rate: f64, prior_delivered: u64, acked: u32) -> RateSample {
        RateSample {
            delivery_rate: rate,
            prior_delivered,
            delivered: 10,
            interval: 100 * MS,
            acked,
            ..Default::default()
        }
    }

    fn input(now: Time, rs: RateSample, delivered: u64, in_flight: u32, rtt: Time) -> AckInput {
        AckInput { now, rs, delivered, in_flight, last_rtt: rtt, min_rtt: rtt, in_recovery: false }
    }

    #[test]
    fn initial_pacing_rate_is_high_gain_times_cwnd_over_rtt() {
        // No RTT yet: ns-3 assumes 1 ms.
        let b = Bbr::new(params(), Draws::new(&[2], 0), 0, 10.0, NO_RTT, NO_RTT);
        assert_eq!(b.state(), BbrState::Startup);
        assert!((b.pacing_rate() - 2.89 * 10_000.0).abs() < 1e-6);
        assert_eq!(b.btl_bw(), 10_000.0, "the nominal rate stands in BtlBw");
        assert_eq!(b.inflight(1.0), 10.0, "no RTprop yet: the initial window");
        // With a 40.7 ms minimum RTT: whole milliseconds, 40.
        let b = Bbr::new(params(), Draws::new(&[2], 0), 0, 10.0, 40_700_000, 40_700_000);
        assert!((b.pacing_rate() - 2.89 * 250.0).abs() < 1e-9);
        assert_eq!(b.pacing_interval(), (1e9_f64 / (2.89 * 250.0)).round() as Time);
        assert!((b.inflight(1.0) - (250.0 * 0.0407 + 3.0)).abs() < 1e-9, "BDP + 3 packets of quanta");
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = Bbr::new(params(), Draws::new(&[2], 0), 0, 10.0, 100 * MS, 100 * MS);
        let mut cwnd = 10.0;
        // Rounds: each ACK's prior_delivered reaches the round's end marker.
        let rates = [100.0, 200.0, 300.0, 350.0, 400.0, 420.0, 430.0, 440.0];
        let mut delivered = 0;
        for (i, &r) in rates.iter().enumerate() {
            delivered += 10;
            let now = (i as Time + 1) * 100 * MS;
            b.on_ack(&input(now, rs(r, delivered - 10, 1), delivered, 500, 100 * MS), &mut cwnd);
            let full = i >= 7;
            assert_eq!(b.filled_pipe(), full, "round {} rate {r}", i + 1);
        }
        // 350 < 1.25 x 300 counts one round, 400 >= 375 starts over; 420,
        // 430, 440 are three rounds below 1.25 x 400 = 500: the pipe is full.
        assert_eq!(b.state(), BbrState::Drain, "500 in flight > one BDP: Drain");
        assert!((b.pacing_gain() - 1.0 / 2.89).abs() < 1e-12);
        assert_eq!(b.cwnd_gain(), 2.89);
        assert_eq!(b.round_count(), 8);
    }

    #[test]
    fn drain_ends_when_inflight_falls_to_one_bdp_and_probe_bw_cycles() {
        let mut b = Bbr::new(params(), Draws::new(&[0], 0), 0, 10.0, 100 * MS, 100 * MS);
        let mut cwnd = 10.0;
        let mut delivered = 0;
        let mut now = 0;
        // Flat bandwidth 1000 pkt/s: full pipe after 4 rounds (the first sets full_bw).
        for _ in 0..4 {
            delivered += 100;
            now += 100 * MS;
            b.on_ack(&input(now, rs(1000.0, delivered - 100, 1), delivered, 300, 100 * MS), &mut cwnd);
        }
        assert_eq!(b.state(), BbrState::Drain);
        // BDP = 1000 x 0.1 = 100 packets, plus 3 of quanta.
        assert!((b.inflight(1.0) - 103.0).abs() < 1e-9);
        now += MS;
        b.on_ack(&input(now, rs(1000.0, delivered - 50, 1), delivered, 104, 100 * MS), &mut cwnd);
        assert_eq!(b.state(), BbrState::Drain, "104 > 103");
        now += MS;
        b.on_ack(&input(now, rs(1000.0, delivered - 50, 1), delivered, 103, 100 * MS), &mut cwnd);
        assert_eq!(b.state(), BbrState::ProbeBw);
        assert_eq!(b.cycle_index(), 0, "phase 0 given: the 5/4 phase first");
        assert_eq!(b.pacing_gain(), 1.25);
        assert_eq!(b.cwnd_gain(), 2.0);
        assert!((b.pacing_rate() - 1250.0).abs() < 1e-9, "pacing = gain x BtlBw");
        // 5/4 ends after an RTprop only once in-flight reaches 5/4 BDP (+2).
        let start = now;
        now = start + 101 * MS;
        b.on_ack(&input(now, rs(1000.0, delivered - 50, 1), delivered, 103, 100 * MS), &mut cwnd);
        assert_eq!(b.cycle_index(), 0, "prior in flight 0 < 130");
        let mut s = rs(1000.0, delivered - 50, 1);
        s.prior_in_flight = 130;
        b.on_ack(&input(now, s, delivered, 129, 100 * MS), &mut cwnd);
        assert_eq!(b.cycle_index(), 1);
        assert_eq!(b.pacing_gain(), 0.75);
        // 3/4 ends early once in-flight is down to one BDP.
        let mut s = rs(1000.0, delivered - 50, 1);
        s.prior_in_flight = 103;
        now += MS;
        b.on_ack(&input(now, s, delivered, 102, 100 * MS), &mut cwnd);
        assert_eq!(b.cycle_index(), 2);
        // Gain-1 phases last exactly one RTprop each.
        for phase in 3..8 {
            now += 100 * MS;
            b.on_ack(&input(now, rs(1000.0, delivered - 50, 1), delivered, 103, 100 * MS), &mut cwnd);
            assert_eq!(b.cycle_index(), phase - 1, "not more than RTprop yet");
            now += 1;
            b.on_ack(&input(now, rs(1000.0, delivered - 50, 1), delivered, 103, 100 * MS), &mut cwnd);
            assert_eq!(b.cycle_index(), phase);
        }
    }

    #[test]
    fn random_first_phase_is_never_the_drain_phase() {
        let mut seen = [0u32; 8];
        for seed in 0..300 {
            let mut d = Draws::new(&[], seed);
            seen[(d.pre_index() + 1) % 8] += 1;
        }
        assert_eq!(seen[1], 0);
        assert_eq!(seen[2], 0, "ns-3 draws 0..=5: index 2 never starts either");
        for i in [0, 3, 4, 5, 6, 7] {
            assert!(seen[i] > 20, "{seen:?}");
        }
    }

    #[test]
    fn rt_prop_keeps_the_minimum_then_expires_into_probe_rtt() {
        let mut b = Bbr::new(params(), Draws::new(&[2], 0), 0, 10.0, NO_RTT, NO_RTT);
        let mut cwnd = 50.0;
        b.on_ack(&input(MS, rs(100.0, 0, 1), 1, 40, 80 * MS), &mut cwnd);
        assert_eq!(b.rt_prop(), 80 * MS);
        b.on_ack(&input(2 * MS, rs(100.0, 0, 1), 2, 40, 90 * MS), &mut cwnd);
        assert_eq!(b.rt_prop(), 80 * MS, "a larger RTT does not replace it");
        b.on_ack(&input(3 * MS, rs(100.0, 0, 1), 3, 40, 70 * MS), &mut cwnd);
        assert_eq!(b.rt_prop(), 70 * MS);
        // 10 s later without a lower sample: expired -> ProbeRTT, cwnd 4.
        let saved = cwnd;
        let t = 3 * MS + 10 * NS_PER_S + 1;
        b.on_ack(&input(t, rs(100.0, 0, 1), 4, 40, 95 * MS), &mut cwnd);
        assert_eq!(b.state(), BbrState::ProbeRtt);
        assert_eq!(b.rt_prop(), 95 * MS, "an expired RTprop takes the next sample");
        assert_eq!(cwnd, 4.0);
        // In-flight must reach 4 before the 200 ms clock starts.
        b.on_ack(&input(t + MS, rs(100.0, 0, 1), 5, 10, 95 * MS), &mut cwnd);
        b.on_ack(&input(t + 2 * MS, rs(100.0, 0, 1), 6, 4, 95 * MS), &mut cwnd);
        // A round must pass too (next_round_delivered = 6 now).
        b.on_ack(&input(t + 100 * MS, rs(100.0, 6, 1), 7, 4, 95 * MS), &mut cwnd);
        assert_eq!(b.state(), BbrState::ProbeRtt, "a round, but not 200 ms yet");
        b.on_ack(&input(t + 203 * MS, rs(100.0, 6, 1), 8, 4, 95 * MS), &mut cwnd);
        assert_eq!(b.state(), BbrState::Startup, "pipe never filled: back to Startup");
        assert_eq!(cwnd, saved + 1.0, "the cwnd saved on entry, restored, then grown by this ACK");
    }

    #[test]
    fn recovery_conserves_packets_then_restores() {
        let mut b = Bbr::new(params(), Draws::new(&[2], 0), 0, 10.0, 100 * MS, 100 * MS);
        let mut cwnd = 40.0;
        // A round starts (its end: 10 delivered).
        b.on_ack(&input(MS, rs(100.0, 0, 1), 10, 30, 100 * MS), &mut cwnd);
        cwnd = 40.0;
        b.on_enter_recovery(&mut cwnd, 30, 0);
        assert_eq!(cwnd, 31.0, "in flight + one packet");
        let mut a = input(2 * MS, rs(100.0, 5, 1), 11, 29, 100 * MS);
        a.in_recovery = true;
        a.rs.lost = 3;
        b.on_ack(&a, &mut cwnd);
        assert_eq!(cwnd, 30.0, "max(31 - 3 lost, 29 in flight + 1 acked)");
        // The next round ends conservation: cwnd follows BBR's target again.
        let mut a = input(3 * MS, rs(100.0, 10, 1), 12, 29, 100 * MS);
        a.in_recovery = true;
        b.on_ack(&a, &mut cwnd);
        assert_eq!(cwnd, 31.0, "conservation over: Startup grows cwnd by the packet acked");
        b.on_exit_recovery(&mut cwnd);
        assert_eq!(cwnd, 40.0);
    }

    /// A bottleneck of `rate` packets/s with base RTT `rtt` and a FIFO large
    /// enough never to drop: BBR with its rate sampler, ACK per packet, the
    /// sender paced after the initial window. Returns (time, state, BtlBw,
    /// RTprop, pacing rate, cwnd) after every ACK.
    fn run_path(rate: f64, rtt: Time, until: Time) -> Vec<(Time, BbrState, f64, Time, f64, f64)> {
        let gap = (1e9 / rate) as Time;
        let t0 = NS_PER_S;
        let mut dr = DeliveryRate::new();
        let mut srtt = SmoothedRtt::default();
        let mut bbr = Bbr::new(params(), Draws::new(&[3], 0), t0, 10.0, NO_RTT, NO_RTT);
        let mut cwnd: f64 = 10.0;
        let mut sent_at: VecDeque<Time> = VecDeque::new(); // of packets highest_ack+1..
        let mut acks: VecDeque<(Time, i64)> = VecDeque::new();
        let (mut next_seq, mut highest_ack, mut link_free) = (1i64, 0i64, 0);
        let mut next_pace = t0;
        let mut now = t0;
        let mut out = Vec::new();
        while now < until {
            // Send what cwnd and the pacer allow.
            while ((next_seq - 1 - highest_ack) as f64) < cwnd.floor() && (next_seq <= 10 || now >= next_pace) {
                dr.on_send(now, next_seq, next_seq - 1 == highest_ack);
                sent_at.push_back(now);
                let depart = now.max(link_free) + gap;
                link_free = depart;
                acks.push_back((depart + rtt - gap, next_seq));
                if next_seq >= 10 {
                    next_pace = now + bbr.pacing_interval();
                }
                next_seq += 1;
            }
            let next_ack = acks.front().map(|a| a.0).unwrap_or(Time::MAX);
            let window_open = ((next_seq - 1 - highest_ack) as f64) < cwnd.floor();
            now = if window_open { next_ack.min(next_pace) } else { next_ack };
            if acks.front().is_some_and(|a| a.0 <= now) {
                let (_, seq) = acks.pop_front().unwrap();
                let prior_in_flight = (next_seq - 1 - highest_ack) as u32;
                srtt.sample(now - sent_at.pop_front().unwrap());
                dr.on_delivered(now, seq);
                highest_ack = seq;
                let rs = dr.generate(1, 0, prior_in_flight, Some(srtt.min()));
                let in_flight = (next_seq - 1 - highest_ack) as u32;
                let a = AckInput {
                    now,
                    rs,
                    delivered: dr.delivered,
                    in_flight,
                    last_rtt: srtt.last(),
                    min_rtt: srtt.min(),
                    in_recovery: false,
                };
                bbr.on_ack(&a, &mut cwnd);
                out.push((now, bbr.state(), bbr.btl_bw(), bbr.rt_prop(), bbr.pacing_rate(), cwnd));
            }
        }
        out
    }

    #[test]
    fn on_a_steady_path_bbr_finds_bandwidth_and_rtt_and_cycles() {
        // 1000 packets/s (11.7 Mb/s of 1460-byte payloads), 50 ms: BDP 50.
        let tr = run_path(1000.0, 50 * MS, 25 * NS_PER_S);
        let at = |s: f64| tr.iter().rev().find(|r| r.0 <= (s * 1e9) as Time).unwrap();
        let (_, st, bw, rtprop, _, _) = *at(3.0);
        assert_eq!(st, BbrState::ProbeBw);
        // ns-3's sampler reads W/(W+1) of the bottleneck rate, W ~ 50..60.
        assert!(bw > 975.0 && bw <= 1000.0, "BtlBw {bw}");
        assert!((50 * MS..52 * MS).contains(&rtprop), "RTprop {rtprop}");
        // Startup left within the first second (about log2(50) rounds);
        // Drain too.
        let first_drain = tr.iter().find(|r| r.1 == BbrState::Drain).unwrap().0;
        let first_bw = tr.iter().find(|r| r.1 == BbrState::ProbeBw).unwrap().0;
        assert!(first_drain < 2 * NS_PER_S && first_bw < first_drain + 200 * MS, "{first_drain} {first_bw}");
        // Pacing rates in ProbeBW are the gains times BtlBw.
        let probe: Vec<_> = tr.iter().filter(|r| r.1 == BbrState::ProbeBw).collect();
        for r in &probe {
            let g = r.4 / r.2;
            assert!([1.25, 0.75, 1.0].iter().any(|x| (g - x).abs() < 1e-9), "gain {g}");
        }
        // The queue stays small in ProbeBW: cwnd near 2 BDP + quanta.
        let (_, _, bw, rtprop, _, cwnd) = *at(8.0);
        let bdp = bw * rtprop as f64 * 1e-9;
        assert!(cwnd <= 2.0 * bdp + 3.0 + 2.0 + 3.0, "cwnd {cwnd} bdp {bdp}");
        // ProbeRTT about 10 s after RTprop was last lowered, for 200 ms + a round.
        let pr: Vec<_> = tr.iter().filter(|r| r.1 == BbrState::ProbeRtt).collect();
        assert!(!pr.is_empty(), "ProbeRTT within 25 s");
        let (t_in, t_out) = (pr[0].0, pr.iter().take_while(|r| r.0 < pr[0].0 + NS_PER_S).last().unwrap().0);
        assert!(t_in > 10 * NS_PER_S && t_in < 13 * NS_PER_S, "entered at {t_in}");
        let dur = t_out - t_in;
        assert!((200 * MS..320 * MS).contains(&dur), "ProbeRTT lasted {dur}");
        assert!(pr.iter().all(|r| r.5 <= 4.0));
    }
}
