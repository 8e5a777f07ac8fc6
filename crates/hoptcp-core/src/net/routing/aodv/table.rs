//! The AODV routing table (ns-2.35 aodv_rtable.cc): one entry per
//! destination ever heard of, never deleted. ns-2 inserts entries at the
//! head of a list, so every walk over the table (route purge, link failure)
//! visits the newest entry first; `newest_first` gives that order.

use crate::engine::Time;
use crate::wire::NodeId;

/// Hop count of a route that is down (ns-2 INFINITY2).
pub const INFINITY: u16 = 0xff;

/// Discovery latencies remembered per route (ns-2 MAX_HISTORY).
pub const MAX_HISTORY: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteState {
    Down,
    Up,
    /// A local repair is under way: packets for the destination are buffered.
    InRepair,
}

#[derive(Clone, Debug)]
pub struct RouteEntry {
    pub dst: NodeId,
    pub seqno: u32,
    pub hops: u16,
    /// Hop count before the route last went down (seeds the expanding ring).
    pub last_hop_count: u16,
    pub next_hop: NodeId,
    /// Absolute time the route expires (checked by the periodic purge).
    pub expire: Time,
    pub state: RouteState,
    /// No new RREQ for this destination before this time.
    pub req_timeout: Time,
    /// Network-wide RREQs sent in the current discovery.
    pub req_cnt: u8,
    /// TTL of the last RREQ (or the hop count of the last reply).
    pub req_last_ttl: u16,
    /// Per-hop discovery latencies measured from replies (0 = none).
    pub disc_latency: [Time; MAX_HISTORY],
    pub hist_indx: u8,
    /// Neighbours that route to `dst` through us (they get our RERRs).
    pub precursors: Vec<NodeId>,
    /// hoptcp bookkeeping: when the current discovery started (None when
    /// no discovery for `dst` is pending at this node).
    pub discovery_since: Option<Time>,
}

impl RouteEntry {
    fn new(dst: NodeId, last_hop_count: u16) -> Self {
        RouteEntry {
            dst,
            seqno: 0,
            hops: INFINITY,
            last_hop_count,
            next_hop: 0,
            expire: 0,
            state: RouteState::Down,
            req_timeout: 0,
            req_cnt: 0,
            req_last_ttl: 0,
            disc_latency: [0; MAX_HISTORY],
            hist_indx: 0,
            precursors: Vec::new(),
            discovery_since: None,
        }
    }

    /// Install a valid route (ns-2 rt_update).
    pub fn update(&mut self, seqno: u32, hops: u16, next_hop: NodeId, expire: Time) {
        self.seqno = seqno;
        self.hops = hops;
        self.state = RouteState::Up;
        self.next_hop = next_hop;
        self.expire = expire;
    }

    /// Invalidate the route (ns-2 rt_down); false if it already was down.
    pub fn down(&mut self) -> bool {
        if self.state == RouteState::Down {
            return false;
        }
        self.last_hop_count = self.hops;
        self.hops = INFINITY;
        self.state = RouteState::Down;
        self.next_hop = 0;
        self.expire = 0;
        true
    }

    pub fn add_precursor(&mut self, id: NodeId) {
        if !self.precursors.contains(&id) {
            self.precursors.push(id);
        }
    }

    pub fn remove_precursor(&mut self, id: NodeId) {
        self.precursors.retain(|&p| p != id);
    }

    /// Mean per-hop discovery latency, or `default` before any was measured
    /// (ns-2 PerHopTime).
    pub fn per_hop_time(&self, default: Time) -> Time {
        let (n, sum) = self.disc_latency.iter().filter(|&&l| l > 0).fold((0u64, 0u64), |(n, s), &l| (n + 1, s + l));
        sum.checked_div(n).unwrap_or(default)
    }
}

/// Entries in creation order, with their destinations in a dense vector for
/// a cache-friendly lookup scan (tables hold one entry per destination
/// heard of: a handful in the papers' topologies).
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    dsts: Vec<NodeId>,
    entries: Vec<RouteEntry>,
}

impl RouteTable {
    pub fn lookup(&self, dst: NodeId) -> Option<usize> {
        self.dsts.iter().position(|&d| d == dst)
    }

    /// The entry for `dst`, created (down, unknown sequence number) if new.
    pub fn lookup_or_add(&mut self, dst: NodeId, initial_last_hop_count: u16) -> usize {
        match self.lookup(dst) {
            Some(i) => i,
            None => {
                self.dsts.push(dst);
                self.entries.push(RouteEntry::new(dst, initial_last_hop_count));
                self.entries.len() - 1
            }
        }
    }

    pub fn get(&self, dst: NodeId) -> Option<&RouteEntry> {
        self.lookup(dst).map(|i| &self.entries[i])
    }

    /// Indices from the newest entry to the oldest (ns-2's list order).
    pub fn newest_first(&self) -> std::iter::Rev<std::ops::Range<usize>> {
        (0..self.entries.len()).rev()
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl std::ops::Index<usize> for RouteTable {
    type Output = RouteEntry;
    fn index(&self, i: usize) -> &RouteEntry {
        &self.entries[i]
    }
}

impl std::ops::IndexMut<usize> for RouteTable {
    fn index_mut(&mut self, i: usize) -> &mut RouteEntry {
        &mut self.entries[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_and_walked_newest_first() {
        let mut t = RouteTable::default();
        let a = t.lookup_or_add(7, INFINITY);
        let b = t.lookup_or_add(3, INFINITY);
        assert_eq!(t.lookup_or_add(7, INFINITY), a);
        assert_eq!(t.len(), 2);
        assert_eq!(t.newest_first().collect::<Vec<_>>(), vec![b, a]);
        assert_eq!(t[a].state, RouteState::Down);
        assert_eq!(t[a].hops, INFINITY);
    }

    #[test]
    fn down_remembers_the_hop_count_once() {
        let mut t = RouteTable::default();
        let i = t.lookup_or_add(7, INFINITY);
        t[i].update(4, 3, 1, 100);
        assert!(t[i].down());
        assert_eq!((t[i].hops, t[i].last_hop_count, t[i].next_hop, t[i].expire), (INFINITY, 3, 0, 0));
        assert!(!t[i].down());
        assert_eq!(t[i].last_hop_count, 3);
    }

    #[test]
    fn per_hop_time_averages_measured_latencies() {
        let mut t = RouteTable::default();
        let i = t.lookup_or_add(7, INFINITY);
        assert_eq!(t[i].per_hop_time(30), 30);
        t[i].disc_latency = [10, 0, 20];
        assert_eq!(t[i].per_hop_time(30), 15);
    }
}
