//! AODV control messages as the simulator carries them, and their sizes on
//! the air. Sizes follow ns-2.35 (aodv_packet.h): the IP packet is a 20-byte
//! IP header plus ns-2's message size, with no UDP header — RREQ 48 B,
//! RREP 44 B, RERR 20 + 4·(2n + 1) B. (RFC 3561 messages over UDP would be
//! 52, 48 and 32 + 8n B; pcap traces show the RFC encoding, see `aodv_rfc3561.rs`.)
//!
//! Messages are small `Copy` records kept inline in the packet. A RERR holds
//! up to [`RERR_CAPACITY`] unreachable destinations; a node that must report
//! more sends several RERRs back to back (ns-2 sends one longer RERR).

use super::node::NodeId;
use crate::engine::Time;

/// IP header bytes ns-2's AODV puts in front of every control message.
pub const IP_HEADER_BYTES: u32 = 20;

/// Unreachable destinations one RERR carries.
pub const RERR_CAPACITY: usize = 5;

/// Route request (broadcast, flooded within its TTL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rreq {
    /// Hops from the originator to the node that receives this copy (1 on
    /// the originator's own transmission).
    pub hop_count: u8,
    /// Broadcast id: with `src`, identifies the request for duplicate
    /// suppression.
    pub bcast_id: u32,
    pub dst: NodeId,
    /// Latest destination sequence number known along the way.
    pub dst_seqno: u32,
    /// The originator.
    pub src: NodeId,
    pub src_seqno: u32,
    /// When the originator sent it (echoed by the reply; gives the
    /// discovery latency).
    pub timestamp: Time,
}

/// Route reply (unicast back along the reverse route).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rrep {
    /// Hops from the node that receives this copy to `dst`.
    pub hop_count: u8,
    /// The destination the route leads to.
    pub dst: NodeId,
    pub dst_seqno: u32,
    /// The node that sent this copy (ns-2's `rp_src`): the next hop of the
    /// route to `dst` at the receiver.
    pub src: NodeId,
    /// Route lifetime granted by the replier.
    pub lifetime: Time,
    /// The request's timestamp, echoed.
    pub timestamp: Time,
}

/// Route error (broadcast to neighbours, TTL 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rerr {
    n: u8,
    dsts: [(NodeId, u32); RERR_CAPACITY],
}

impl Default for Rerr {
    fn default() -> Self {
        Rerr { n: 0, dsts: [(0, 0); RERR_CAPACITY] }
    }
}

impl Rerr {
    /// Add (destination, sequence number); false if the message is full.
    pub fn push(&mut self, dst: NodeId, seqno: u32) -> bool {
        if self.n as usize == RERR_CAPACITY {
            return false;
        }
        self.dsts[self.n as usize] = (dst, seqno);
        self.n += 1;
        true
    }

    pub fn len(&self) -> usize {
        self.n as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn is_full(&self) -> bool {
        self.n as usize == RERR_CAPACITY
    }

    /// The unreachable (destination, sequence number) pairs.
    pub fn entries(&self) -> &[(NodeId, u32)] {
        &self.dsts[..self.n as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
    /// HELLO (only with `link_detection = "hello"`): ns-2 sends it as a
    /// reply header, `dst` the sender, `dst_seqno` its sequence number,
    /// broadcast with TTL 1.
    Hello(Rrep),
}

impl AodvMsg {
    /// Size of the IP packet carrying the message, as ns-2.35 counts it.
    pub fn ip_bytes(&self) -> u32 {
        IP_HEADER_BYTES
            + match self {
                AodvMsg::Rreq(_) => 7 * 4,
                AodvMsg::Rrep(_) | AodvMsg::Hello(_) => 6 * 4,
                AodvMsg::Rerr(e) => (2 * e.len() as u32 + 1) * 4,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_sizes() {
        let rreq = Rreq { hop_count: 1, bcast_id: 1, dst: 7, dst_seqno: 0, src: 0, src_seqno: 4, timestamp: 0 };
        assert_eq!(AodvMsg::Rreq(rreq).ip_bytes(), 48);
        let rrep = Rrep { hop_count: 1, dst: 7, dst_seqno: 4, src: 7, lifetime: 0, timestamp: 0 };
        assert_eq!(AodvMsg::Rrep(rrep).ip_bytes(), 44);
        let mut e = Rerr::default();
        assert!(e.push(7, 5));
        assert_eq!(AodvMsg::Rerr(e).ip_bytes(), 32);
        assert!(e.push(3, 9));
        assert_eq!(AodvMsg::Rerr(e).ip_bytes(), 40);
    }

    #[test]
    fn rerr_holds_up_to_capacity() {
        let mut e = Rerr::default();
        for i in 0..RERR_CAPACITY as u32 {
            assert!(e.push(i, i));
        }
        assert!(e.is_full());
        assert!(!e.push(99, 0));
        assert_eq!(e.entries().len(), RERR_CAPACITY);
        assert_eq!(e.entries()[2], (2, 2));
    }
}
