//! The event queue: a binary min-heap of small `Copy` records ordered by
//! (time, insertion sequence). Equal-time events therefore run in the order
//! they were scheduled (FIFO), as in ns-2's scheduler, which makes runs
//! deterministic. Cancelled timers are not removed: their owners bump a
//! generation counter and ignore stale events when they fire.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
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
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: 0, popped: 0 }
    }

    /// Current simulated time (the time of the event being processed).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn schedule_at(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time: at.max(self.now), seq, event });
    }

    /// Schedule `event` `delay` nanoseconds from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule_at(self.now + delay, event);
    }

    /// Remove and return the next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Time of the next event without removing it.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of events dispatched so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
