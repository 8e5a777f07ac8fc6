//! The event queue, ordered by (time, insertion sequence): equal-time events
//! run in the order they were scheduled (FIFO), as in ns-2's scheduler, which
//! makes runs deterministic.
//!
//! Two structures share one sequence counter: a binary min-heap of one-shot
//! events, and a [`TimerWheel`] of re-armable timers addressed by slot, where
//! restarting or cancelling a timer moves or removes its one entry. The next
//! event is the earlier of the two tops, so the order is exactly that of a
//! single queue in which cancelled expiries were skipped when popped.

use super::time::Time;
use super::timer_heap::{key, key_time, Key};
use super::timer_wheel::TimerWheel;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    key: Key,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    timers: TimerWheel<E>,
    next_seq: u64,
    now: Time,
    /// Events dispatched: entries popped plus keys taken inline.
    popped: u64,
    /// Of those, keys taken inline (`take_if_next`) without being queued.
    taken_inline: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            timers: TimerWheel::new(),
            next_seq: 0,
            now: 0,
            popped: 0,
            taken_inline: 0,
        }
    }

    /// Current simulated time (the time of the event being processed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    #[inline]
    fn next_key(&mut self, at: Time) -> Key {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        key(at.max(self.now), seq)
    }

    /// Schedule `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn schedule_at(&mut self, at: Time, event: E) {
        let key = self.next_key(at);
        self.heap.push(Entry { key, event });
    }

    /// Reserve `n` consecutive sequence numbers and return the first: events
    /// later scheduled with them (`schedule_seq`) are ordered as if they had
    /// been scheduled now, one after the other.
    #[inline]
    pub fn reserve(&mut self, n: u32) -> u64 {
        let first = self.next_seq;
        self.next_seq += n as u64;
        first
    }

    /// Schedule `event` at `at` with sequence number `seq` from `reserve`
    /// (the caller keeps each such key unique and not earlier than now).
    #[inline]
    pub fn schedule_seq(&mut self, at: Time, seq: u64, event: E) {
        debug_assert!(at >= self.now && seq < self.next_seq);
        self.heap.push(Entry { key: key(at, seq), event });
    }

    /// If an event keyed (`at`, `seq`) would be the next one popped, take it
    /// as popped without queueing it (the clock moves to `at`) and return
    /// true; otherwise nothing changes. `seq` is from `reserve`.
    #[inline]
    pub fn take_if_next(&mut self, at: Time, seq: u64) -> bool {
        let k = key(at, seq);
        let first = self.heap.peek().is_none_or(|e| k < e.key) && self.timers.peek_key().is_none_or(|t| k < t);
        if first {
            debug_assert!(at >= self.now && seq < self.next_seq);
            self.now = at;
            self.popped += 1;
            self.taken_inline += 1;
        }
        first
    }

    /// Schedule `event` `delay` nanoseconds from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule_at(self.now + delay, event);
    }

    /// Arm timer `slot` to deliver `event` at `at`, replacing the slot's
    /// pending expiry if any (ordered as a newly scheduled event).
    #[inline]
    pub fn arm(&mut self, slot: u32, at: Time, event: E) {
        let key = self.next_key(at);
        self.timers.set(slot, key, event, self.now);
    }

    /// Cancel timer `slot`'s pending expiry, if any.
    #[inline]
    pub fn cancel(&mut self, slot: u32) {
        self.timers.cancel(slot);
    }

    /// Remove and return the next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let from_heap = match (self.heap.peek(), self.timers.peek_key()) {
            (Some(e), Some(t)) => e.key < t,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return None,
        };
        let (k, event) = if from_heap {
            let e = self.heap.pop().expect("peeked");
            (e.key, e.event)
        } else {
            self.timers.pop().expect("peeked")
        };
        self.now = key_time(k);
        self.popped += 1;
        Some((self.now, event))
    }

    /// Time of the next event without removing it.
    pub fn peek_time(&mut self) -> Option<Time> {
        let h = self.heap.peek().map(|e| e.key);
        let k = match (h, self.timers.peek_key()) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(key_time(k))
    }

    /// Number of events dispatched so far (those taken inline included: each
    /// runs exactly where a queued event with its key would have run).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Of the events dispatched, those that went through the queue (pushed,
    /// then popped): `events_processed` less the keys taken inline.
    pub fn queue_entries(&self) -> u64 {
        self.popped - self.taken_inline
    }

    #[cfg(test)] // only the unit tests read it
    pub fn len(&self) -> usize {
        self.heap.len() + self.timers.len()
    }

    #[cfg(test)] // only the unit tests read it
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pops_in_time_order_and_fifo_for_ties() {
        let mut q = EventQueue::new();
        q.schedule_at(30, 'c');
        q.schedule_at(10, 'a');
        q.schedule_at(20, 'b');
        q.schedule_at(10, 'x');
        q.schedule_at(10, 'y');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'x', 'y', 'b', 'c']);
        assert_eq!(q.now(), 30);
        assert_eq!(q.events_processed(), 5);
    }

    #[test]
    fn schedule_in_is_relative_to_now() {
        let mut q = EventQueue::new();
        q.schedule_at(100, 1u8);
        q.pop();
        q.schedule_in(5, 2u8);
        assert_eq!(q.pop(), Some((105, 2)));
    }
    #[test]
    fn rearmed_and_cancelled_timers_leave_nothing_behind() {
        let mut q = EventQueue::new();
        q.schedule_at(10, 'a');
        q.arm(3, 10, 't'); // after 'a' at the same time
        q.schedule_at(10, 'b');
        q.arm(3, 10, 'u'); // re-armed: now after 'b', and 't' is gone
        q.arm(7, 5, 'v');
        q.cancel(7);
        q.cancel(9); // never armed: nothing happens
        q.arm(1, 20, 'w');
        q.arm(1, 15, 'x'); // moved earlier
        q.schedule_at(15, 'c');
        assert_eq!(q.len(), 5);
        let order: Vec<(Time, char)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(10, 'a'), (10, 'b'), (10, 'u'), (15, 'x'), (15, 'c')]);
        assert_eq!(q.events_processed(), 5);
        assert!(q.is_empty());
    }

    #[test]
    fn reserved_sequence_numbers_order_as_if_scheduled_when_reserved() {
        let mut q = EventQueue::new();
        q.schedule_at(10, 'a');
        let s = q.reserve(2);
        q.schedule_at(10, 'b');
        q.arm(0, 12, 't');
        q.schedule_seq(10, s, 'r'); // before 'b', scheduled later
        assert_eq!(q.pop(), Some((10, 'a')));
        // (10, s + 1) comes after 'r', still queued: not next.
        assert!(!q.take_if_next(10, s + 1));
        assert_eq!(q.pop(), Some((10, 'r')));
        // Now it is before 'b' (a later sequence number) and the timer.
        assert!(q.take_if_next(10, s + 1));
        assert_eq!((q.now(), q.events_processed(), q.queue_entries()), (10, 3, 2));
        assert_eq!(q.pop(), Some((10, 'b')));
        // A timer due earlier comes first.
        let s = q.reserve(1);
        assert!(!q.take_if_next(13, s));
        assert_eq!(q.pop(), Some((12, 't')));
        assert!(q.take_if_next(13, s));
        assert_eq!((q.now(), q.events_processed(), q.queue_entries(), q.len()), (13, 6, 4, 0));
    }

    #[test]
    fn timers_and_events_interleave_as_one_fifo_queue() {
        // A pseudo-random schedule of events, timer arms and cancels, against
        // one sorted list of everything scheduled minus the expiries that were
        // re-armed or cancelled: the same events in the same order.
        let mut q = EventQueue::new();
        let mut scheduled: Vec<(Time, u64, u32)> = Vec::new(); // (time, seq, id)
        let mut armed: std::collections::HashMap<u32, u32> = Default::default(); // slot -> id
        let mut dead = std::collections::HashSet::new();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x2545_f491_4f6c_dd1d);
        let mut rnd = |m: u64| rng.random_range(0..m);
        let mut seq = 0;
        for id in 0..20_000u32 {
            let at = rnd(200);
            match rnd(4) {
                0 => q.schedule_at(at, id),
                1 | 2 => {
                    let slot = rnd(64) as u32;
                    q.arm(slot, at, id);
                    if let Some(old) = armed.insert(slot, id) {
                        dead.insert(old);
                    }
                }
                _ => {
                    let slot = rnd(64) as u32;
                    q.cancel(slot);
                    if let Some(old) = armed.remove(&slot) {
                        dead.insert(old);
                    }
                    continue;
                }
            }
            scheduled.push((at, seq, id));
            seq += 1;
        }
        scheduled.sort();
        let want: Vec<u32> = scheduled.iter().map(|s| s.2).filter(|id| !dead.contains(id)).collect();
        let got: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert!(dead.len() > 1_000 && want.len() > 4_000);
        assert_eq!(got, want);
    }
}
