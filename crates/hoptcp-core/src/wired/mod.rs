//! Wired links and the wired domain of hybrid networks: ns-2's
//! point-to-point duplex links (`$ns duplex-link n1 n2 10Mb 40ms
//! DropTail`) as sans-IO state machines the simulator drives through
//! [`link::LinkEnv`], and the wired nodes' static routes ([`net`]).

pub mod link;
pub mod net;

pub use link::{LinkEnv, LinkParams, LinkStats};
pub use net::WiredNet;
