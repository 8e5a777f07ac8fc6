//! The wireless nodes' MAC and queue state, created when a node first does
//! something (senses a frame, gets a packet to send). A million-node chain
//! with one flow holds a few dozen nodes, not a million: memory follows the
//! nodes that take part, not the topology's size.
//!
//! Creating a node later than the start changes nothing: its state at
//! creation is what it was at time 0 (idle, empty queue), and its random
//! streams are derived from (seed, node id) alone.

use super::node_ctx::NodeLoad;
use super::{link_policy, Node};
use crate::engine::{RngStream, StreamPurpose, Time};
use crate::mac::Dcf;
use crate::mac::FuLinkConfig;
use crate::net::IfQueue;

/// Slot of a node not created yet.
const ABSENT: u32 = u32::MAX;

pub(crate) struct NodeTable {
    /// Per node id: index into `nodes`, or ABSENT.
    slot: Vec<u32>,
    /// Created nodes, in creation order; `ids[k]` is the id of `nodes[k]`.
    nodes: Vec<Node>,
    ids: Vec<u32>,
    /// `recv_due[k]`: node k's pending reception timer (expiry, generation),
    /// apart from the node because the end of every frame reads it at every
    /// hearer: a dense array keeps that read in cache.
    recv_due: Vec<(Time, u32)>,
    seed: u64,
    cw_min: u32,
    queue_limit: u32,
    /// Fu et al.'s link layer at every node (None: standard 802.11).
    link: Option<FuLinkConfig>,
}

impl NodeTable {
    pub fn new(count: usize, seed: u64, cw_min: u32, queue_limit: u32, link: Option<FuLinkConfig>) -> Self {
        NodeTable {
            slot: vec![ABSENT; count],
            nodes: Vec::new(),
            ids: Vec::new(),
            recv_due: Vec::new(),
            seed,
            cw_min,
            queue_limit,
            link,
        }
    }

    /// Number of wireless nodes in the topology (created or not).
    pub fn len(&self) -> usize {
        self.slot.len()
    }

    /// Node `id`, created in its initial state if it was not yet.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Node {
        self.get_mut_with_recv_due(id).0
    }

    /// Node `id` (created if it was not yet) and its reception timer.
    #[inline]
    pub fn get_mut_with_recv_due(&mut self, id: u32) -> (&mut Node, &mut (Time, u32)) {
        let mut k = self.slot[id as usize];
        if k == ABSENT {
            k = self.create(id);
        }
        (&mut self.nodes[k as usize], &mut self.recv_due[k as usize])
    }

    /// Node `id`'s pending reception timer (expiry, generation); none if the
    /// node was never created.
    #[inline]
    pub fn recv_due(&self, id: u32) -> (Time, u32) {
        match self.slot[id as usize] {
            ABSENT => (Time::MAX, 0),
            k => self.recv_due[k as usize],
        }
    }

    #[cold]
    fn create(&mut self, id: u32) -> u32 {
        let mut mac = Dcf::new(id, self.cw_min, RngStream::new(self.seed, id as u64, StreamPurpose::MacBackoff));
        mac.policy = link_policy(self.link.as_ref(), self.seed, id);
        let k = self.nodes.len() as u32;
        self.nodes.push(Node { mac, ifq: IfQueue::new(self.queue_limit), load: NodeLoad::default() });
        self.recv_due.push((Time::MAX, 0));
        self.ids.push(id);
        self.slot[id as usize] = k;
        k
    }

    /// The created nodes as (id, node), by ascending id.
    pub fn created_mut(&mut self) -> Vec<(u32, &mut Node)> {
        let mut out: Vec<(u32, &mut Node)> = self.ids.iter().copied().zip(self.nodes.iter_mut()).collect();
        out.sort_unstable_by_key(|(id, _)| *id);
        out
    }
}
