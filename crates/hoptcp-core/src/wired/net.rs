//! The wired domain of a hybrid network: the gateway's wired interface,
//! wired hosts and routers, the duplex links between them and the static
//! shortest-hop routes over them (ns-2's wired nodes route statically).
//!
//! Node ids: wireless nodes are `0..first`, wired nodes `first..first +
//! count`; the gateway is a wireless node with one wired interface. Within
//! this module the gateway is local node 0 and wired node `first + k` is
//! local node `k + 1`.

use super::link::{DuplexLink, LinkParams};

/// The wired links and the first-hop tables of the routes over them, one
/// table per destination that can carry traffic (the gateway and the wired
/// ends of flows): all-pairs tables would cost n² (17 GB at 65,536 nodes).
#[derive(Clone, Debug)]
pub struct WiredNet {
    /// First wired node id (= number of wireless nodes).
    pub first: u32,
    pub count: u32,
    pub gateway: u32,
    pub links: Vec<DuplexLink>,
    /// `next[to][from]`: the link of the first hop from local node `from`
    /// towards local node `to` (`u32::MAX`: none or itself); `None` for a
    /// destination no traffic goes to.
    next: Vec<Option<Vec<u32>>>,
}

impl WiredNet {
    /// The wired domain from its links `(a, b, params)` with routes towards
    /// the gateway and `targets` (wired ids; others are ignored); node ids
    /// must be the gateway or wired ids (checked by the scenario). Ties
    /// between equal routes are broken by visiting neighbours in link order,
    /// so every run routes the same way.
    pub fn new(first: u32, count: u32, gateway: u32, links: &[(u32, u32, LinkParams)], targets: &[u32]) -> Self {
        let size = count as usize + 1;
        let mut net = WiredNet {
            first,
            count,
            gateway,
            links: links.iter().map(|&(a, b, p)| DuplexLink::new(a, b, p)).collect(),
            next: vec![None; size],
        };
        let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); size];
        for (i, &(a, b, _)) in links.iter().enumerate() {
            let (la, lb) = (net.local(a), net.local(b));
            adj[la].push((lb, i as u32));
            adj[lb].push((la, i as u32));
        }
        let wanted: Vec<usize> = std::iter::once(gateway)
            .chain(targets.iter().copied().filter(|&t| t >= first && t < first + count))
            .map(|t| net.local(t))
            .collect();
        for to in wanted {
            if net.next[to].is_some() {
                continue;
            }
            // Breadth-first from the target: a node's BFS parent link is its
            // first hop towards the target.
            let mut first_hop = vec![u32::MAX; size];
            let mut seen = vec![false; size];
            seen[to] = true;
            let mut q = std::collections::VecDeque::from([to]);
            while let Some(u) = q.pop_front() {
                for &(v, l) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        first_hop[v] = l;
                        q.push_back(v);
                    }
                }
            }
            net.next[to] = Some(first_hop);
        }
        net
    }

    #[inline]
    pub fn is_wired(&self, id: u32) -> bool {
        id >= self.first
    }

    fn local(&self, id: u32) -> usize {
        if id == self.gateway {
            0
        } else {
            (id - self.first) as usize + 1
        }
    }

    /// The link of the first hop from `from` towards `to` (each the gateway
    /// or a wired node), if they are connected and distinct and `to` is a
    /// destination the network was built with.
    #[inline]
    pub fn next_link(&self, from: u32, to: u32) -> Option<u32> {
        let l = self.next[self.local(to)].as_ref()?[self.local(from)];
        (l != u32::MAX).then_some(l)
    }

    /// Node ids from `from` to `to` over the wired links (`None`: not connected).
    pub fn path(&self, from: u32, to: u32) -> Option<Vec<u32>> {
        let mut path = vec![from];
        let mut at = from;
        while at != to {
            let l = self.next_link(at, to)?;
            at = self.links[l as usize].peer(at).expect("link leaves the node");
            path.push(at);
        }
        Some(path)
    }

    /// Wired nodes the gateway cannot reach.
    pub fn unreachable(&self) -> Vec<u32> {
        (self.first..self.first + self.count).filter(|&v| self.next_link(v, self.gateway).is_none()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    fn p() -> LinkParams {
        LinkParams { bandwidth_bps: 10e6, delay: 40 * NS_PER_MS, queue_limit: 50 }
    }

    #[test]
    fn routes_follow_the_fewest_links_with_stable_ties() {
        // Gateway 3 (wireless nodes 0..=3), wired 4, 5, 6, 7:
        // 3 - 4 - 5 - 7 and 3 - 6 - 7 (shorter), plus a spur 4 - 6.
        let links = [(3, 4, p()), (4, 5, p()), (5, 7, p()), (3, 6, p()), (6, 7, p()), (4, 6, p())];
        let w = WiredNet::new(4, 4, 3, &links, &[4, 5, 6, 7]);
        assert_eq!(w.path(3, 7), Some(vec![3, 6, 7]));
        assert_eq!(w.path(7, 3), Some(vec![7, 6, 3]));
        assert_eq!(w.path(5, 3), Some(vec![5, 4, 3]));
        // 5 → 6: via 4 (links 1, 5) or via 7 (links 2, 4), the same length;
        // the BFS from 6 meets 7 (link 4) before 4 (link 5), so via 7.
        assert_eq!(w.path(5, 6), Some(vec![5, 7, 6]));
        assert_eq!(w.path(4, 4), Some(vec![4]));
        assert_eq!(w.next_link(3, 6), Some(3));
        assert_eq!(w.next_link(6, 6), None);
        assert!(w.unreachable().is_empty());
        assert!(w.is_wired(4) && !w.is_wired(3));
    }

    #[test]
    fn disconnected_nodes_are_reported() {
        let w = WiredNet::new(2, 3, 1, &[(1, 2, p()), (3, 4, p())], &[4]);
        assert_eq!(w.unreachable(), vec![3, 4]);
        assert_eq!(w.path(1, 4), None);
        assert_eq!(w.path(3, 4), Some(vec![3, 4]));
    }

    #[test]
    fn routes_lead_only_to_the_destinations_asked_for() {
        // A wired chain 1 - 2 - 3 - 4 behind gateway 1: routes to the gateway
        // and to 4 (a flow's end); 3 is no destination, and ids outside the
        // domain (0, 9) are ignored as targets.
        let w = WiredNet::new(2, 3, 1, &[(1, 2, p()), (2, 3, p()), (3, 4, p())], &[4, 0, 9]);
        assert_eq!(w.path(1, 4), Some(vec![1, 2, 3, 4]));
        assert_eq!(w.path(4, 1), Some(vec![4, 3, 2, 1]));
        assert_eq!(w.next_link(1, 3), None);
        assert!(w.unreachable().is_empty());
    }

    #[test]
    fn a_domain_of_65536_nodes_keeps_two_tables_not_n_squared() {
        // wired.nodes' largest values: all-pairs tables would take 17 GB here.
        let n = 65_536u32;
        let links: Vec<_> = (0..n).map(|k| (k, k + 1, p())).collect();
        let w = WiredNet::new(1, n, 0, &links, &[n]);
        assert_eq!(w.next.iter().filter(|t| t.is_some()).count(), 2);
        assert_eq!(w.path(0, n).map(|p| p.len()), Some(n as usize + 1));
        assert!(w.unreachable().is_empty());
    }
}
