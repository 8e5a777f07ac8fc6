//! A point-to-point duplex link with ns-2's semantics: two independent
//! simplex links, each a drop-tail queue in front of a line of
//! `bandwidth_bps` and one-way propagation `delay`.
//!
//! ns-2 (queue/queue.cc, queue/drop-tail.cc, link/delay.cc): an arriving
//! packet is refused when `queue length + 1 ≥ limit` (so `limit − 1` wait
//! while one is on the line; ns-2's default `limit_` is 50); a free line
//! takes it at once. Sending a packet of `s` bytes occupies the line for
//! its serialisation time `8s / bandwidth`; when that ends the next waiting
//! packet starts, and the packet reaches the far end `delay` later (at
//! start + 8s/bandwidth + delay). Sizes are IP packet sizes (no link-layer
//! header on ns-2's wired links).
//!
//! # Contract for the simulator
//!
//! A link knows nothing of events or packets beyond a `u32` handle and a
//! size. Per simplex direction the simulator:
//!
//! 1. calls [`SimplexLink::send`] when a packet is routed onto the link;
//! 2. is told through [`LinkEnv::on_line`] that a packet went on the line,
//!    with the time its last bit leaves (`tx_end`) and the time it reaches
//!    the far node (`arrival`); it schedules one event at `tx_end` that
//!    calls [`SimplexLink::on_tx_end`] (which may put the next packet on the
//!    line) and one at `arrival` that hands the packet to the far node's
//!    network layer;
//! 3. is told through [`LinkEnv::dropped`] when the queue refuses a packet
//!    (count it as a queue-overflow drop at the sending node).
//!
//! Times are integer ns; serialisation is rounded to the nearest ns. There
//! is one transmission at a time per direction, so no timer generations.

use crate::engine::{Time, NS_PER_S};
use std::collections::VecDeque;

/// One direction's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkParams {
    pub bandwidth_bps: f64,
    /// One-way propagation delay.
    pub delay: Time,
    /// ns-2 `Queue limit_`: `limit − 1` packets wait while one is sent.
    pub queue_limit: u32,
}

impl LinkParams {
    /// Serialisation time of `bytes` bytes.
    pub fn tx_time(&self, bytes: u32) -> Time {
        (bytes as f64 * 8.0 * NS_PER_S as f64 / self.bandwidth_bps).round() as Time
    }
}

/// What a link asks of the simulator.
pub trait LinkEnv {
    fn now(&self) -> Time;
    /// `packet` went on the line now: its last bit leaves at `tx_end` (call
    /// [`SimplexLink::on_tx_end`] then) and it reaches the far end at
    /// `arrival`.
    fn on_line(&mut self, packet: u32, tx_end: Time, arrival: Time);
    /// The queue was full: `packet` is dropped.
    fn dropped(&mut self, packet: u32);
}

/// Counters of one direction.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops: u64,
    /// Most packets waiting (not counting the one on the line).
    pub queue_max: u32,
    /// Time the line was busy (s).
    pub busy_s: f64,
}

/// One direction of a link: drop-tail queue + line.
#[derive(Clone, Debug)]
pub struct SimplexLink {
    p: LinkParams,
    /// Waiting packets (handle, bytes).
    queue: VecDeque<(u32, u32)>,
    /// The line is sending until this time.
    busy: Option<Time>,
    stats: LinkStats,
    busy_ns: Time,
}

impl SimplexLink {
    pub fn new(p: LinkParams) -> Self {
        SimplexLink { p, queue: VecDeque::new(), busy: None, stats: LinkStats::default(), busy_ns: 0 }
    }

    pub fn params(&self) -> &LinkParams {
        &self.p
    }

    /// A packet of `ip_bytes` is routed onto this link now. Returns false if
    /// the queue refused it.
    pub fn send(&mut self, packet: u32, ip_bytes: u32, env: &mut impl LinkEnv) -> bool {
        if self.queue.len() as u64 + 1 >= self.p.queue_limit as u64 {
            self.stats.drops += 1;
            env.dropped(packet);
            return false;
        }
        if self.busy.is_some() {
            self.queue.push_back((packet, ip_bytes));
            self.stats.queue_max = self.stats.queue_max.max(self.queue.len() as u32);
        } else {
            self.put_on_line(packet, ip_bytes, env);
        }
        true
    }

    /// The packet on the line has left it: start the next one, if any.
    pub fn on_tx_end(&mut self, env: &mut impl LinkEnv) {
        self.busy = None;
        if let Some((packet, bytes)) = self.queue.pop_front() {
            self.put_on_line(packet, bytes, env);
        }
    }

    fn put_on_line(&mut self, packet: u32, bytes: u32, env: &mut impl LinkEnv) {
        let now = env.now();
        let tx = self.p.tx_time(bytes);
        self.busy = Some(now + tx);
        self.busy_ns += tx;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        env.on_line(packet, now + tx, now + tx + self.p.delay);
    }

    /// Packets waiting (not counting the one on the line).
    #[cfg(test)]
    fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether a packet is on the line.
    #[cfg(test)]
    fn sending(&self) -> bool {
        self.busy.is_some()
    }

    pub fn stats(&self) -> LinkStats {
        LinkStats { busy_s: self.busy_ns as f64 / NS_PER_S as f64, ..self.stats.clone() }
    }
}

/// A duplex link between nodes `a` and `b` (ns-2 `duplex-link`): two
/// simplex links with the same parameters.
#[derive(Clone, Debug)]
pub struct DuplexLink {
    ends: [u32; 2],
    dirs: [SimplexLink; 2],
}

impl DuplexLink {
    pub fn new(a: u32, b: u32, p: LinkParams) -> Self {
        DuplexLink { ends: [a, b], dirs: [SimplexLink::new(p), SimplexLink::new(p)] }
    }

    pub fn ends(&self) -> [u32; 2] {
        self.ends
    }

    /// The direction leaving `from` (0: a → b, 1: b → a), if `from` is an end.
    pub fn direction(&self, from: u32) -> Option<usize> {
        self.ends.iter().position(|&e| e == from)
    }

    /// The node at the other end from `from`.
    pub fn peer(&self, from: u32) -> Option<u32> {
        self.direction(from).map(|d| self.ends[1 - d])
    }

    /// The simplex link of direction `dir`.
    pub fn dir(&mut self, dir: usize) -> &mut SimplexLink {
        &mut self.dirs[dir]
    }

    /// The simplex link leaving `from`.
    #[cfg(test)]
    fn from(&mut self, from: u32) -> Option<&mut SimplexLink> {
        self.direction(from).map(|d| &mut self.dirs[d])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_US};

    /// A fake simulator: records what the link asks for.
    #[derive(Default)]
    struct Env {
        now: Time,
        on_line: Vec<(u32, Time, Time)>,
        dropped: Vec<u32>,
    }

    impl LinkEnv for Env {
        fn now(&self) -> Time {
            self.now
        }
        fn on_line(&mut self, packet: u32, tx_end: Time, arrival: Time) {
            self.on_line.push((packet, tx_end, arrival));
        }
        fn dropped(&mut self, packet: u32) {
            self.dropped.push(packet);
        }
    }

    fn ten_mbps() -> LinkParams {
        LinkParams { bandwidth_bps: 10e6, delay: 40 * NS_PER_MS, queue_limit: 50 }
    }

    #[test]
    fn serialisation_plus_propagation_exactly() {
        let p = ten_mbps();
        // 1500 B at 10 Mb/s: 12 000 bits / 1e7 = 1.2 ms; a 40 B ACK: 32 µs.
        assert_eq!(p.tx_time(1500), 1_200 * NS_PER_US);
        assert_eq!(p.tx_time(40), 32 * NS_PER_US);
        let p1 = LinkParams { bandwidth_bps: 1e6, ..p };
        assert_eq!(p1.tx_time(1500), 12 * NS_PER_MS);
        let p100 = LinkParams { bandwidth_bps: 100e6, ..p };
        assert_eq!(p100.tx_time(1500), 120 * NS_PER_US);
        // 5.5 Mb/s: 12 000 / 5.5e6 s = 2181.818 µs → 2 181 818 ns.
        assert_eq!(LinkParams { bandwidth_bps: 5.5e6, ..p }.tx_time(1500), 2_181_818);

        let mut l = SimplexLink::new(p);
        let mut env = Env { now: 5 * NS_PER_MS, ..Env::default() };
        assert!(l.send(7, 1500, &mut env));
        assert_eq!(env.on_line, vec![(7, 5 * NS_PER_MS + 1_200 * NS_PER_US, 46 * NS_PER_MS + 200 * NS_PER_US)]);
        assert!(l.sending());
    }

    #[test]
    fn back_to_back_packets_queue_behind_the_line() {
        let mut l = SimplexLink::new(ten_mbps());
        let mut env = Env::default();
        // Three packets at t = 0: 1500, 40 and 1500 bytes.
        for (id, bytes) in [(1, 1500), (2, 40), (3, 1500)] {
            assert!(l.send(id, bytes, &mut env));
        }
        assert_eq!(env.on_line.len(), 1, "one on the line, two waiting");
        assert_eq!(l.queued(), 2);
        // The simulator calls on_tx_end at each tx_end.
        while let Some(&(_, tx_end, _)) = env.on_line.last().filter(|_| l.sending()) {
            env.now = tx_end;
            l.on_tx_end(&mut env);
        }
        let ms = NS_PER_MS;
        let us = NS_PER_US;
        assert_eq!(
            env.on_line,
            vec![
                (1, 1_200 * us, 40 * ms + 1_200 * us),
                (2, 1_232 * us, 40 * ms + 1_232 * us),
                (3, 2_432 * us, 40 * ms + 2_432 * us),
            ]
        );
        assert!(!l.sending());
        let st = l.stats();
        assert_eq!((st.packets_sent, st.bytes_sent, st.drops, st.queue_max), (3, 3040, 0, 2));
        assert!((st.busy_s - 2.432e-3).abs() < 1e-12);
        // An idle line takes the next packet at once.
        env.now = 10 * ms;
        l.send(4, 40, &mut env);
        assert_eq!(env.on_line.last(), Some(&(4, 10 * ms + 32 * us, 50 * ms + 32 * us)));
    }

    #[test]
    fn drop_tail_with_ns2_arithmetic() {
        // limit 5: 4 wait behind the one on the line; the 6th is refused.
        let mut l = SimplexLink::new(LinkParams { queue_limit: 5, ..ten_mbps() });
        let mut env = Env::default();
        let accepted: Vec<bool> = (0..7).map(|i| l.send(i, 1500, &mut env)).collect();
        assert_eq!(accepted, vec![true, true, true, true, true, false, false]);
        assert_eq!(env.dropped, vec![5, 6]);
        assert_eq!(l.queued(), 4);
        assert_eq!(l.stats().drops, 2);
        // Room again once the line frees a slot.
        env.now = 1_200 * NS_PER_US;
        l.on_tx_end(&mut env);
        assert!(l.send(9, 1500, &mut env));
        assert!(!l.send(10, 1500, &mut env));
        // ns-2's limit 1 refuses everything (0 + 1 >= 1), like its DropTail.
        let mut one = SimplexLink::new(LinkParams { queue_limit: 1, ..ten_mbps() });
        assert!(!one.send(0, 40, &mut Env::default()));
    }

    #[test]
    fn duplex_directions_are_independent() {
        let mut d = DuplexLink::new(3, 8, ten_mbps());
        assert_eq!((d.direction(3), d.direction(8), d.direction(4)), (Some(0), Some(1), None));
        assert_eq!((d.peer(3), d.peer(8)), (Some(8), Some(3)));
        let mut env = Env::default();
        d.from(3).unwrap().send(1, 1500, &mut env);
        d.from(8).unwrap().send(2, 1500, &mut env);
        // Both go on their line at once: full duplex.
        assert_eq!(env.on_line.len(), 2);
        assert_eq!(env.on_line[0].1, env.on_line[1].1);
        assert_eq!(d.dir(0).stats().packets_sent, 1);
        assert_eq!(d.dir(1).stats().packets_sent, 1);
        assert_eq!(d.ends(), [3, 8]);
    }
}
