//! Time-weighted statistics of a piecewise-constant window: its average and
//! how long it spent at each integer size.
//!
//! The owner calls [`WindowStats::update`] with the current time whenever
//! the window may have changed; between calls the window is constant.

use crate::engine::time::to_secs;
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct WindowStats {
    started: Option<Time>,
    last_time: Time,
    current: f64,
    /// Integral of the window over time, in packet-seconds.
    integral: f64,
    /// Nanoseconds spent with floor(window) == i (exact, no float drift).
    hist_ns: Vec<u64>,
}

impl WindowStats {
    /// `max_window` sizes the histogram (values are clamped into it).
    pub fn new(max_window: u32) -> Self {
        WindowStats {
            started: None,
            last_time: 0,
            current: 0.0,
            integral: 0.0,
            hist_ns: vec![0; max_window as usize + 1],
        }
    }

    /// Start accounting at `now` with window `value`; later calls are no-ops.
    pub fn start(&mut self, now: Time, value: f64) {
        if self.started.is_none() {
            self.started = Some(now);
            self.last_time = now;
            self.current = value;
        }
    }

    /// The window is `value` from `now` on.
    pub fn update(&mut self, now: Time, value: f64) {
        if self.started.is_none() || value == self.current {
            return;
        }
        self.close_interval(now);
        self.current = value;
    }

    fn close_interval(&mut self, now: Time) {
        let dt = now.saturating_sub(self.last_time);
        if dt > 0 {
            self.integral += self.current * to_secs(dt);
            let i = self.bucket(self.current);
            self.hist_ns[i] += dt;
            self.last_time = now;
        }
    }

    fn bucket(&self, value: f64) -> usize {
        let top = self.hist_ns.len() - 1;
        if value <= 0.0 {
            0
        } else {
            (value.floor() as usize).min(top)
        }
    }

    /// Seconds of accounting up to `now`.
    pub fn elapsed_s(&self, now: Time) -> f64 {
        match self.started {
            Some(t0) => to_secs(now.saturating_sub(t0)),
            None => 0.0,
        }
    }

    /// Time-weighted mean window from the start to `now`; 0 before any time
    /// has passed.
    pub fn mean(&self, now: Time) -> f64 {
        let total = self.elapsed_s(now);
        if total <= 0.0 {
            return 0.0;
        }
        let open = self.current * to_secs(now.saturating_sub(self.last_time));
        (self.integral + open) / total
    }

    /// Seconds spent with floor(window) == i, index i, up to `now`.
    pub fn histogram(&self, now: Time) -> Vec<f64> {
        let mut h: Vec<f64> = self.hist_ns.iter().map(|&ns| to_secs(ns)).collect();
        if self.started.is_some() {
            let i = self.bucket(self.current);
            h[i] += to_secs(now.saturating_sub(self.last_time));
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    #[test]
    fn time_weighted_mean_and_histogram() {
        let mut w = WindowStats::new(8);
        assert_eq!(w.mean(5 * NS_PER_S), 0.0);
        w.update(0, 3.0); // ignored before start
        w.start(NS_PER_S, 1.0);
        w.update(2 * NS_PER_S, 2.5); // 1 s at 1.0
        w.update(2 * NS_PER_S, 2.5); // no change
        w.update(5 * NS_PER_S, 4.0); // 3 s at 2.5
                                     // 1 s more at 4.0 (open interval): (1 + 7.5 + 4) / 5
        let now = 6 * NS_PER_S;
        assert!((w.mean(now) - 12.5 / 5.0).abs() < 1e-12);
        let h = w.histogram(now);
        assert_eq!(h.len(), 9);
        assert_eq!(h[1], 1.0);
        assert_eq!(h[2], 3.0);
        assert_eq!(h[4], 1.0);
        assert_eq!(h.iter().sum::<f64>(), 5.0);
        assert_eq!(w.elapsed_s(now), 5.0);
    }

    #[test]
    fn values_beyond_histogram_go_to_last_bucket() {
        let mut w = WindowStats::new(4);
        w.start(0, 100.0);
        w.update(NS_PER_S, 0.5);
        let h = w.histogram(2 * NS_PER_S);
        assert_eq!(h[4], 1.0);
        assert_eq!(h[0], 1.0);
        assert!((w.mean(2 * NS_PER_S) - 50.25).abs() < 1e-12);
    }
}
