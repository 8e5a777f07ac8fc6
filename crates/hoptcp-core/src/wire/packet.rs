//! IP packets as the simulator carries them. Packets live in a slab arena and
//! are passed around by index; a receiver that decodes a DATA frame gets its
//! own copy (the sender keeps its copy until the MAC is done with it).

use super::aodv::AodvMsg;
use super::ecn::Ecn;
use super::node::NodeId;
use super::tcp_segment::TcpSegment;

/// `flow` of packets that belong to no flow (routing control messages).
pub const NO_FLOW: u32 = u32::MAX;

/// What a packet carries; used for per-kind statistics (drops hitting TCP
/// data vs TCP ACKs vs routing messages). Reports name kinds in this order,
/// by the variant's name in snake case (`udp`, `tcp_data`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::EnumCount, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
pub enum PacketKind {
    Udp,
    TcpData,
    TcpAck,
    Aodv,
}

pub const N_PACKET_KINDS: usize = <PacketKind as strum::EnumCount>::COUNT;

/// Every packet kind with its name, in report order.
pub fn packet_kinds() -> impl Iterator<Item = (PacketKind, &'static str)> {
    <PacketKind as strum::IntoEnumIterator>::iter().zip(<PacketKind as strum::VariantNames>::VARIANTS.iter().copied())
}

#[derive(Clone, Copy, Debug)]
pub enum Body {
    Udp {
        seq: u64,
        payload: u32,
    },
    Tcp(TcpSegment),
    /// A routing control message (its own flow: [`NO_FLOW`]).
    Aodv(AodvMsg),
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub uid: u64,
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// IP packet size (headers + payload).
    pub ip_bytes: u32,
    pub ttl: u8,
    pub ecn: Ecn,
    /// Travels from the flow's destination back to its source (TCP ACKs).
    pub reverse: bool,
    /// Hops travelled so far (ns-2's `num_forwards`); under static routing
    /// also the index of the node holding it on its flow's path.
    pub hop: u16,
    /// Of those, hops over wired links (TCP-AP and TCP-GAP count only the
    /// wireless ones).
    pub wired_hops: u8,
    /// Next hop chosen by routing (MAC receiver address).
    pub next_hop: NodeId,
    pub body: Body,
}

impl Packet {
    pub fn kind(&self) -> PacketKind {
        match self.body {
            Body::Udp { .. } => PacketKind::Udp,
            Body::Tcp(s) if s.is_ack => PacketKind::TcpAck,
            Body::Tcp(_) => PacketKind::TcpData,
            Body::Aodv(_) => PacketKind::Aodv,
        }
    }

    /// Application data or TCP (not a routing message).
    #[inline]
    pub fn is_data(&self) -> bool {
        !matches!(self.body, Body::Aodv(_))
    }

    /// Hops travelled over the air.
    #[inline]
    pub fn wireless_hops(&self) -> u32 {
        self.hop as u32 - self.wired_hops as u32
    }

    pub fn payload_bytes(&self) -> u32 {
        match self.body {
            Body::Udp { payload, .. } => payload,
            Body::Tcp(s) => s.payload_bytes,
            Body::Aodv(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_messages_do_not_grow_packets() {
        // A packet record is copied on every reception: AODV's messages
        // must fit in the room TCP segments already take.
        // (64 since TCP segments carry three SACK blocks.)
        assert!(std::mem::size_of::<Body>() <= 64, "Body is {} bytes", std::mem::size_of::<Body>());
    }
}
