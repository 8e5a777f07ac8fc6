//! The DCF backoff counter with ns-2's freeze/resume arithmetic: the counter
//! only runs while the medium has been idle for DIFS; a pause subtracts the
//! whole slots that elapsed since then; a resume waits a full DIFS again.

use crate::engine::Time;

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
    pub fn pause(&mut self, now: Time, slot: Time) {
        debug_assert!(self.busy && !self.paused);
        let counting_since = self.stime + self.difs_wait;
        let slots = if now > counting_since { (now - counting_since) / slot } else { 0 };
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
        b.pause(DIFS + 2 * SLOT + SLOT / 2, SLOT);
        assert_eq!(b.remaining(), 8 * SLOT);
        // Busy again during the DIFS wait: nothing consumed.
        b.resume(10_000_000, DIFS);
        b.pause(10_000_000 + DIFS / 2, SLOT);
        assert_eq!(b.remaining(), 8 * SLOT);
    }
}
