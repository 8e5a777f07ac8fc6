//! Traffic sources: constant bit rate (over UDP), always-backlogged bulk
//! transfer (FTP, over TCP) and HTTP-like page transfers (over TCP).

pub mod cbr;
pub mod http;

/// FTP: an infinite backlog, as ns-2's Application/FTP.
pub const FTP_BACKLOG: u64 = u64::MAX;

/// A flow's traffic source, as the simulator builds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Constant bit rate: `rate_bps` in packets of `packet_bytes`, each
    /// interval scaled by a uniform factor within ±`jitter`.
    Cbr {
        rate_bps: f64,
        packet_bytes: u32,
        jitter: f64,
    },
    /// Bulk transfer with intervals without new data (`pauses`).
    Ftp {
        pauses: Vec<(crate::engine::Time, crate::engine::Time)>,
    },
    Http(http::HttpParams),
}

impl Source {
    /// The application's name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Source::Cbr { .. } => "cbr",
            Source::Ftp { .. } => "ftp",
            Source::Http(_) => "http",
        }
    }
}
