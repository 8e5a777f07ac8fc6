//! The interface queue between IP and the MAC: ns-2's
//! Queue/DropTail/PriQueue. Drop-tail with ns-2's limit arithmetic (a packet
//! is refused when `len + 1 >= limit`, so `limit - 1` wait while the MAC
//! holds one more), routing packets at the head, and occupancy statistics
//! (maximum and time average).

use crate::engine::Time;
use crate::mac::Outgoing;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct IfQueue {
    q: VecDeque<Outgoing>,
    limit: u32,
    /// The MAC holds a packet; new arrivals must wait (ns-2 `blocked_`).
    pub blocked: bool,
    max_len: u32,
    /// Integral of the queue length over time (packet·ns).
    area: u128,
    last_change: Time,
}

impl IfQueue {
    pub fn new(limit: u32) -> Self {
        IfQueue {
            q: VecDeque::with_capacity(limit.min(64) as usize),
            limit,
            blocked: false,
            max_len: 0,
            area: 0,
            last_change: 0,
        }
    }

    fn account(&mut self, now: Time) {
        self.area += self.q.len() as u128 * (now - self.last_change) as u128;
        self.last_change = now;
    }

    /// Append `out`, or give it back if the queue is full (drop-tail). With
    /// `priority` (routing packets, ns-2 PriQueue::recvHighPriority) it goes
    /// to the head instead, and a queue that is then full gives back the
    /// packet at its tail.
    pub fn enqueue(&mut self, now: Time, out: Outgoing, priority: bool) -> Result<(), Outgoing> {
        if priority {
            self.account(now);
            self.q.push_front(out);
            let dropped = if self.q.len() as u32 >= self.limit { self.q.pop_back() } else { None };
            self.max_len = self.max_len.max(self.q.len() as u32);
            return dropped.map_or(Ok(()), Err);
        }
        if self.q.len() as u32 + 1 >= self.limit {
            return Err(out);
        }
        self.account(now);
        self.q.push_back(out);
        self.max_len = self.max_len.max(self.q.len() as u32);
        Ok(())
    }

    pub fn dequeue(&mut self, now: Time) -> Option<Outgoing> {
        self.account(now);
        self.q.pop_front()
    }

    /// Remove every queued packet for which `pred` holds (e.g. all packets
    /// to a broken next hop), returning them.
    pub fn remove_where(&mut self, now: Time, mut pred: impl FnMut(&Outgoing) -> bool) -> Vec<Outgoing> {
        self.account(now);
        let mut removed = Vec::new();
        self.q.retain(|o| {
            if pred(o) {
                removed.push(*o);
                false
            } else {
                true
            }
        });
        removed
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn max_len(&self) -> u32 {
        self.max_len
    }

    /// Time-average length over [0, now].
    pub fn avg_len(&mut self, now: Time) -> f64 {
        self.account(now);
        if now == 0 {
            0.0
        } else {
            self.area as f64 / now as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(p: u32) -> Outgoing {
        Outgoing { packet: p, ip_bytes: 100, next_hop: 1 }
    }

    #[test]
    fn ns2_limit_holds_limit_minus_one() {
        let mut q = IfQueue::new(3);
        assert!(q.enqueue(0, o(1), false).is_ok());
        assert!(q.enqueue(0, o(2), false).is_ok());
        assert_eq!(q.enqueue(0, o(3), false), Err(o(3)));
        assert_eq!(q.max_len(), 2);
    }

    #[test]
    fn priority_goes_to_head_and_fifo_otherwise() {
        let mut q = IfQueue::new(10);
        q.enqueue(0, o(1), false).unwrap();
        q.enqueue(0, o(2), false).unwrap();
        q.enqueue(0, o(9), true).unwrap();
        assert_eq!(q.dequeue(0).unwrap().packet, 9);
        assert_eq!(q.dequeue(0).unwrap().packet, 1);
    }

    #[test]
    fn priority_into_a_full_queue_drops_the_tail() {
        let mut q = IfQueue::new(3);
        q.enqueue(0, o(1), false).unwrap();
        q.enqueue(0, o(2), false).unwrap();
        // Full for data (2 wait, limit 3): a routing packet still gets in
        // at the head and the tail packet is dropped instead.
        assert_eq!(q.enqueue(0, o(9), true), Err(o(2)));
        assert_eq!(q.len(), 2);
        assert_eq!(q.dequeue(0).unwrap().packet, 9);
        assert_eq!(q.dequeue(0).unwrap().packet, 1);
    }

    #[test]
    fn time_average_weights_by_duration() {
        let mut q = IfQueue::new(10);
        q.enqueue(0, o(1), false).unwrap(); // len 1 during [0, 10)
        q.enqueue(10, o(2), false).unwrap(); // len 2 during [10, 20)
        q.dequeue(20); // len 1 during [20, 40)
        assert!((q.avg_len(40) - (10.0 + 20.0 + 20.0) / 40.0).abs() < 1e-12);
    }

    #[test]
    fn remove_where_filters_by_next_hop() {
        let mut q = IfQueue::new(10);
        q.enqueue(0, Outgoing { packet: 1, ip_bytes: 1, next_hop: 5 }, false).unwrap();
        q.enqueue(0, Outgoing { packet: 2, ip_bytes: 1, next_hop: 6 }, false).unwrap();
        let r = q.remove_where(0, |x| x.next_hop == 5);
        assert_eq!(r.len(), 1);
        assert_eq!(q.len(), 1);
    }
}
