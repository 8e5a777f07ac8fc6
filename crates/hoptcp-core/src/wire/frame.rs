//! 802.11 frames as the simulator sees them: header fields that matter for
//! the protocol, the on-air size and duration, and the packet carried.

use super::node::NodeId;
use crate::engine::Time;

/// "No packet" in a frame's `packet` field.
pub const NO_PACKET: u32 = u32::MAX;

/// Traces name kinds by the variant's name in snake case, in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
pub enum FrameKind {
    Rts,
    Cts,
    Data,
    Ack,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address (the sender's node id; CTS and ACK carry it too,
    /// for traces only).
    pub ta: NodeId,
    /// Receiver address, or [`BROADCAST`](super::node::BROADCAST).
    pub ra: NodeId,
    /// Duration field: how long others must defer after this frame ends (NAV).
    pub nav: Time,
    /// MAC sequence number (DATA only), for duplicate detection.
    pub seq: u16,
    pub retry: bool,
    /// MAC frame length in bytes (header + body + FCS, no PLCP).
    pub bytes: u32,
    /// On-air duration including the PLCP preamble and header.
    pub airtime: Time,
    /// Slab index of the carried packet (DATA), or [`NO_PACKET`].
    pub packet: u32,
}

/// What became of a frame at a node that sensed it (for traces, which name
/// fates by the variant's name in snake case, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[repr(u8)]
pub enum RxFate {
    /// Decoded intact.
    Received = 0,
    /// Lost in a collision with another frame.
    Collided = 1,
    /// Lost to a stronger frame already being received (capture).
    Captured = 2,
    /// Sensed but too weak to decode.
    BelowThreshold = 3,
    /// Lost because the node was transmitting (half duplex).
    HalfDuplex = 4,
}

/// Which sizes the MAC headers have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum FrameFormat {
    /// ns-2.35: RTS 20 B, CTS 14 B, ACK 14 B, DATA header 30 B + FCS 4 B.
    Ns2,
    /// IEEE 802.11-2016: DATA header 24 B + LLC/SNAP 8 B + FCS 4 B.
    Standard,
}

impl FrameFormat {
    pub fn rts_bytes(self) -> u32 {
        20
    }
    pub fn cts_bytes(self) -> u32 {
        14
    }
    pub fn ack_bytes(self) -> u32 {
        14
    }
    /// MAC overhead added to an IP packet in a DATA frame.
    pub fn data_overhead_bytes(self) -> u32 {
        match self {
            FrameFormat::Ns2 => 34,
            FrameFormat::Standard => 36,
        }
    }
}
