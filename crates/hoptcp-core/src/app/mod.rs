//! Traffic sources: constant bit rate (over UDP), always-backlogged bulk
//! transfer (FTP, over TCP) and HTTP-like page transfers (over TCP).

pub mod cbr;
pub mod http;

/// FTP: an infinite backlog, as ns-2's Application/FTP.
pub const FTP_BACKLOG: u64 = u64::MAX;
