//! What travels between nodes and layers: node addresses, the 802.11 frame,
//! the IP packet and its body, the TCP segment, the ECN codepoint and the
//! marking rule, and AODV's messages (with their RFC 3561 byte encoding).
//! Plain data; every layer above may use it, it uses only `engine`.

pub mod aodv;
pub mod aodv_rfc3561;
pub mod ecn;
pub mod frame;
pub mod node;
pub mod packet;
pub mod tcp_segment;

pub use aodv::AodvMsg;
pub use ecn::{Ecn, MarkAction, SignalOutcome};
pub use frame::{Frame, FrameFormat, FrameKind, RxFate, NO_PACKET};
pub use node::{NodeId, BROADCAST};
pub use packet::{packet_kinds, Body, Packet, PacketKind, NO_FLOW, N_PACKET_KINDS};
pub use tcp_segment::{TcpSegment, MAX_SACK_BLOCKS};
