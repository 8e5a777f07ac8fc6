//! The core's layers import only downwards. Every `src/**/*.rs` is read, its
//! `crate::X` and `super::` paths resolved to a top-level folder, and an
//! import of a folder of the same or a higher rank fails the test with
//! `file:line imports LAYER (above)`. Same-rank folders may not import each
//! other either, so the folders' drawing cannot hold a cycle.

use std::path::{Path, PathBuf};

/// Top-level folders (and `lib.rs`, the facade) by rank, lowest first.
/// A file may import its own folder and folders of a strictly lower rank.
const RANKS: &[(&str, u32)] = &[
    ("engine", 0),    // time, events, random streams, the arena
    ("wire", 1),      // what travels: ids, frames, packets, segments, ECN, AODV messages
    ("phy", 2),       // propagation, channel, reception
    ("mac", 3),       // 802.11 DCF and link policies
    ("wired", 3),     // point-to-point links (a link layer beside the MAC)
    ("net", 4),       // interface queue, drop causes, LDM, routing
    ("transport", 5), // UDP, TCP, TCP-AP
    ("app", 6),       // traffic sources
    ("models", 6),    // analytic models (use the MAC's timing)
    ("topology", 6),  // node placement (uses phy positions)
    ("stats", 7),     // series, run trace, pcap, batch means
    ("gateway", 8),   // TCP-GAP (TCP-AP's estimator, stats series)
    ("scenario", 9),  // the scenario file: parse, validate, plan
    ("sim", 10),      // the sole dispatcher: owns the event loop
    ("lib.rs", 11),   // the facade
];

fn rank(folder: &str) -> Option<u32> {
    RANKS.iter().find(|(f, _)| *f == folder).map(|(_, r)| *r)
}

/// The module path of a source file relative to `src/` (`net/routing/mod.rs`
/// is `[net, routing]`, `lib.rs` is `[]`).
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The top-level folders one line of code names: `crate::x…`,
/// `crate::{x, y…}`, and `super::…` chains that climb to the crate root.
/// Comments are not code.
fn folders_named(module: &[String], line: &str) -> Vec<String> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let code = code.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        let after = &rest[i + "crate::".len()..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `hoptcp_crate::`, `$crate::`
        }
        if let Some(group) = after.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            out.extend(inner.split(',').map(|s| ident(s.trim())).filter(|s| !s.is_empty()));
        } else {
            out.push(ident(after));
        }
    }
    let mut rest = code;
    while let Some(i) = rest.find("super::") {
        let before = rest[..i].chars().last();
        let mut tail = &rest[i..];
        let mut ups = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            ups += 1;
            tail = t;
        }
        rest = tail;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        // A file's module path is at most as deep as the real one (inline
        // modules only go deeper), so this never misses a climb to the root.
        if ups >= module.len() {
            out.push(ident(tail));
        }
    }
    out
}

/// Every upward import in `text` (the file `rel` under `src/`), as
/// `rel:line imports FOLDER (above)`.
fn upward_imports(rel: &str, text: &str) -> Vec<String> {
    let module = module_path(rel);
    let own = module.first().map(String::as_str).unwrap_or("lib.rs");
    let own_rank = rank(own).unwrap_or_else(|| panic!("{rel}: folder {own} has no rank in RANKS"));
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for folder in folders_named(&module, line) {
            if folder == own {
                continue;
            }
            let Some(r) = rank(&folder) else { continue }; // an item of lib.rs, or `*`
            if r >= own_rank {
                found.push(format!("{rel}:{} imports {folder} (above)", n + 1));
            }
        }
    }
    found
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every finding of `check` over the sources under `src/FOLDER` ("" for all).
fn check_sources(folder: &str, check: fn(&str, &str) -> Vec<String>) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src.join(folder), &mut files);
    files.sort();
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_str().unwrap().replace('\\', "/");
        found.extend(check(&rel, &std::fs::read_to_string(f).unwrap()));
    }
    found
}

#[test]
fn no_module_imports_a_higher_layer() {
    let violations = check_sources("", upward_imports);
    assert!(violations.is_empty(), "upward imports:\n{}", violations.join("\n"));
}

/// What `sim/` may name in `scenario`: the plan, which holds the layers' own
/// types, and the module that defines it. The parsed and resolved scenario
/// (`schema`, `resolved`, `keys`, `validate`, …) are converted in the build.
const SIM_SEES_OF_SCENARIO: &[&str] = &["Plan", "FlowPlan", "StatsPlan", "BatchMeansPlan", "build"];

/// Every `scenario::` name a file under `sim/` uses beyond the plan, as
/// `rel:line imports scenario::NAME (not the plan)`.
fn scenario_reads(rel: &str, text: &str) -> Vec<String> {
    if !rel.starts_with("sim/") {
        return Vec::new();
    }
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code.split("//").next().unwrap_or("");
        while let Some(i) = rest.find("scenario::") {
            let before = rest[..i].chars().last();
            let after = &rest[i + "scenario::".len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `my_scenario::`
            }
            let names: Vec<String> = match after.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').map(|s| ident(s.trim())).collect(),
                None => vec![ident(after)],
            };
            for name in names.into_iter().filter(|s| !s.is_empty()) {
                if !SIM_SEES_OF_SCENARIO.contains(&name.as_str()) {
                    found.push(format!("{rel}:{} imports scenario::{name} (not the plan)", n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn sim_reads_only_the_plan_of_the_scenario() {
    let reads = check_sources("sim", scenario_reads);
    assert!(reads.is_empty(), "sim/ reads the scenario beyond its plan:\n{}", reads.join("\n"));
}

#[test]
fn a_scenario_read_in_sim_is_caught() {
    let text =
        "//! sim runs a scenario::Plan\nuse crate::scenario::{FlowPlan, Plan};\nuse crate::scenario::resolved::Mac;\n\
                use crate::scenario::schema::{AppKind, TransportKind};\n";
    assert_eq!(
        scenario_reads("sim/mod.rs", text),
        [
            "sim/mod.rs:3 imports scenario::resolved (not the plan)",
            "sim/mod.rs:4 imports scenario::schema (not the plan)"
        ]
    );
    // Grouped, and a call through the path.
    let text = "use crate::scenario::{Plan, keys};\n    let w = crate::scenario::warnings(&sc, &flows);\n";
    assert_eq!(
        scenario_reads("sim/ip.rs", text),
        ["sim/ip.rs:1 imports scenario::keys (not the plan)", "sim/ip.rs:2 imports scenario::warnings (not the plan)"]
    );
    // The plan's module passes; files outside sim/ are not this rule's.
    assert!(scenario_reads("sim/ip.rs", "use crate::scenario::build::StatsPlan;\n").is_empty());
    assert!(scenario_reads("lib.rs", "use crate::scenario::resolved::Resolved;\n").is_empty());
}

#[test]
fn every_folder_has_a_rank() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if p.is_dir() || name == "lib.rs" {
            assert!(rank(&name).is_some(), "src/{name} has no rank in RANKS");
        } else {
            panic!("src/{name}: only lib.rs stands outside a layer folder");
        }
    }
}

#[test]
fn an_upward_import_is_caught() {
    let text = "//! docs may name crate::sim freely\nuse crate::engine::Time;\nuse crate::transport::TcpSegment;\n";
    assert_eq!(upward_imports("mac/dcf.rs", text), ["mac/dcf.rs:3 imports transport (above)"]);
    // Grouped paths, and a same-rank sibling.
    let text = "use crate::{engine::Time, wired::Link};\n";
    assert_eq!(upward_imports("mac/dcf.rs", text), ["mac/dcf.rs:1 imports wired (above)"]);
    // `super::` climbing to the root from two folders deep.
    let text = "    let x = super::super::super::sim::run();\n";
    assert_eq!(upward_imports("net/routing/aodv/mod.rs", text), ["net/routing/aodv/mod.rs:1 imports sim (above)"]);
    // Downward and own-folder paths pass; `super::` inside the folder too.
    let text = "use crate::wire::Frame;\nuse super::timing::Timing;\nuse crate::mac::Dcf;\n";
    assert!(upward_imports("mac/dcf.rs", text).is_empty());
    // The top may import anything.
    assert!(upward_imports("sim/mod.rs", "use crate::gateway::tcp_gap::Gateway;\n").is_empty());
}
