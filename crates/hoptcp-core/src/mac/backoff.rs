//! The DCF backoff counter with ns-2's freeze/resume arithmetic: the counter
//! only runs while the medium has been idle for DIFS; a pause subtracts the
//! whole slots that elapsed since then; a resume waits a full DIFS again.

use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// How a pause counts the slots that elapsed (`mac.backoff_slots`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SlotCount {
    /// Exactly, on the integer clock.
    #[default]
    Exact,
    /// As ns-2.35 does, in double-precision seconds truncated to an integer
    /// (mac-timers.cc, `BackoffTimer::pause`: `slots = int(sr/mst)` with
    /// `sr = clock - (stime + difs_wait)`). When the medium turns busy exactly
    /// at a slot boundary, which is the rule when a contender that started
    /// counting at the end of the same frame wins (its frame arrives one
    /// propagation delay after it started, and so did the loser's count),
    /// rounding leaves `sr/mst` just below the whole number about every other
    /// time and the slot is not counted.
    Ns2,
}

impl SlotCount {
    pub fn is_exact(&self) -> bool {
        *self == SlotCount::Exact
    }
}

#[derive(Clone, Debug, Default)]
pub struct Backoff {
    busy: bool,
    paused: bool,
    /// When the current countdown (DIFS wait, then slots) began.
    stime: Time,
    /// Remaining backoff time (whole slots plus any extra pacing time).
    rtime: Time,
    /// DIFS still to wait before slots count down.
    difs_wait: Time,
}

impl Backoff {
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Start a backoff of `rtime` (the random slots plus any extra). Returns the
    /// expiry time if the medium is idle, or `None` if it starts frozen.
    pub fn start(&mut self, now: Time, rtime: Time, idle: bool, difs: Time) -> Option<Time> {
        debug_assert!(!self.busy);
        self.busy = true;
        self.paused = !idle;
        self.stime = now;
        self.rtime = rtime;
        self.difs_wait = difs;
        if idle {
            Some(now + difs + rtime)
        } else {
            None
        }
    }

    /// The medium turned busy: freeze, keeping the slots not yet counted.
    pub fn pause(&mut self, now: Time, slot: Time, count: SlotCount) {
        debug_assert!(self.busy && !self.paused);
        let counting_since = self.stime + self.difs_wait;
        let slots = match count {
            SlotCount::Exact if now > counting_since => (now - counting_since) / slot,
            SlotCount::Exact => 0,
            SlotCount::Ns2 => {
                let secs = |t: Time| t as f64 * 1e-9;
                let sr = secs(now) - (secs(self.stime) + secs(self.difs_wait));
                (sr / secs(slot)).max(0.0) as Time
            }
        };
        self.rtime = self.rtime.saturating_sub(slots * slot);
        self.paused = true;
        self.difs_wait = 0;
    }

    /// The medium is idle again: wait `difs`, then count the rest down.
    pub fn resume(&mut self, now: Time, difs: Time) -> Time {
        debug_assert!(self.busy && self.paused);
        self.paused = false;
        self.stime = now;
        self.difs_wait = difs;
        now + difs + self.rtime
    }

    /// The timer expired.
    pub fn expire(&mut self) {
        *self = Backoff::default();
    }

    #[cfg(test)] // only the unit tests read it
    /// Remaining backoff (for traces and tests).
    pub fn remaining(&self) -> Time {
        self.rtime
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const SLOT: Time = 20_000;
    const DIFS: Time = 50_000;

    #[test]
    fn idle_start_expires_after_difs_plus_slots() {
        let mut b = Backoff::default();
        assert_eq!(b.start(0, 5 * SLOT, true, DIFS), Some(DIFS + 5 * SLOT));
        assert!(b.is_busy() && !b.is_paused());
    }

    #[test]
    fn busy_start_is_frozen_until_resume() {
        let mut b = Backoff::default();
        assert_eq!(b.start(0, 3 * SLOT, false, DIFS), None);
        assert!(b.is_paused());
        assert_eq!(b.resume(1_000_000, DIFS), 1_000_000 + DIFS + 3 * SLOT);
    }

    #[test]
    fn pause_counts_only_whole_slots_after_difs() {
        let mut b = Backoff::default();
        b.start(0, 10 * SLOT, true, DIFS);
        // Busy 2.5 slots after DIFS: two slots consumed.
        b.pause(DIFS + 2 * SLOT + SLOT / 2, SLOT, SlotCount::Exact);
        assert_eq!(b.remaining(), 8 * SLOT);
        // Busy again during the DIFS wait: nothing consumed.
        b.resume(10_000_000, DIFS);
        b.pause(10_000_000 + DIFS / 2, SLOT, SlotCount::Exact);
        assert_eq!(b.remaining(), 8 * SLOT);
    }

    #[test]
    fn ns2_counting_loses_boundary_slots_about_half_the_time() {
        // Busy exactly k slots after DIFS, at times of a long run: the exact count
        // always keeps 30 - k slots; ns-2's double arithmetic often keeps one more.
        let (mut lost, mut n) = (0, 0);
        for i in 0..2000u64 {
            let start = 15_000_000_000 + i * 7_654_321; // 15 s .. 30 s, arbitrary phases
            let k = i % 30;
            let now = start + DIFS + k * SLOT;
            let mut exact = Backoff::default();
            exact.start(start, 30 * SLOT, true, DIFS);
            exact.pause(now, SLOT, SlotCount::Exact);
            assert_eq!(exact.remaining(), (30 - k) * SLOT);
            let mut ns2 = Backoff::default();
            ns2.start(start, 30 * SLOT, true, DIFS);
            ns2.pause(now, SLOT, SlotCount::Ns2);
            let kept = ns2.remaining() / SLOT;
            assert!(kept == 30 - k || kept == 31 - k, "k {k}: kept {kept}");
            lost += (kept == 31 - k) as u32;
            n += 1;
        }
        let share = lost as f64 / n as f64;
        assert!((0.2..0.8).contains(&share), "share of boundary slots lost: {share}");
        // Away from a boundary both count the same.
        let mut b = Backoff::default();
        b.start(0, 10 * SLOT, true, DIFS);
        b.pause(DIFS + 3 * SLOT + SLOT / 2, SLOT, SlotCount::Ns2);
        assert_eq!(b.remaining(), 7 * SLOT);
    }
}
