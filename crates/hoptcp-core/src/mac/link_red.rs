//! Link RED (Fu et al. 2003, Algorithm 1): RED driven by the link's own
//! contention instead of a queue length. Each node keeps an exponentially
//! weighted average of the MAC retries its packets needed; when the MAC takes
//! the head-of-line packet from the interface queue, the packet is marked
//! (ECN) or dropped with probability
//!
//! ```text
//! p = 0                                                  if avg < min_th
//! p = min((avg − min_th) / (max_th − min_th), max_p)     otherwise
//! ```
//!
//! and after the MAC is done with it, `avg ← (1 − w)·avg + w·retries`
//! (the papers print w = 1/8). Unlike RED, p never exceeds `max_p`: `max_th`
//! only sets the slope. "Retries" are the packet's failed attempts (CTS or
//! ACK timeouts): 0 for a packet that went through first time, the retry
//! limit for one the MAC gave up on.

use crate::engine::RngStream;
use crate::wire::MarkAction;

/// Exponentially weighted average of retries per transmitted packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryAverage {
    avg: f64,
    weight: f64,
}

impl RetryAverage {
    /// Starts at 0 (no contention seen yet).
    pub fn new(weight: f64) -> Self {
        RetryAverage { avg: 0.0, weight }
    }

    /// A packet left the MAC after `retries` failed attempts.
    #[inline]
    pub fn update(&mut self, retries: u32) {
        self.avg = (1.0 - self.weight) * self.avg + self.weight * retries as f64;
    }

    #[inline]
    pub fn value(&self) -> f64 {
        self.avg
    }
}

/// Link RED's constants (scenario table `[mac.link_red]`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LinkRedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w of the newest packet's retries.
    pub weight: f64,
    pub action: MarkAction,
}

impl LinkRedParams {
    /// Marking probability at average retry count `avg` (Algorithm 1, line 5).
    #[inline]
    pub fn probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else {
            ((avg - self.min_th) / (self.max_th - self.min_th)).min(self.max_p)
        }
    }
}

/// One node's Link RED: its constants and its own random stream.
#[derive(Clone, Debug)]
pub struct LinkRed {
    pub params: LinkRedParams,
    rng: RngStream,
}

impl LinkRed {
    pub fn new(params: LinkRedParams, rng: RngStream) -> Self {
        LinkRed { params, rng }
    }

    /// Decide for the head-of-line packet at average retry count `avg`:
    /// `Some(action)` if it is picked. Draws only when the probability is
    /// positive, so a node below `min_th` consumes no random numbers.
    #[inline]
    pub fn decide(&mut self, avg: f64) -> Option<MarkAction> {
        self.rng.bernoulli(self.params.probability(avg)).then_some(self.params.action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamPurpose;

    fn params() -> LinkRedParams {
        LinkRedParams { min_th: 0.5, max_th: 1.5, max_p: 0.2, weight: 0.125, action: MarkAction::Mark }
    }

    #[test]
    fn retry_average_is_the_papers_ewma() {
        let mut a = RetryAverage::new(0.125);
        assert_eq!(a.value(), 0.0);
        a.update(8);
        assert_eq!(a.value(), 1.0); // 7/8·0 + 1/8·8
        a.update(0);
        assert_eq!(a.value(), 0.875);
        a.update(2);
        assert!((a.value() - (0.875 * 0.875 + 0.25)).abs() < 1e-15);
        // A long run of first-time successes decays geometrically to 0.
        for _ in 0..200 {
            a.update(0);
        }
        assert!(a.value() < 1e-10);
        // A steady retry count is the fixed point.
        let mut b = RetryAverage::new(0.125);
        for _ in 0..500 {
            b.update(3);
        }
        assert!((b.value() - 3.0).abs() < 1e-12);
    }

    #[test]
    fn probability_below_at_and_above_the_thresholds() {
        let p = params();
        assert_eq!(p.probability(0.0), 0.0);
        assert_eq!(p.probability(0.499), 0.0, "below min_th: never");
        assert_eq!(p.probability(0.5), 0.0, "at min_th the ramp starts from 0");
        assert!((p.probability(0.6) - 0.1).abs() < 1e-12, "linear between the thresholds");
        assert!((p.probability(0.65) - 0.15).abs() < 1e-12);
        assert_eq!(p.probability(0.8), 0.2, "capped at max_p within the ramp");
        assert_eq!(p.probability(1.5), 0.2, "at max_th: max_p");
        assert_eq!(p.probability(7.0), 0.2, "above max_th: still max_p, never 1");
        let steep = LinkRedParams { max_p: 1.0, ..p };
        assert!((steep.probability(1.0) - 0.5).abs() < 1e-12);
        assert_eq!(steep.probability(1.5), 1.0);
        assert_eq!(steep.probability(3.0), 1.0);
    }

    #[test]
    fn decisions_follow_the_probability() {
        let mut red = LinkRed::new(params(), RngStream::new(1, 0, StreamPurpose::LinkRed));
        let n = 100_000;
        let below = (0..n).filter(|_| red.decide(0.3).is_some()).count();
        assert_eq!(below, 0);
        let mid = (0..n).filter(|_| red.decide(0.6).is_some()).count() as f64 / n as f64;
        assert!((mid - 0.1).abs() < 0.005, "p = 0.1 gave {mid}");
        let top = (0..n).filter(|_| red.decide(5.0).is_some()).count() as f64 / n as f64;
        assert!((top - 0.2).abs() < 0.005, "p = max_p = 0.2 gave {top}");
        let drop = LinkRedParams { action: MarkAction::Drop, max_p: 1.0, ..params() };
        let mut red = LinkRed::new(drop, RngStream::new(1, 0, StreamPurpose::LinkRed));
        assert_eq!(red.decide(2.0), Some(MarkAction::Drop));
    }
}
