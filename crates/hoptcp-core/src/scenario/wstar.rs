//! `max_window = "wstar"`: the restrained-window TCP of Fu et al. and Lee et
//! al. as one key. The file's `tcp.max_window` and `flows[].max_window` are a
//! [`MaxWindow`]: a number of packets, or W*. The build gives each flow named
//! this way the W* of its static path (models/wstar.rs, rounded up: ⌈h/4⌉ on
//! chains and other topologies, ⌈(h+4)/8⌉ on the cross, ⌈(h+9)/14⌉ on the
//! grid), so the resolved scenario, its canonical form and its hash carry the
//! number, never the name.

use super::error::ScenarioError;

use super::resolved::{Inherit, Resolved};
use super::schema::{TopologyKind, TransportKind};
use crate::models::wstar;
use serde::de::{self, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

pub const NAME: &str = "wstar";

/// A flow's maximum window: packets, or the W* of its path (resolved by the build).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxWindow {
    Packets(u32),
    WStar,
}

impl MaxWindow {
    /// The window in packets (None: W*, not yet resolved).
    pub fn packets(self) -> Option<u32> {
        match self {
            MaxWindow::Packets(w) => Some(w),
            MaxWindow::WStar => None,
        }
    }
}

impl Serialize for MaxWindow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxWindow::Packets(w) => w.serialize(s),
            MaxWindow::WStar => s.serialize_str(NAME),
        }
    }
}

/// Start of the deserializer's message for a word other than "wstar";
/// `error::from_serde` turns it into [`other_word`]'s error at the key.
pub(crate) const OTHER_WORD: &str = "max_window word ";

/// `key` = "word": the two forms a window may take.
pub(crate) fn other_word(key: &str, shown: &str) -> ScenarioError {
    ScenarioError::value(
        key,
        shown,
        format!(
            "must be an integer in {} or \"wstar\" (the W* of the flow's path)",
            super::schema::TcpSpec::MAX_WINDOW.range_text()
        ),
    )
}

struct MaxWindowVisitor;

impl<'de> Visitor<'de> for MaxWindowVisitor {
    type Value = MaxWindow;

    // Other types get serde's message for a plain window ("expected u32").
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("u32")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<MaxWindow, E> {
        u32::try_from(v).map(MaxWindow::Packets).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<MaxWindow, E> {
        u32::try_from(v).map(MaxWindow::Packets).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<MaxWindow, E> {
        if s == NAME {
            Ok(MaxWindow::WStar)
        } else {
            Err(E::custom(format!("{OTHER_WORD}\"{s}\"")))
        }
    }
}

impl<'de> Deserialize<'de> for MaxWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MaxWindow, D::Error> {
        d.deserialize_any(MaxWindowVisitor)
    }
}

/// W* of an h-hop flow in `kind`'s topology.
pub fn for_path(kind: TopologyKind, hops: u32) -> u32 {
    let t = match kind {
        TopologyKind::Cross => wstar::Topology::Cross,
        TopologyKind::Grid => wstar::Topology::Grid,
        _ => wstar::Topology::Chain,
    };
    wstar::optimal_window(t, hops).rounded.max(1)
}

/// Does any key say "wstar"?
pub fn named(sc: &Resolved) -> bool {
    sc.tcp.max_window == MaxWindow::WStar || sc.flows.iter().any(|f| f.tcp.max_window == Inherit::Own(MaxWindow::WStar))
}

/// `tcp.max_window = "wstar"` needs the flows' paths before the network is built.
pub(crate) fn check(sc: &Resolved) -> Result<(), ScenarioError> {
    if sc.tcp.max_window == MaxWindow::WStar && !sc.random_flows.is_absent() {
        return Err(ScenarioError::value(
            "tcp.max_window",
            "\"wstar\"",
            "needs flows listed in [[flows]]: random flows' paths are only drawn when the network is built (give a number)",
        ));
    }
    Ok(())
}

/// Give each TCP flow whose window is W* (its own or [tcp]'s) the W* of its
/// path (`paths[i]`: [[flows]] entry i's), as its own window; `tcp.max_window`
/// itself becomes the first such flow's W* (1, W*'s floor, when no TCP flow
/// takes it).
pub(crate) fn resolve(sc: &mut Resolved, paths: &[Vec<u32>]) {
    let kind = sc.topology.kind();
    let mut first = None;
    for (f, path) in sc.flows.iter_mut().zip(paths) {
        if f.transport == TransportKind::Tcp && f.tcp.max_window.or(sc.tcp.max_window) == MaxWindow::WStar {
            let w = for_path(kind, path.len().saturating_sub(1) as u32);
            f.tcp.max_window = Inherit::Own(MaxWindow::Packets(w));
            first.get_or_insert(w);
        }
    }
    if sc.tcp.max_window == MaxWindow::WStar {
        sc.tcp.max_window = MaxWindow::Packets(first.unwrap_or(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Serialize)]
    struct T {
        w: MaxWindow,
    }

    fn parse(text: &str) -> Result<MaxWindow, String> {
        toml::from_str::<T>(text).map(|t| t.w).map_err(|e| e.message().to_string())
    }

    #[test]
    fn a_window_is_an_integer_or_wstar_and_writes_back_the_same() {
        assert_eq!(parse("w = 32"), Ok(MaxWindow::Packets(32)));
        assert_eq!(parse("w = \"wstar\""), Ok(MaxWindow::WStar));
        assert_eq!(serde_json::to_string(&MaxWindow::Packets(7)).unwrap(), "7");
        assert_eq!(serde_json::to_string(&MaxWindow::WStar).unwrap(), "\"wstar\"");
        // Another word is marked for `from_serde`; other types keep serde's u32 messages.
        assert_eq!(parse("w = \"best\""), Err(format!("{OTHER_WORD}\"best\"")));
        assert_eq!(parse("w = -1"), Err("invalid value: integer `-1`, expected u32".to_string()));
        assert_eq!(parse("w = 1.5"), Err("invalid type: floating point `1.5`, expected u32".to_string()));
        let e = super::super::error::from_serde("flows.2.max_window", &format!("{OTHER_WORD}\"best\""));
        assert_eq!(e.key, "flows.2.max_window");
        assert!(e.message.starts_with("`flows.2.max_window` = \"best\": must be an integer in 1..="), "{}", e.message);
    }
}
