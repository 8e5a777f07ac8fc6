//! Timers that can be re-armed or cancelled in place: an indexed binary
//! min-heap holding at most one pending expiry per timer slot (a MAC timer of
//! one node, a TCP timer of one flow end). Restarting a timer moves its entry
//! instead of leaving a dead one behind, so no stale expiry is ever popped.

use super::time::Time;

/// Ordering key of an event: time in the high 64 bits, insertion sequence in
/// the low 64 (one integer compare; FIFO among equal times).
pub(super) type Key = u128;

#[inline]
pub(super) fn key(time: Time, seq: u64) -> Key {
    ((time as u128) << 64) | seq as u128
}

#[inline]
pub(super) fn key_time(k: Key) -> Time {
    (k >> 64) as Time
}

struct Armed<E> {
    key: Key,
    slot: u32,
    event: E,
}

pub(super) struct TimerHeap<E> {
    heap: Vec<Armed<E>>,
    /// Per slot: 1 + its index in `heap`, or 0 when the slot is not armed.
    pos: Vec<u32>,
}

impl<E: Copy> TimerHeap<E> {
    pub fn new() -> Self {
        TimerHeap { heap: Vec::new(), pos: Vec::new() }
    }

    #[cfg(test)] // only the unit tests read it
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    #[inline]
    pub fn peek_key(&self) -> Option<Key> {
        self.heap.first().map(|a| a.key)
    }

    /// Arm `slot` with `key`, replacing its pending expiry if it has one.
    pub fn set(&mut self, slot: u32, key: Key, event: E) {
        let s = slot as usize;
        if s >= self.pos.len() {
            self.pos.resize(s + 1, 0);
        }
        match self.pos[s] {
            0 => {
                self.heap.push(Armed { key, slot, event });
                let i = self.heap.len() - 1;
                self.pos[s] = i as u32 + 1;
                self.sift_up(i);
            }
            p => {
                let i = p as usize - 1;
                let old = self.heap[i].key;
                self.heap[i].key = key;
                self.heap[i].event = event;
                if key < old {
                    self.sift_up(i);
                } else {
                    self.sift_down(i);
                }
            }
        }
    }

    /// Disarm `slot` (nothing happens if it is not armed).
    pub fn cancel(&mut self, slot: u32) {
        let Some(&p) = self.pos.get(slot as usize) else { return };
        if p != 0 {
            self.remove_at(p as usize - 1);
        }
    }

    /// Remove the earliest expiry: its key, event and slot.
    #[inline]
    pub fn pop_slot(&mut self) -> Option<(Key, E, u32)> {
        let top = self.heap.first()?;
        let out = (top.key, top.event, top.slot);
        self.remove_at(0);
        Some(out)
    }

    #[inline]
    fn remove_at(&mut self, i: usize) {
        let last = self.heap.len() - 1;
        self.pos[self.heap[i].slot as usize] = 0;
        if i == last {
            self.heap.pop();
            return;
        }
        self.heap.swap(i, last);
        self.heap.pop();
        self.pos[self.heap[i].slot as usize] = i as u32 + 1;
        if i > 0 && self.heap[i].key < self.heap[(i - 1) / 2].key {
            self.sift_up(i);
        } else {
            self.sift_down(i);
        }
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= self.heap[i].key {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].key < self.heap[l].key { r } else { l };
            if self.heap[i].key <= self.heap[c].key {
                break;
            }
            self.swap(i, c);
            i = c;
        }
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].slot as usize] = a as u32 + 1;
        self.pos[self.heap[b].slot as usize] = b as u32 + 1;
    }
}
