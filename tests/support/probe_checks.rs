//! Checks of `collector probe` evidence shared by the probe tests against real servers.

use std::path::Path;
use std::process::Output;

use shared::{Evidence, Mode, ServerProbe, Stack};

use crate::collector;

/// `collector probe localhost:PORT`, trusting the test CA `dir/ca.pem`, evidence into
/// `dir/results`: 10 samples, no pause, a rate cap no loopback server reaches, seed 1
/// (quick, and repeatable).
pub fn run_probe(dir: &Path, port: u16) -> Output {
    run_probe_with(dir, port, &[])
}

/// [`run_probe`] with more arguments (e.g. `--insecure`).
pub fn run_probe_with(dir: &Path, port: u16, more: &[&str]) -> Output {
    collector()
        .args(["probe", &format!("localhost:{port}")])
        .args(more)
        .args(["--ca", dir.join("ca.pem").to_str().unwrap()])
        .args(["--samples", "10", "--rate", "2000", "--pause-ms", "0"])
        .args(["--seed", "1", "--out"])
        .arg(dir.join("results"))
        .output()
        .expect("collector runs")
}

/// Whether the probe found the capability `name` supported (panics if it was not tried).
pub fn supported(p: &ServerProbe, name: &str) -> bool {
    p.capability(name)
        .unwrap_or_else(|| panic!("no capability {name}"))
        .supported
}

/// Each `(capability, supported)` as the probe found it.
pub fn expect(p: &ServerProbe, want: &[(&str, bool)]) {
    for &(name, w) in want {
        assert_eq!(supported(p, name), w, "{name}: {:#?}", p.findings);
    }
}

/// Measured arms are sound, against a remote server, and resumed ones resumed every time.
pub fn sound(e: &Evidence) {
    for a in &e.arms {
        assert_eq!(a.server_stack, Stack::Remote);
        if a.skipped.is_none() {
            assert_eq!(a.error, None, "{}", a.id);
            if a.mode == Mode::Resumed {
                assert_eq!(a.resumed.client, a.succeeded, "{}", a.id);
            }
        }
    }
}
