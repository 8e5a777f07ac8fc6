//! What a scenario key's declaration is made of, and the traits
//! `#[derive(Keys)]` (crates/hoptcp-keys) builds on. Each key is declared
//! once, on the field of the table that holds it (`schema.rs`): its default,
//! what it accepts (a machine-readable range or list), its unit and, as the
//! field's doc comment, one line of meaning — as ns-3 declares attributes.
//! `hoptcp scenario reference` (docs/scenario-reference.md), `hoptcp scenario
//! schema`, validation's range checks and their error texts read them. Keys
//! of list entries are written `flows[].src`. Where a lower layer owns a
//! constant (the 802.11 contention window, TCP-AP's profiles, LDM's and
//! AODV's constants) the declaration reads it from there.

use super::error::ScenarioError;
use crate::engine::time::to_secs;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use hoptcp_keys::Keys;

/// A table of keys: `#[derive(Keys)]` lists its declarations in field
/// order, sub-tables in place.
pub trait Keys {
    fn declare(out: &mut Vec<Decl>);
}

/// A key's default.
#[derive(Clone, Copy, Debug)]
pub enum Def {
    Int(u64),
    Num(f64),
    Bool(bool),
    /// A string value (an enum's name).
    Word(&'static str),
    /// No default: the key must be given (where the text says).
    Required(&'static str),
    /// Absent by default; the text says what absence means.
    Unset(&'static str),
    /// Computed from other keys or a lower layer's constants; the function writes it.
    Derived(fn() -> String),
}

/// What a key accepts.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// An integer in lo..=hi.
    Ints(u64, u64),
    /// A number in a range.
    Num(NumRange),
    /// One of these strings.
    Words(&'static [&'static str]),
    /// A rule in words (a list's shape, or a bound set by another key).
    Text(&'static str),
}

/// A number's range, machine-readable: the bounds validation checks (and the
/// JSON Schema states), with what the reference and the error say.
#[derive(Clone, Copy, Debug)]
pub struct NumRange {
    /// Lower bound (`f64::NEG_INFINITY`: none); `lo_open`: the bound itself is out.
    pub lo: f64,
    pub lo_open: bool,
    /// Upper bound (`f64::INFINITY`: none).
    pub hi: f64,
    pub hi_open: bool,
    /// How the reference writes the rule where it says more than the bounds
    /// (a bound set by another key); "" writes the bounds.
    pub text: &'static str,
    /// What the error adds in brackets (the quantity, an example).
    pub hint: &'static str,
    /// The error's whole rule where it is worded otherwise; "" derives it.
    pub says: &'static str,
}

/// Above `lo`.
pub const fn gt(lo: f64) -> NumRange {
    NumRange { lo, lo_open: true, hi: f64::INFINITY, hi_open: false, text: "", hint: "", says: "" }
}
/// At least `lo`.
pub const fn ge(lo: f64) -> NumRange {
    NumRange { lo_open: false, ..gt(lo) }
}
/// Between `lo` and `hi`, each end in or out.
pub const fn within(lo: f64, lo_open: bool, hi: f64, hi_open: bool) -> NumRange {
    NumRange { lo, lo_open, hi, hi_open, text: "", hint: "", says: "" }
}

impl NumRange {
    pub const fn hint(self, hint: &'static str) -> Self {
        NumRange { hint, ..self }
    }
    pub const fn text(self, text: &'static str) -> Self {
        NumRange { text, ..self }
    }
    pub const fn says(self, says: &'static str) -> Self {
        NumRange { says, ..self }
    }

    pub fn contains(&self, v: f64) -> bool {
        let above = if self.lo_open { v > self.lo } else { v >= self.lo };
        let below = if self.hi_open { v < self.hi } else { v <= self.hi };
        v.is_finite() && above && below
    }

    /// The bounds as the reference writes them: "> 0", ">= 1", "(0, 1]".
    pub fn bounds_text(&self) -> String {
        let (lo, hi) = (num_short(self.lo), num_short(self.hi));
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (true, false) => format!("{} {lo}", if self.lo_open { ">" } else { ">=" }),
            (false, true) => format!("{} {hi}", if self.hi_open { "<" } else { "<=" }),
            (true, true) => {
                format!("{}{lo}, {hi}{}", if self.lo_open { "(" } else { "[" }, if self.hi_open { ")" } else { "]" })
            }
            (false, false) => "any number".to_string(),
        }
    }

    /// `v` in range, as `key`; the error names key, value and rule.
    pub fn check(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        if self.contains(v) {
            Ok(())
        } else {
            Err(ScenarioError::value(key, v, self.rule()))
        }
    }

    /// What an error says is allowed.
    pub fn rule(&self) -> String {
        if !self.says.is_empty() {
            return self.says.to_string();
        }
        let hint = if self.hint.is_empty() { String::new() } else { format!(" ({})", self.hint) };
        match (self.lo, self.lo_open, self.hi.is_finite()) {
            (0.0, true, false) => format!("must be a positive number{hint}"),
            (0.0, false, false) => format!("must be zero or positive{hint}"),
            (_, _, false) => format!("must be a number {}{hint}", self.bounds_text()),
            _ => format!("must be in {}{hint}", self.bounds_text()),
        }
    }
}

/// A bound as written in a range: 0, 1, 0.001.
fn num_short(v: f64) -> String {
    format!("{v}")
}

#[derive(Clone, Copy, Debug)]
pub struct Decl {
    /// Dotted path; `[]` marks the entries of a list (`flows[].src`).
    pub key: &'static str,
    /// "integer", "number", "bool", "string", or a list shape.
    pub ty: &'static str,
    pub default: Def,
    pub allowed: Allowed,
    /// Unit of the value ("" if none).
    pub unit: &'static str,
    pub doc: &'static str,
}

impl Decl {
    /// The integer default (a declaration error, caught by the tests, if it has none).
    pub const fn int(&self) -> u64 {
        match self.default {
            Def::Int(v) => v,
            _ => panic!("declaration has no integer default"),
        }
    }

    pub const fn num(&self) -> f64 {
        match self.default {
            Def::Num(v) => v,
            _ => panic!("declaration has no number default"),
        }
    }

    pub const fn flag(&self) -> bool {
        match self.default {
            Def::Bool(v) => v,
            _ => panic!("declaration has no bool default"),
        }
    }

    /// The default of an enum-valued key, as its Rust value.
    pub fn word<T: DeserializeOwned>(&self) -> T {
        let Def::Word(w) = self.default else { panic!("{}: declaration has no string default", self.key) };
        serde_json::from_value(serde_json::Value::String(w.to_string()))
            .unwrap_or_else(|e| panic!("{}: default {w:?} is not a value of its type: {e}", self.key))
    }

    /// `v` within the declared integer range, as `key` (the concrete path,
    /// e.g. `flows.3.max_window`); the error names key, value and range.
    pub fn check_int(&self, key: &str, v: u64) -> Result<(), ScenarioError> {
        let Allowed::Ints(lo, hi) = self.allowed else { panic!("{}: declaration has no integer range", self.key) };
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(ScenarioError::value(key, v, format!("must be an integer in {lo}..={hi}")))
        }
    }

    /// `v` within the declared number range, as `key`.
    pub fn check_num(&self, key: &str, v: f64) -> Result<(), ScenarioError> {
        let Allowed::Num(r) = self.allowed else { panic!("{}: declaration has no number range", self.key) };
        r.check(key, v)
    }

    /// [`Decl::check_num`] under the declared key (a key outside a list).
    pub fn check(&self, v: f64) -> Result<(), ScenarioError> {
        self.check_num(self.key, v)
    }

    /// The declared range as the error messages write it ("1..=1000000").
    pub fn range_text(&self) -> String {
        match self.allowed {
            Allowed::Ints(lo, hi) => format!("{lo}..={hi}"),
            Allowed::Num(r) if !r.text.is_empty() => r.text.to_string(),
            Allowed::Num(r) => r.bounds_text(),
            Allowed::Words(w) => w.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", "),
            Allowed::Text(t) => t.to_string(),
        }
    }

    pub fn default_text(&self) -> String {
        match self.default {
            Def::Int(v) => v.to_string(),
            Def::Num(v) => num_text(v),
            Def::Bool(v) => v.to_string(),
            Def::Word(w) => format!("\"{w}\""),
            Def::Required(t) => format!("required ({t})"),
            Def::Unset(t) => format!("unset ({t})"),
            Def::Derived(f) => f(),
        }
    }

    /// Everything as text, for the reference document and `--json` readers.
    pub fn text(&self) -> DeclText {
        DeclText {
            key: self.key,
            ty: self.ty,
            default: self.default_text(),
            allowed: self.range_text(),
            unit: self.unit,
            doc: self.doc,
        }
    }
}

/// A declaration written out.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeclText {
    pub key: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub default: String,
    pub allowed: String,
    pub unit: &'static str,
    pub doc: &'static str,
}

/// A number as TOML writes it (always with a decimal point or exponent).
pub fn num_text(v: f64) -> String {
    let s = format!("{v}");
    if s.contains(['.', 'e', 'E', 'i', 'N']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// What a field's Rust type says of its key: the type's name in the
/// reference and what it accepts when the declaration does not narrow it.
pub trait KeyType {
    const TY: &'static str;
    const ALLOWED: Allowed = Allowed::Text("any");
}

impl KeyType for f64 {
    const TY: &'static str = "number";
}
impl KeyType for u32 {
    const TY: &'static str = "integer";
}
impl KeyType for u64 {
    const TY: &'static str = "integer";
}
impl KeyType for bool {
    const TY: &'static str = "bool";
    const ALLOWED: Allowed = Allowed::Words(&["true", "false"]);
}
impl KeyType for String {
    const TY: &'static str = "string";
}
impl<T: KeyType> KeyType for Option<T> {
    const TY: &'static str = T::TY;
    const ALLOWED: Allowed = T::ALLOWED;
}

/// Enums read from the file: "string", one of the names serde gives them
/// (strum derives the list; a test checks serde takes the same names), and
/// a default by name.
macro_rules! word_keys {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::scenario::keys::KeyType for $t {
            const TY: &'static str = "string";
            const ALLOWED: $crate::scenario::keys::Allowed =
                $crate::scenario::keys::Allowed::Words(<$t as strum::VariantNames>::VARIANTS);
        }
        impl $crate::scenario::keys::FromDef for $t {
            fn from_def(d: &$crate::scenario::keys::Decl) -> Self {
                d.word()
            }
        }
    )*};
}
pub(crate) use word_keys;

/// A field's value from its declared default (`#[keys(default)]`): keys
/// absent by default or filled during resolution start empty.
pub trait FromDef {
    fn from_def(d: &Decl) -> Self;
}

impl FromDef for f64 {
    fn from_def(d: &Decl) -> Self {
        d.num()
    }
}
impl FromDef for u32 {
    fn from_def(d: &Decl) -> Self {
        d.int() as u32
    }
}
impl FromDef for u64 {
    fn from_def(d: &Decl) -> Self {
        d.int()
    }
}
impl FromDef for bool {
    fn from_def(d: &Decl) -> Self {
        d.flag()
    }
}
impl<T> FromDef for Option<T> {
    fn from_def(_: &Decl) -> Self {
        None
    }
}
impl<T> FromDef for Vec<T> {
    fn from_def(_: &Decl) -> Self {
        Vec::new()
    }
}

/// The largest count a key accepts (nodes, flows, packets, hops).
pub const MAX_COUNT: u64 = 1_000_000;
/// CBR packet size over UDP when `packet_bytes` is not given.
pub const UDP_PACKET_BYTES: u32 = 1460;

// Defaults the reference writes from a lower layer's constants.

pub fn rates_by_standard(f: fn(crate::mac::Standard) -> f64) -> String {
    use crate::mac::Standard::*;
    [Dsss, Ofdm, Erp, Ns2G].iter().map(|&s| format!("{} {}", s.name(), f(s))).collect::<Vec<_>>().join(", ")
}

pub fn cw_by_standard(f: fn((u32, u32)) -> u32) -> String {
    use crate::mac::Standard::*;
    [Dsss, Ofdm, Erp, Ns2G].iter().map(|&s| format!("{} {}", s.name(), f(s.cw_bounds()))).collect::<Vec<_>>().join(", ")
}

pub fn ldm() -> crate::net::ldm::LdmParams {
    crate::net::ldm::LdmParams::default()
}

pub fn ldm_clear_period() -> String {
    num_text(to_secs(ldm().clear_period))
}

/// A `[tcp.ap]` default under each profile.
pub fn ap_defaults(f: fn(&crate::transport::tcp::tcp_ap::TcpApConfig) -> String) -> String {
    use crate::transport::tcp::tcp_ap::TcpApConfig;
    format!("paper: {}; ns2: {}", f(&TcpApConfig::paper(0.0)), f(&TcpApConfig::ns2(0.0)))
}
pub fn word_of<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
pub fn secs_or_zero(t: Option<crate::engine::Time>) -> String {
    num_text(t.map_or(0.0, to_secs))
}

/// Tables (and lists of tables) and what they are for, in document order.
pub const TABLES: &[(&str, &str)] = &[
    ("", "Top-level keys."),
    ("topology", "The wireless nodes' positions. Each kind accepts only its own keys."),
    ("radio", "Two-ray ground propagation and the 802.11 PHY."),
    ("mac", "IEEE 802.11 DCF."),
    (
        "mac.link_red",
        "Link RED (Fu et al.); kept in the resolved scenario only while enabled or read by adaptive pacing.",
    ),
    ("mac.adaptive_pacing", "Adaptive pacing (Fu et al.); kept in the resolved scenario only while enabled."),
    ("ip", "The IP layer."),
    ("ip.ldm", "Low Delay Marking (Lee et al.); kept in the resolved scenario only while enabled."),
    ("routing", "Routing."),
    ("routing.aodv", "AODV's constants (ns-2.35); only with routing.protocol = \"aodv\"."),
    ("tcp", "Defaults of every TCP flow; [[flows]] may override some per flow."),
    ("tcp.ap", "TCP-AP (ElRakabawy et al.); kept when a flow or the gateway uses it."),
    ("tcp.cubic", "CUBIC's profile; kept only when a flow runs CUBIC with a profile other than rfc9438."),
    ("flows[]", "`[[flows]]`: one entry per flow (or `count` identical ones)."),
    ("random_flows", "Flows between random node pairs drawn from the seed."),
    ("stats", "What is measured and the batch-means stop rule."),
    ("wired", "A wired domain behind one Internet gateway; absent: all wireless."),
    ("wired.links[]", "`[[wired.links]]`: duplex links; absent: a chain from the gateway through the wired nodes."),
    ("wired.tcp_gap", "Gateway Adaptive Pacing at the gateway."),
];

/// Every key the scenario file accepts, in document order.
pub fn declarations() -> Vec<Decl> {
    let mut out = Vec::new();
    <super::schema::Scenario as Keys>::declare(&mut out);
    out
}

/// A value `validate` fills; absent only if a fill was skipped (a bug,
/// reported rather than panicking).
pub(crate) fn filled<T>(key: &str, v: Option<T>) -> Result<T, super::ScenarioError> {
    v.ok_or_else(|| super::ScenarioError::new(key, format!("`{key}` was not resolved")))
}
