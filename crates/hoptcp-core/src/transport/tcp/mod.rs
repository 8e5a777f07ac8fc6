//! Packet-counted TCP after ns-2.35's one-way agents (`Agent/TCP/Newreno`,
//! `Agent/TCP/Reno`, `Agent/TCP/Vegas`) and their sinks (`Agent/TCPSink`,
//! `Agent/TCPSink/DelAck`), which the reproduced papers used.
//!
//! Sequence numbers count packets, not bytes. Packet 0 is the 40-byte
//! connection-setup segment; data packets are 1, 2, ...
//!
//! Layout: the segment itself is in `wire/`; [`config`], [`rto`] (RTT
//! estimation and the retransmission timeout), `state` (the sender state
//! every controller reads and changes), `congestion/` (the `Controller`
//! trait and one file per variant: NewReno, Reno, Vegas, CUBIC, BBR), [`sender`] (the
//! machinery common to all variants; it names a controller only through the
//! trait, and its tests drive each variant, in `sender/`), [`tcp_ap`]
//! (TCP-AP adaptive pacing of the transmit path), [`receiver`] (the sink),
//! `sack/` (SACK blocks, the scoreboard and SACK-based loss recovery, used
//! by the sender and the sink with `tcp.sack`) and [`window_stats`]
//! (time-weighted window accounting).

pub mod config;
mod congestion;
pub mod receiver;
pub mod rto;
pub mod sack;
pub mod sender;
mod state;
pub mod tcp_ap;
pub mod window_stats;

pub use config::{TcpConfig, Variant};
pub use congestion::bbr::BbrStats;
pub use receiver::TcpReceiver;
pub use sack::{SackProfile, SackStats};
pub use sender::TcpSender;
pub use tcp_ap::TcpApStats;
