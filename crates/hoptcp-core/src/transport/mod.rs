//! Transport layer: end-to-end protocols as sans-IO state machines. The
//! simulator feeds them segments and clock ticks and carries what they emit;
//! they never see the event queue or the network.

pub mod tcp;
pub mod udp;

pub use tcp::{TcpApStats, TcpConfig, TcpReceiver, TcpSender, Variant};
