//! Lengths of the strings that name things: host names, ids, versions. Each has a real
//! limit far below what a file can hold, and the viewer shows them in labels, titles,
//! table cells and the CSV: a 2 MB host name is no host name, and drawing it everywhere
//! costs seconds. Free text (errors, timed windows, settings) is not bounded here; the
//! viewer cuts it where it shows it.

use super::arm::Bad;
use crate::schema::{Environment, Evidence, Library};

/// A DNS name: 253 bytes (RFC 1035's 255 octets on the wire, less the length bytes).
/// Also the bound on a probe's host and SNI.
pub const MAX_HOST_NAME: usize = 253;
/// Run ids, arm ids (and the ids that name arms: comparisons' baseline and candidate,
/// `control_of`, `round_group`), tool and library names, git commits: 128 bytes. The
/// collector's run ids are at most 62 bytes (40 of them the host name, cut) plus a
/// `-N` suffix; its longest arm ids about 70.
pub const MAX_ID: usize = 128;
/// Versions (tool, TLS library, crypto provider, peers, an arm's peer version) and the
/// machine's OS, kernel and CPU model strings: 256 bytes. `openssl version` prints about
/// 64, `/proc/cpuinfo`'s model name about 50.
pub const MAX_VERSION: usize = 256;
/// RFC 3339 times: 64 bytes (`2026-11-30T02:53:02.807269591Z` is 30).
pub const MAX_TIME: usize = 64;

fn check(path: String, value: &str, max: usize, what: &str, bad: &mut Bad<'_>) {
    if value.len() > max {
        bad(
            path,
            format!("{} bytes long; {what} is at most {max} bytes", value.len()),
        );
    }
}

fn library(path: &str, l: &Library, bad: &mut Bad<'_>) {
    check(format!("{path}.name"), &l.name, MAX_ID, "a name", bad);
    check(
        format!("{path}.version"),
        &l.version,
        MAX_VERSION,
        "a version",
        bad,
    );
}

fn environment(path: &str, e: &Environment, bad: &mut Bad<'_>) {
    check(
        format!("{path}.hostname"),
        &e.hostname,
        MAX_HOST_NAME,
        "a host name",
        bad,
    );
    for (field, v) in [
        ("os", &e.os),
        ("kernel", &e.kernel),
        ("cpu_model", &e.cpu_model),
    ] {
        check(
            format!("{path}.{field}"),
            v,
            MAX_VERSION,
            "a system description",
            bad,
        );
    }
    library(&format!("{path}.tls_library"), &e.tls_library, bad);
    library(&format!("{path}.crypto_provider"), &e.crypto_provider, bad);
    for (j, p) in e.peers.iter().enumerate() {
        library(&format!("{path}.peers[{j}]"), p, bad);
    }
    if let Some(server) = &e.server_host {
        environment(&format!("{path}.server_host"), server, bad);
    }
}

/// Every identity string of `e` within its limit.
pub(super) fn check_all(e: &Evidence, bad: &mut Bad<'_>) {
    let run = &e.run;
    check("run.id".into(), &run.id, MAX_ID, "a run id", bad);
    for (field, v) in [
        ("started_at", &run.started_at),
        ("finished_at", &run.finished_at),
    ] {
        check(format!("run.{field}"), v, MAX_TIME, "an RFC 3339 time", bad);
    }
    check(
        "run.tool.name".into(),
        &run.tool.name,
        MAX_ID,
        "a name",
        bad,
    );
    check(
        "run.tool.version".into(),
        &run.tool.version,
        MAX_VERSION,
        "a version",
        bad,
    );
    if let Some(c) = &run.tool.git_commit {
        check("run.tool.git_commit".into(), c, MAX_ID, "a commit", bad);
    }
    environment("environment", &e.environment, bad);
    for (i, a) in e.arms.iter().enumerate() {
        check(format!("arms[{i}].id"), &a.id, MAX_ID, "an arm id", bad);
        for (field, v) in [
            ("control_of", &a.control_of),
            ("round_group", &a.round_group),
        ] {
            if let Some(v) = v {
                check(format!("arms[{i}].{field}"), v, MAX_ID, "an id", bad);
            }
        }
        if let Some(v) = &a.peer_version {
            check(
                format!("arms[{i}].peer_version"),
                v,
                MAX_VERSION,
                "a version",
                bad,
            );
        }
    }
    for (i, c) in e.comparisons.iter().enumerate() {
        for (field, v) in [("baseline", &c.baseline), ("candidate", &c.candidate)] {
            check(
                format!("comparisons[{i}].{field}"),
                v,
                MAX_ID,
                "an arm id",
                bad,
            );
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(p) = &e.probe {
        for (field, v) in [("host", &p.host), ("sni", &p.sni)] {
            check(
                format!("probe.{field}"),
                v,
                MAX_HOST_NAME,
                "a host name",
                bad,
            );
        }
        check(
            "probe.address".into(),
            &p.address,
            MAX_ID,
            "an address",
            bad,
        );
    }
}

/// `id` as a message quotes it: whole up to [`MAX_ID`] bytes, else its start and `…`
/// (an over-long id is already an error of its own; the message must not repeat it).
pub(super) fn quoted(id: &str) -> std::borrow::Cow<'_, str> {
    if id.len() <= MAX_ID {
        return id.into();
    }
    let end = (0..=MAX_ID)
        .rev()
        .find(|&i| id.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}…", &id[..end]).into()
}

#[cfg(test)]
#[path = "strings_tests.rs"]
mod tests;
