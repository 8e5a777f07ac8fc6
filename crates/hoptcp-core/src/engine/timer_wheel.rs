//! Re-armable timers on a wheel. The MAC's timers (SIFS/DIFS waits,
//! backoff, NAV, timeouts) are due within milliseconds: each goes into one of
//! 8,192 buckets of 4.1 µs, a circle about 33.5 ms long, where arming,
//! cancelling and taking the earliest cost a few steps, and no sifting.
//! Timers due later (TCP, AODV) go to a [`TimerHeap`].
//!
//! The order is exactly the heap's: by key (time, then sequence). A bucket
//! keeps its timers sorted by key (it holds one or two), and the earliest
//! timer is the smaller of the first occupied bucket's head (found from a
//! bitmap) and the heap's top. Every timer in the wheel is due within one
//! circle of the clock's bucket `cur`, so a bucket never holds two laps.
//! Measured against the heap alone (docs/performance.md, "A timer wheel").

use super::time::Time;
use super::timer_heap::{key_time, Key, TimerHeap};

/// A bucket spans 2^BUCKET_SHIFT ns (4.1 µs).
const BUCKET_SHIFT: u32 = 12;
/// 2^13 buckets: the wheel covers 33.5 ms ahead of the clock.
const BUCKETS: usize = 1 << 13;
const MASK: u64 = BUCKETS as u64 - 1;
/// Words of the occupancy bitmap: one bit each in `summary`.
const WORDS: usize = BUCKETS / 64;
const NIL: u32 = u32::MAX;

#[inline]
fn split(k: Key) -> [u64; 2] {
    [(k >> 64) as u64, k as u64]
}

#[inline]
fn join(k: [u64; 2]) -> Key {
    ((k[0] as u128) << 64) | k[1] as u128
}
/// `at[slot]` of a timer in the far heap.
const FAR: u32 = u32::MAX - 1;

/// `key` as two halves (time, sequence): 8-byte alignment keeps an entry at
/// 40 bytes instead of a `u128`'s 48.
struct Entry<E> {
    key: [u64; 2],
    event: E,
    slot: u32,
    prev: u32,
    next: u32,
}

pub(super) struct TimerWheel<E> {
    /// Timers in the wheel, addressed by `at[slot]`; freed ones are chained
    /// through `next` from `free`.
    entries: Vec<Entry<E>>,
    free: u32,
    /// Per slot: its entry in the wheel, FAR, or NIL (not armed): one read
    /// tells a cancel what to do.
    at: Vec<u32>,
    /// Per bucket: its first (earliest) entry, or NIL.
    head: Vec<u32>,
    /// One bit per non-empty bucket.
    occupied: Vec<u64>,
    /// One bit per non-zero word of `occupied`.
    summary: u128,
    /// Timers in the wheel.
    count: u32,
    /// Absolute bucket number (time >> BUCKET_SHIFT) of the clock.
    cur: u64,
    /// The wheel's earliest entry when known (NIL: scan for it), and its key.
    first: u32,
    first_key: Key,
    /// Timers due beyond the wheel's span.
    far: TimerHeap<E>,
}

impl<E: Copy> TimerWheel<E> {
    pub fn new() -> Self {
        TimerWheel {
            entries: Vec::new(),
            free: NIL,
            at: Vec::new(),
            head: vec![NIL; BUCKETS],
            occupied: vec![0; WORDS],
            summary: 0,
            count: 0,
            cur: 0,
            first: NIL,
            first_key: 0,
            far: TimerHeap::new(),
        }
    }

    #[cfg(test)] // only the unit tests read it
    pub fn len(&self) -> usize {
        self.count as usize + self.far.len()
    }

    /// Arm `slot` with `key` (due at or after `now`), replacing its pending
    /// expiry if it has one.
    pub fn set(&mut self, slot: u32, key: Key, event: E, now: Time) {
        let s = slot as usize;
        if s >= self.at.len() {
            self.at.resize(s + 1, NIL);
        }
        match self.at[s] {
            NIL => {}
            FAR => self.far.cancel(slot),
            old => self.remove(old),
        }
        let now_bucket = now >> BUCKET_SHIFT;
        if now_bucket > self.cur {
            self.cur = now_bucket;
        }
        let b = key_time(key) >> BUCKET_SHIFT;
        if b >= self.cur + BUCKETS as u64 {
            self.far.set(slot, key, event);
            self.at[s] = FAR;
            return;
        }
        let e = self.alloc(Entry { key: split(key), event, slot, prev: NIL, next: NIL });
        self.at[s] = e;
        self.link(e, (b & MASK) as usize);
        self.count += 1;
        if self.first != NIL && key < self.first_key {
            (self.first, self.first_key) = (e, key);
        }
    }

    /// Disarm `slot` (nothing happens if it is not armed).
    pub fn cancel(&mut self, slot: u32) {
        match self.at.get(slot as usize) {
            None | Some(&NIL) => {}
            Some(&FAR) => {
                self.far.cancel(slot);
                self.at[slot as usize] = NIL;
            }
            Some(&e) => self.remove(e),
        }
    }

    /// Key of the earliest timer.
    #[inline]
    pub fn peek_key(&mut self) -> Option<Key> {
        let far = self.far.peek_key();
        match self.earliest() {
            NIL => far,
            _ => {
                let k = self.first_key;
                Some(far.map_or(k, |f| f.min(k)))
            }
        }
    }

    /// Remove and return the earliest timer.
    pub fn pop(&mut self) -> Option<(Key, E)> {
        let far = self.far.peek_key();
        let e = self.earliest();
        if e == NIL || far.is_some_and(|f| f < self.first_key) {
            let (key, event, slot) = self.far.pop_slot()?;
            self.at[slot as usize] = NIL;
            return Some((key, event));
        }
        let (key, event) = (self.first_key, self.entries[e as usize].event);
        self.remove(e);
        self.cur = key_time(key) >> BUCKET_SHIFT;
        Some((key, event))
    }

    /// The wheel's earliest entry (NIL if it is empty): the head of the
    /// first occupied bucket from the clock's, found from the bitmap.
    #[inline]
    fn earliest(&mut self) -> u32 {
        if self.first != NIL || self.count == 0 {
            return self.first;
        }
        let start = (self.cur & MASK) as usize;
        let (w0, bit0) = (start / 64, start % 64);
        // The clock's word from the clock's bit; else the next non-empty
        // word around the circle (the clock's own word last: its bits below
        // the clock's are a lap ahead).
        let m = self.occupied[w0] & (!0u64 << bit0);
        let found = if m != 0 {
            w0 * 64 + m.trailing_zeros() as usize
        } else {
            let after = if w0 + 1 < WORDS { self.summary & (!0u128 << (w0 + 1)) } else { 0 };
            let w = if after != 0 { after.trailing_zeros() } else { self.summary.trailing_zeros() } as usize;
            w * 64 + self.occupied[w].trailing_zeros() as usize
        };
        self.first = self.head[found];
        self.first_key = join(self.entries[self.first as usize].key);
        self.first
    }

    fn alloc(&mut self, entry: Entry<E>) -> u32 {
        if self.free == NIL {
            self.entries.push(entry);
            return self.entries.len() as u32 - 1;
        }
        let e = self.free;
        self.free = self.entries[e as usize].next;
        self.entries[e as usize] = entry;
        e
    }

    /// Insert entry `e` into bucket `b`, keeping the bucket sorted by key.
    fn link(&mut self, e: u32, b: usize) {
        let key = self.entries[e as usize].key;
        // Lexicographic order of [time, sequence] is the key's order.
        let mut prev = NIL;
        let mut next = self.head[b];
        while next != NIL && self.entries[next as usize].key < key {
            prev = next;
            next = self.entries[next as usize].next;
        }
        self.entries[e as usize].prev = prev;
        self.entries[e as usize].next = next;
        if next != NIL {
            self.entries[next as usize].prev = e;
        }
        if prev == NIL {
            self.head[b] = e;
            self.occupied[b / 64] |= 1 << (b % 64);
            self.summary |= 1 << (b / 64);
        } else {
            self.entries[prev as usize].next = e;
        }
    }

    /// Unlink entry `e` from its bucket and free it.
    fn remove(&mut self, e: u32) {
        let Entry { key, slot, prev, next, .. } = self.entries[e as usize];
        if next != NIL {
            self.entries[next as usize].prev = prev;
        }
        if prev != NIL {
            self.entries[prev as usize].next = next;
        } else {
            let b = ((key[0] >> BUCKET_SHIFT) & MASK) as usize;
            self.head[b] = next;
            if next == NIL {
                self.occupied[b / 64] &= !(1 << (b % 64));
                if self.occupied[b / 64] == 0 {
                    self.summary &= !(1 << (b / 64));
                }
            }
        }
        self.at[slot as usize] = NIL;
        self.entries[e as usize].next = self.free;
        self.free = e;
        self.count -= 1;
        if self.first == e {
            self.first = NIL;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::timer_heap::key;
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn far_and_near_timers_come_out_in_key_order() {
        let mut w = TimerWheel::new();
        let span = (BUCKETS as u64) << BUCKET_SHIFT;
        w.set(1, key(span + 5, 0), 'f', 0); // beyond the wheel: the heap
        w.set(2, key(7, 1), 'a', 0);
        w.set(3, key(7, 2), 'b', 0); // same bucket, same time, later sequence
        w.set(4, key(5, 3), 'c', 0); // same bucket, earlier
        w.set(5, key(span - 1, 4), 'd', 0);
        assert_eq!(w.len(), 5);
        let got: Vec<char> = std::iter::from_fn(|| w.pop().map(|(_, e)| e)).collect();
        assert_eq!(got, vec!['c', 'a', 'b', 'd', 'f']);
    }

    #[test]
    fn rearming_moves_between_wheel_and_heap_and_cancel_frees() {
        let mut w = TimerWheel::new();
        let span = (BUCKETS as u64) << BUCKET_SHIFT;
        w.set(1, key(100, 0), 'a', 0);
        w.set(1, key(3 * span, 1), 'b', 0); // to the heap
        w.set(2, key(50, 2), 'c', 0);
        w.cancel(2);
        w.cancel(9); // never armed
        assert_eq!(w.len(), 1);
        w.set(1, key(60, 3), 'd', 0); // back to the wheel
        assert_eq!(w.pop(), Some((key(60, 3), 'd')));
        assert_eq!(w.pop(), None);
    }

    #[test]
    fn the_wheel_turns_many_times_against_a_sorted_list() {
        // Timers armed at the clock's time, up to three spans ahead, with
        // pops, re-arms and cancels interleaved: the pops are in key order.
        let span = (BUCKETS as u64) << BUCKET_SHIFT;
        let mut w = TimerWheel::new();
        let mut live: std::collections::BTreeMap<Key, (u32, u32)> = Default::default(); // key -> (slot, id)
        let mut by_slot: std::collections::HashMap<u32, Key> = Default::default();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut rnd = |m: u64| rng.random_range(0..m);
        let (mut now, mut seq, mut popped) = (0, 0, 0);
        for id in 0..200_000u32 {
            match rnd(5) {
                0..=2 => {
                    let slot = rnd(500) as u32;
                    let ahead = match rnd(4) {
                        0 => rnd(3 * span),
                        1 => rnd(1 << BUCKET_SHIFT),
                        _ => rnd(20_000_000),
                    };
                    let k = key(now + ahead, seq);
                    seq += 1;
                    w.set(slot, k, id, now);
                    if let Some(old) = by_slot.insert(slot, k) {
                        live.remove(&old);
                    }
                    live.insert(k, (slot, id));
                }
                3 => {
                    let slot = rnd(500) as u32;
                    w.cancel(slot);
                    if let Some(old) = by_slot.remove(&slot) {
                        live.remove(&old);
                    }
                }
                _ => {
                    let want = live.pop_first();
                    let got = w.pop();
                    assert_eq!(got, want.map(|(k, (_, id))| (k, id)));
                    if let Some((k, (slot, _))) = want {
                        by_slot.remove(&slot);
                        now = key_time(k);
                        popped += 1;
                    }
                }
            }
            assert_eq!(w.peek_key(), live.first_key_value().map(|(k, _)| *k));
        }
        assert!(popped > 30_000 && now > 10 * span, "popped {popped}, now {now}");
    }
}
