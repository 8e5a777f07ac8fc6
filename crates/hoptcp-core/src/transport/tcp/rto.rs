//! RTT estimation and the retransmission timeout, as ns-2.35's `TcpAgent`
//! computes them (RFC 2988 in clock ticks, `rfc2988_ true`, no timestamps).
//!
//! One segment is timed at a time. Samples are whole ticks of a coarse
//! clock; srtt and rttvar are kept in ns-2's fixed point (srtt with 3
//! fractional bits, rttvar with 2) so the RTO matches it to the tick.

use super::config::TcpConfig;
use crate::engine::time::to_secs;
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    tick: Time,
    min_rto: Time,
    max_rto: Time,
    /// Where the coarse clock's tick edges fall (ns-2 `boot_time_`).
    phase: Time,
    /// 8 x smoothed RTT, in ticks; 0 = no estimate yet.
    srtt8: i64,
    /// 4 x RTT variation, in ticks.
    rttvar4: i64,
    /// srtt + 4 rttvar, before clamping and backoff (ns-2 `t_rtxcur_`).
    rtxcur: Time,
    /// RTO multiplier, 1 when not backed off.
    backoff: u64,
    /// The one timed segment (ns-2 `rtt_active_`, `rtt_seq_`, `rtt_ts_`).
    timing: bool,
    timed_seq: i64,
    timed_at: Time,
    samples: u64,
    sample_sum_s: f64,
    /// The latest raw sample (for time series).
    last_sample_s: f64,
}

impl RtoEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        RtoEstimator {
            tick: cfg.rtt_tick().max(1),
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            phase: 0,
            srtt8: 0,
            rttvar4: 0,
            rtxcur: cfg.initial_rto,
            backoff: 1,
            timing: false,
            timed_seq: -1,
            timed_at: 0,
            samples: 0,
            sample_sum_s: 0.0,
            last_sample_s: 0.0,
        }
    }

    /// Offset of the tick clock. ns-2 draws it uniformly in [0, tick) per
    /// agent; hoptcp defaults to 0 so a run needs no random draw here.
    pub fn set_phase(&mut self, phase: Time) {
        self.phase = phase % self.tick;
    }

    /// The timeout to arm now (ns-2 `rtt_timeout()`): the RTO with min_rto
    /// applied before the backoff (RFC 2988), capped at max_rto, never
    /// below two ticks.
    pub fn timeout(&self) -> Time {
        let base = self.rtxcur.max(self.min_rto);
        base.saturating_mul(self.backoff).min(self.max_rto).max(2 * self.tick)
    }

    /// Double the multiplier after a timeout. As in ns-2 it keeps doubling
    /// past 64 while the backed-off RTO is still below max_rto, and once
    /// the multiplier exceeds 8 the smoothed RTT is distrusted: the next
    /// sample restarts the estimator.
    pub fn back_off(&mut self) {
        if self.backoff < 64 || self.timeout() < self.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    #[cfg(test)] // only the unit tests read it
    pub fn backoff(&self) -> u64 {
        self.backoff
    }

    /// A new (never sent) segment went out: time it unless one is timed.
    pub fn on_new_segment(&mut self, seq: i64, now: Time) {
        if !self.timing {
            self.timing = true;
            if seq > self.timed_seq {
                self.timed_seq = seq;
                self.timed_at = now;
            }
        }
    }

    /// Karn: after a retransmission nothing in flight can be timed.
    pub fn cancel_timing(&mut self) {
        self.timing = false;
    }

    /// Does `ack` cover the timed segment? If so, timing stops; the caller
    /// decides whether to take a sample.
    pub fn take_timed(&mut self, ack: i64) -> bool {
        if self.timing && ack >= self.timed_seq {
            self.timing = false;
            true
        } else {
            false
        }
    }

    /// Take an RTT sample for the timed segment, acknowledged now.
    pub fn sample(&mut self, now: Time) {
        let sent = self.timed_at;
        // Ticks of the coarse clock elapsed between send and ack.
        let ticks = ((now + self.phase) / self.tick) as i64 - ((sent + self.phase) / self.tick) as i64;
        self.update_ticks(ticks.max(1));
        self.samples += 1;
        self.last_sample_s = to_secs(now.saturating_sub(sent));
        self.sample_sum_s += self.last_sample_s;
    }

    /// Feed one RTT measurement of `ticks` ticks (at least 1).
    pub fn update_ticks(&mut self, ticks: i64) {
        let ticks = ticks.max(1);
        if self.srtt8 != 0 {
            let mut delta = ticks - (self.srtt8 >> 3);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            // First sample: srtt = rtt, rttvar = rtt / 2.
            self.srtt8 = ticks << 3;
            self.rttvar4 = ticks << 1;
        }
        let rto_ticks = ((self.rttvar4 << 3) + self.srtt8) >> 3;
        self.rtxcur = rto_ticks as Time * self.tick;
    }

    #[cfg(test)] // only the unit tests read it
    /// srtt + 4 rttvar before clamping and backoff.
    pub fn rto_unclamped(&self) -> Time {
        self.rtxcur
    }

    #[cfg(test)] // only the unit tests read it
    /// Smoothed RTT in ticks (fractional), 0 before the first sample.
    pub fn srtt_ticks(&self) -> f64 {
        self.srtt8 as f64 / 8.0
    }

    #[cfg(test)] // only the unit tests read it
    /// RTT variation in ticks (fractional).
    pub fn rttvar_ticks(&self) -> f64 {
        self.rttvar4 as f64 / 4.0
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The latest raw (unquantized) RTT sample, seconds; 0 if none.
    pub fn last_sample_s(&self) -> f64 {
        self.last_sample_s
    }

    /// Mean of the raw (unquantized) RTT samples, seconds; 0 if none.
    pub fn mean_sample_s(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sample_sum_s / self.samples as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_S};

    fn est() -> RtoEstimator {
        RtoEstimator::new(&TcpConfig::default())
    }

    #[test]
    fn initial_rto_is_three_seconds_and_backs_off() {
        let mut e = est();
        assert_eq!(e.timeout(), 3 * NS_PER_S);
        e.back_off();
        assert_eq!(e.timeout(), 6 * NS_PER_S);
        e.back_off();
        assert_eq!(e.timeout(), 12 * NS_PER_S);
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.timeout(), 60 * NS_PER_S, "capped at max_rto");
    }

    #[test]
    fn exact_values_in_ticks() {
        let mut e = est();
        // 10 ticks: srtt 10, rttvar 5, RTO = 10 + 4*5 = 30 ticks.
        e.update_ticks(10);
        assert_eq!(e.srtt_ticks(), 10.0);
        assert_eq!(e.rttvar_ticks(), 5.0);
        assert_eq!(e.rto_unclamped(), 300 * NS_PER_MS);
        assert_eq!(e.timeout(), 300 * NS_PER_MS);
        // 20 ticks: delta 10 -> srtt 10 + 10/8 = 11.25;
        // rttvar 5 + (10 - 5)/4 = 6.25; RTO = floor(11.25 + 25) = 36 ticks.
        e.update_ticks(20);
        assert_eq!(e.srtt_ticks(), 11.25);
        assert_eq!(e.rttvar_ticks(), 6.25);
        assert_eq!(e.timeout(), 360 * NS_PER_MS);
    }

    #[test]
    fn min_and_max_clamp() {
        let mut e = est();
        e.update_ticks(1); // srtt 1, rttvar 0.5 -> 3 ticks = 30 ms < 200 ms
        assert_eq!(e.rto_unclamped(), 30 * NS_PER_MS);
        assert_eq!(e.timeout(), 200 * NS_PER_MS);
        // min_rto is applied before the backoff (RFC 2988 correction).
        e.back_off();
        assert_eq!(e.timeout(), 400 * NS_PER_MS);

        let mut e = est();
        e.update_ticks(3000); // 30 s + 4*15 s = 90 s
        assert_eq!(e.rto_unclamped(), 90 * NS_PER_S);
        assert_eq!(e.timeout(), 60 * NS_PER_S);
    }

    #[test]
    fn backoff_doubles_past_64_until_max_rto_and_clobbers_srtt() {
        let mut e = est();
        e.update_ticks(1); // RTO 0.2 s after clamping
        let mut last = e.timeout();
        for i in 0..8 {
            e.back_off();
            let t = e.timeout();
            assert_eq!(t, (last * 2).min(60 * NS_PER_S), "step {i}");
            last = t;
        }
        // 0.2 s * 256 = 51.2 s: ns-2 kept doubling past 64.
        assert_eq!(e.backoff(), 256);
        assert_eq!(e.timeout(), 51_200 * NS_PER_MS);
        e.back_off();
        assert_eq!(e.timeout(), 60 * NS_PER_S);
        // Past 8, srtt was forgotten: the next sample starts afresh.
        assert_eq!(e.srtt_ticks(), 0.0);
        e.update_ticks(40);
        assert_eq!(e.srtt_ticks(), 40.0);
        assert_eq!(e.rttvar_ticks(), 20.0);
    }

    #[test]
    fn samples_count_tick_edges() {
        let mut e = est();
        // Sent at 5 ms, acked at 25 ms: 20 ms but 2 tick edges (10, 20).
        e.on_new_segment(1, 5 * NS_PER_MS);
        assert!(e.take_timed(1));
        e.sample(25 * NS_PER_MS);
        assert_eq!(e.srtt_ticks(), 2.0);
        // Sent at 11 ms, acked at 19 ms: no edge, but at least one tick.
        let mut e = est();
        e.on_new_segment(1, 11 * NS_PER_MS);
        assert!(e.take_timed(1));
        e.sample(19 * NS_PER_MS);
        assert_eq!(e.srtt_ticks(), 1.0);
        assert!((e.mean_sample_s() - 0.008).abs() < 1e-12);
        // 11 -> 26 ms crosses one edge (20); with a 5 ms phase the edges
        // are at 15 and 25: two ticks.
        for (phase, ticks) in [(0, 1.0), (5, 2.0)] {
            let mut e = est();
            e.set_phase(phase * NS_PER_MS);
            e.on_new_segment(1, 11 * NS_PER_MS);
            assert!(e.take_timed(1));
            e.sample(26 * NS_PER_MS);
            assert_eq!(e.srtt_ticks(), ticks, "phase {phase}");
        }
    }

    #[test]
    fn one_segment_timed_at_a_time() {
        let mut e = est();
        e.on_new_segment(1, 0);
        e.on_new_segment(2, 10); // ignored: 1 is being timed
        assert!(!e.take_timed(0));
        assert!(e.take_timed(1));
        assert!(!e.take_timed(2), "nothing timed any more");
        e.on_new_segment(3, 20);
        e.cancel_timing();
        assert!(!e.take_timed(3));
        // A later new segment may not re-time an older number.
        e.on_new_segment(2, 30);
        assert!(!e.take_timed(2));
    }
}
