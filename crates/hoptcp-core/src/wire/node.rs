//! Node addresses: one id per node serves as its MAC and its IP address.

pub type NodeId = u32;
/// Receiver address of broadcast frames.
pub const BROADCAST: NodeId = u32::MAX;
