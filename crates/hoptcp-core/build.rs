//! Stamps the build with a digest of the simulator's source, so results stores
//! keyed by the hoptcp version never reuse runs made by a different core.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("src dir").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut h = Sha256::new();
    for f in &files {
        let rel = f.strip_prefix(root).expect("under the crate");
        h.update(rel.to_string_lossy().replace('\\', "/").as_bytes());
        h.update([0]);
        // Line endings do not change behaviour: hash contents with \r removed.
        let text = std::fs::read(f).expect("read source");
        h.update(text.into_iter().filter(|&b| b != b'\r').collect::<Vec<u8>>());
        h.update([0]);
    }
    let digest = h.finalize();
    let short: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=HOPTCP_CORE_DIGEST={short}");
    println!("cargo:rerun-if-changed=src");
}
