//! Hooks through which link-layer mechanisms from the papers plug into the
//! DCF without touching its state machine. The default policy is plain
//! 802.11; Link RED and adaptive pacing add variants here.

use super::dcf::MacParams;
use crate::engine::Time;

/// A link-layer policy, dispatched by enum (no boxing on the hot path).
#[derive(Clone, Debug, Default)]
pub enum LinkPolicy {
    /// Standard 802.11 DCF.
    #[default]
    Standard,
}

impl LinkPolicy {
    /// Extra time added to the post-transmission backoff after a DATA frame
    /// is acknowledged (`retries` retransmissions, DATA on air for `airtime`).
    pub fn extra_backoff_after_success(&mut self, _retries: u32, _airtime: Time, _p: &MacParams) -> Time {
        match self {
            LinkPolicy::Standard => 0,
        }
    }
}
