//! Wired links: ns-2's point-to-point duplex links (`$ns duplex-link n1 n2
//! 10Mb 40ms DropTail`), as sans-IO state machines the simulator drives
//! through [`link::LinkEnv`]. Not yet wired into `sim/`: see the module
//! docs of [`link`] for the contract.

pub mod link;

pub use link::{DuplexLink, LinkEnv, LinkParams, LinkStats, SimplexLink};
