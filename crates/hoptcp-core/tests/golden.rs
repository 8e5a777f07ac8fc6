//! Bit-for-bit regression guard. Each scenario below was run once and its
//! report stored in `tests/golden/<name>.json`. A run must reproduce every
//! value stored there exactly (new report keys may appear beside them): new
//! mechanisms that are switched off must cost nothing and change nothing.
//!
//! A deliberate change of the default model (and only that) re-records the
//! files with `HOPTCP_BLESS_GOLDEN=1 cargo test --release --test golden`; the
//! commit that does so says why.

mod common;
use common::*;
use serde_json::Value;

/// (name, scenario TOML). Short runs that still exercise loss recovery,
/// collisions, capture, EIFS, retry drops and queue overflow.
fn cases() -> Vec<(&'static str, String)> {
    let chain = |hops: u32, extra: &str| {
        format!("duration_s = 60\nseed = 3\n[topology]\nkind = \"chain\"\nhops = {hops}\nspacing_m = 200\n{extra}")
    };
    let tcp_flow = |s: u32, d: u32| format!("[[flows]]\nsrc = {s}\ndst = {d}\ntransport = \"tcp\"\napp = \"ftp\"\n");
    vec![
        ("chain7-tcp-w32", chain(7, "[tcp]\nmax_window = 32\n") + &tcp_flow(0, 7)),
        ("chain7-tcp-w20", chain(7, "") + &tcp_flow(0, 7)),
        ("chain7-tcp-w3-576", chain(7, "[tcp]\nmax_window = 3\npayload_bytes = 576\n") + &tcp_flow(0, 7)),
        (
            "chain7-cbr-jitter",
            chain(7, "[stats]\nthroughput_interval_s = 5\n")
                + "[[flows]]\nsrc = 0\ndst = 7\ntransport = \"udp\"\nrate_bps = 350000\npacket_bytes = 1460\njitter = 0.5\n",
        ),
        (
            "chain4-vegas-delack",
            chain(4, "[tcp]\nvariant = \"vegas\"\ndelayed_ack = true\nmax_window = 16\n") + &tcp_flow(0, 4),
        ),
        ("chain5-reno-queue5", chain(5, "[tcp]\nvariant = \"reno\"\nmax_window = 32\n[mac]\nqueue_limit = 5\n") + &tcp_flow(0, 5)),
        (
            "cross-2tcp",
            "duration_s = 40\nseed = 2\n[topology]\nkind = \"cross\"\nhops = 6\nspacing_m = 200\n[tcp]\nmax_window = 32\n"
                .to_string()
                + &tcp_flow(0, 6)
                + &tcp_flow(7, 12),
        ),
        (
            "grid5-cbr",
            "duration_s = 20\nseed = 1\n[topology]\nkind = \"grid\"\nrows = 5\ncols = 5\nspacing_m = 200\n".to_string()
                + &cbr(10, 14, 400000.0, 1000)
                + &cbr(2, 22, 400000.0, 1000),
        ),
        (
            "random50-tcp",
            "duration_s = 20\nseed = 5\n[topology]\nkind = \"random\"\nnodes = 50\nwidth_m = 900\nheight_m = 900\n\
             [random_flows]\ncount = 4\ntransport = \"tcp\"\napp = \"ftp\"\nmin_hops = 2\nmax_hops = 5\n"
                .to_string(),
        ),
        (
            "star-basic-access",
            "duration_s = 10\nseed = 4\n[topology]\nkind = \"star\"\nleaves = 6\nradius_m = 100\n\
             [mac]\nrts_threshold_bytes = 3000\n"
                .to_string()
                + &(1..=6).map(|i| cbr(i, 0, 400000.0, 1000)).collect::<String>(),
        ),
        (
            "hidden-cs250",
            "duration_s = 20\nseed = 6\n[topology]\nkind = \"chain\"\nhops = 2\nspacing_m = 200\n[radio]\ncs_range_m = 250\n"
                .to_string()
                + &cbr(0, 1, 1000000.0, 1000)
                + &cbr(2, 1, 1000000.0, 1000),
        ),
        (
            "ofdm-single-hop",
            "duration_s = 5\nseed = 1\n[topology]\nkind = \"chain\"\nhops = 1\nspacing_m = 100\n[radio]\nstandard = \"ofdm\"\n"
                .to_string()
                + &cbr(0, 1, 60e6, 1460),
        ),
    ]
}

/// The report without the fields that legitimately differ between runs or builds.
fn report_json(toml: &str) -> Value {
    let mut v = serde_json::to_value(run(toml, &[])).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("wall_time_s");
    o.remove("hoptcp_version");
    v
}

/// Every value of `want` must be in `got` unchanged; returns the first path that differs.
fn first_difference(path: &str, want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().find_map(|(k, wv)| match g.get(k) {
            None => Some(format!("{path}.{k}: missing")),
            Some(gv) => first_difference(&format!("{path}.{k}"), wv, gv),
        }),
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            w.iter().zip(g).enumerate().find_map(|(i, (a, b))| first_difference(&format!("{path}.{i}"), a, b))
        }
        _ if want == got => None,
        _ => Some(format!("{path}: golden {want} != now {got}")),
    }
}

/// A node report in which nothing happened: every counter zero (its id and
/// position aside), every histogram empty.
fn idle(node: &Value) -> bool {
    fn zero(v: &Value) -> bool {
        match v {
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::Object(o) => o.values().all(zero),
            Value::Array(a) => a.iter().all(zero),
            _ => true,
        }
    }
    node.as_object().unwrap().iter().all(|(k, v)| matches!(k.as_str(), "id" | "x" | "y") || zero(v))
}

#[test]
fn reports_match_the_golden_files() {
    let dir = manifest_dir().join("tests/golden");
    let bless = std::env::var_os("HOPTCP_BLESS_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, toml) in cases() {
        let got = report_json(&toml);
        let file = dir.join(format!("{name}.json"));
        if bless {
            std::fs::write(&file, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut want: Value = serde_json::from_str(&text).unwrap();
        let mut got = got;
        // Nodes are matched by id: a report lists only the nodes that took
        // part, and a golden node it leaves out must have done nothing.
        let want_nodes = want.as_object_mut().unwrap().remove("nodes").unwrap();
        let got_nodes = got.as_object_mut().unwrap().remove("nodes").unwrap();
        let want_nodes = want_nodes.as_array().unwrap();
        if got["node_count"] != want_nodes.len() {
            let (n, golden) = (&got["node_count"], want_nodes.len());
            failures.push(format!("{name}.node_count: {n} != {golden} nodes in the golden file"));
        }
        for w in want_nodes {
            let id = &w["id"];
            match got_nodes.as_array().unwrap().iter().find(|g| &g["id"] == id) {
                Some(g) => failures.extend(first_difference(&format!("{name}.nodes[id {id}]"), w, g)),
                None if idle(w) => {}
                None => failures.push(format!("{name}.nodes[id {id}]: not reported, but it took part: {w}")),
            }
        }
        if let Some(d) = first_difference(name, &want, &got) {
            failures.push(d);
        }
    }
    assert!(failures.is_empty(), "reports changed:\n{}", failures.join("\n"));
}
