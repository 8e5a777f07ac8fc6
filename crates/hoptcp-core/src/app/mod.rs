//! Traffic sources: constant bit rate (over UDP) and always-backlogged bulk
//! transfer (FTP, over TCP).

pub mod cbr;

/// FTP: an infinite backlog, as ns-2's Application/FTP.
pub const FTP_BACKLOG: u64 = u64::MAX;
