//! Checks of `collector probe` evidence shared by the probe tests against real servers.

use shared::{Evidence, Mode, ServerProbe, Stack};

/// Whether the probe found the capability `name` supported (panics if it was not tried).
pub fn supported(p: &ServerProbe, name: &str) -> bool {
    p.protocols
        .iter()
        .chain(&p.groups)
        .chain(&p.resumption)
        .chain(&p.early_data)
        .find(|c| c.name == name)
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
