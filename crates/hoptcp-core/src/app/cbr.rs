//! Constant bit rate source (ns-2 Application/Traffic/CBR): one packet of
//! `payload` bytes every `payload·8/rate` seconds from `start` until `stop`.
//! With `jitter` j > 0 each gap is the interval times U(1−j, 1+j); ns-2's
//! `random_ 1` is j = 0.5. The mean rate is unchanged.

use crate::engine::{RngStream, Time};

#[derive(Clone, Debug)]
pub struct Cbr {
    interval: Time,
    payload: u32,
    next: Time,
    stop: Time,
    seq: u64,
    jitter: f64,
    rng: RngStream,
}

impl Cbr {
    pub fn new(rate_bps: f64, payload: u32, start: Time, stop: Time, jitter: f64, rng: RngStream) -> Self {
        let interval = ((payload as f64 * 8.0 / rate_bps) * 1e9).round().max(1.0) as Time;
        Cbr { interval, payload, next: start, stop, seq: 0, jitter, rng }
    }

    /// When the next packet is due, if any.
    pub fn next_time(&self) -> Option<Time> {
        (self.next < self.stop).then_some(self.next)
    }

    /// Emit the due packet: returns (sequence number, payload bytes).
    pub fn emit(&mut self) -> (u64, u32) {
        let s = self.seq;
        self.seq += 1;
        self.next += if self.jitter > 0.0 {
            (self.interval as f64 * self.rng.uniform_in(1.0 - self.jitter, 1.0 + self.jitter)).round().max(1.0) as Time
        } else {
            self.interval
        };
        (s, self.payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_at_constant_rate_until_stop() {
        // 1000 B at 80 kb/s: one packet every 100 ms.
        let rng = RngStream::new(1, 0, crate::engine::StreamPurpose::AppTraffic);
        let mut c = Cbr::new(80_000.0, 1000, 1_000_000_000, 1_350_000_000, 0.0, rng);
        let mut times = vec![];
        while let Some(t) = c.next_time() {
            times.push(t);
            c.emit();
        }
        assert_eq!(times, vec![1_000_000_000, 1_100_000_000, 1_200_000_000, 1_300_000_000]);
    }

    #[test]
    fn jitter_keeps_the_mean_rate() {
        let rng = RngStream::new(1, 0, crate::engine::StreamPurpose::AppTraffic);
        let mut c = Cbr::new(80_000.0, 1000, 0, 10_000 * 100_000_000, 0.5, rng);
        let mut gaps = vec![];
        let mut last = 0;
        while let Some(t) = c.next_time() {
            if t > 0 {
                gaps.push(t - last);
            }
            last = t;
            c.emit();
        }
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean / 100e6 - 1.0).abs() < 0.01, "mean gap {mean}");
        assert!(gaps.iter().all(|g| (50_000_000..=150_000_000).contains(g)));
        assert!(gaps.iter().any(|g| *g < 60_000_000) && gaps.iter().any(|g| *g > 140_000_000));
    }
}
