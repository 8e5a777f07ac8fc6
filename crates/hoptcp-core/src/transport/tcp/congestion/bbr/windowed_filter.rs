//! A windowed maximum: the largest sample seen within the last `window`
//! units of time (BBR's BtlBw filter runs over packet-timed round trips).
//!
//! Kathleen Nichols' algorithm, as BBR uses it (draft-cardwell-iccrg-bbr-
//! congestion-control-00 §4.1.1.4; Linux `lib/win_minmax.c`; ns-3.37
//! `WindowedFilter`): keep the best, second-best and third-best samples of
//! successively later sub-windows, so that when the best ages out a good
//! replacement is already known, in O(1) memory and time.

/// One remembered sample and when it was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    value: f64,
    time: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowedMax {
    window: u64,
    /// Best, second best (later than best), third best (later still).
    s: [Sample; 3],
    /// A placeholder best: the next sample replaces it whatever its value.
    placeholder: f64,
}

impl WindowedMax {
    /// An empty filter over `window` time units.
    pub fn new(window: u64) -> Self {
        WindowedMax { window, s: [Sample { value: 0.0, time: 0 }; 3], placeholder: 0.0 }
    }

    /// Hold `value` as a placeholder (ns-3 builds BBR's filter with the
    /// initial pacing estimate as its "zero value"): [`Self::best`] reports
    /// it until the first sample, which replaces it even if smaller.
    pub fn seed(&mut self, value: f64, time: u64) {
        self.placeholder = value;
        self.reset(value, time);
    }

    /// The maximum over the window (0 when empty).
    pub fn best(&self) -> f64 {
        self.s[0].value
    }

    /// Forget everything and hold `value` taken at `time`.
    pub fn reset(&mut self, value: f64, time: u64) {
        self.s = [Sample { value, time }; 3];
    }

    /// Add `value` taken at `time` (times never go backwards).
    pub fn update(&mut self, value: f64, time: u64) {
        let new = Sample { value, time };
        // A new maximum, an empty filter, or nothing in the window any more.
        if self.s[0].value == self.placeholder
            || value >= self.s[0].value
            || time.saturating_sub(self.s[2].time) > self.window
        {
            self.reset(value, time);
            return;
        }
        if value >= self.s[1].value {
            self.s[1] = new;
            self.s[2] = new;
        } else if value >= self.s[2].value {
            self.s[2] = new;
        }
        self.age(new);
    }

    /// Let the best age out after a whole window, and refresh the second
    /// and third best after a quarter and a half window without a better one.
    fn age(&mut self, new: Sample) {
        let w = self.window;
        if new.time.saturating_sub(self.s[0].time) > w {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = new;
            if new.time.saturating_sub(self.s[0].time) > w {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
            }
        } else if self.s[1].value == self.s[0].value && new.time.saturating_sub(self.s[1].time) > w / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].value == self.s[1].value && new.time.saturating_sub(self.s[2].time) > w / 2 {
            self.s[2] = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed (sample, round, best expected after it) in order to a filter of
    /// a 10-round window.
    fn feed(steps: &[(f64, u64, f64)]) {
        let mut f = WindowedMax::new(10);
        assert_eq!(f.best(), 0.0, "empty");
        for &(v, t, best) in steps {
            f.update(v, t);
            assert_eq!(f.best(), best, "after {v} at round {t}");
        }
    }

    #[test]
    fn empty_then_first_sample() {
        feed(&[(5.0, 0, 5.0)]);
    }

    #[test]
    fn a_seeded_placeholder_gives_way_to_any_first_sample() {
        let mut f = WindowedMax::new(10);
        f.seed(238.0, 0);
        assert_eq!(f.best(), 238.0);
        f.update(0.9, 1);
        assert_eq!(f.best(), 0.9, "replaced although smaller");
        f.update(0.5, 2);
        assert_eq!(f.best(), 0.9, "an ordinary maximum from then on");
    }

    #[test]
    fn larger_sample_takes_over_at_once() {
        feed(&[(5.0, 0, 5.0), (3.0, 1, 5.0), (7.0, 2, 7.0)]);
    }

    #[test]
    fn maximum_holds_for_the_window_then_expires() {
        // One high sample at round 0, lower ones every round after it:
        // the maximum holds while round - 0 <= 10 and is gone after.
        let mut steps = vec![(10.0, 0, 10.0)];
        steps.extend((1..=10).map(|r| (4.0, r, 10.0)));
        steps.push((4.0, 11, 4.0));
        feed(&steps);
    }

    #[test]
    fn expiry_falls_back_to_the_best_of_the_later_samples() {
        // 10 at 0, then a decreasing series: when 10 expires the best left
        // is the largest sample still in the window (8 at round 3 is within
        // 10 rounds of 11), not the newest. Only three samples are kept: 6
        // (round 6) was not, since the third best is refreshed only after
        // half a window; the next expiry falls to 5 (round 9), below the
        // true maximum 6.
        feed(&[(10.0, 0, 10.0), (8.0, 3, 10.0), (6.0, 6, 10.0), (5.0, 9, 10.0), (2.0, 11, 8.0), (2.0, 14, 5.0)]);
    }

    #[test]
    fn everything_stale_resets_to_the_new_sample() {
        feed(&[(9.0, 0, 9.0), (1.0, 30, 1.0)]);
    }

    #[test]
    fn windowed_max_is_the_true_maximum_of_a_random_series_when_refreshed() {
        // Against a brute-force window maximum: the filter may only lag
        // behind it (keep an older, larger value) by the sub-window rule,
        // never report a value that was not in the window or exceed it.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut f = WindowedMax::new(10);
        let mut hist: Vec<(f64, u64)> = Vec::new();
        for t in 0..500u64 {
            let v: f64 = rng.random_range(1.0..100.0);
            f.update(v, t);
            hist.push((v, t));
            let in_window: Vec<f64> = hist.iter().filter(|(_, ht)| t - ht <= 10).map(|(x, _)| *x).collect();
            let true_max = in_window.iter().cloned().fold(0.0, f64::max);
            assert!(f.best() <= true_max, "t {t}: {} > {true_max}", f.best());
            assert!(in_window.contains(&f.best()), "t {t}: {} not in window", f.best());
        }
    }
}
