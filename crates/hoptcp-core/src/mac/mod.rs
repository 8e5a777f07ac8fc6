//! Medium access control: the 802.11 DCF, its timing sets, and the
//! link-layer policies of the papers.

pub mod adaptive_pacing;
pub mod backoff;
pub mod dcf;
#[cfg(test)]
mod dcf_tests;
pub mod link_red;
pub mod policy;
#[cfg(test)]
mod test_frames;
pub mod timing;

/// The MAC header sizes are a MAC setting; the frame itself is in `wire`.
pub use crate::wire::FrameFormat;
pub use adaptive_pacing::{AdaptivePacing, PacingExtra, PacingTrigger, PacingWait};
pub use backoff::SlotCount;
pub use dcf::{Dcf, MacCounters, MacDrop, MacEnv, MacParams, MacTimer, Outgoing, TxResult, N_TIMERS};
pub use link_red::{LinkRed, LinkRedParams, RetryAverage};
pub use policy::{FuLink, FuLinkConfig, LinkPolicy, LinkReport};
pub use timing::{Standard, Timing};
