//! Reading what `openssl s_time` prints: one progress character per completed
//! connection (`*` a new session, `r` a reused one; `t`/`3` for TLS 1.0 / SSL 3 new
//! sessions), and, if it ran to its own end, a summary.

use anyhow::{bail, Result};

/// The line s_time prints just before its `-new` loop.
const NEW_MARKER: &str = "Collecting connection statistics for ";
/// The line s_time prints just before its `-reuse` loop.
const REUSE_MARKER: &str = "starting\n";

/// What one s_time run printed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// The progress characters of the (one) timing loop, in order.
    pub progress: String,
    /// s_time's own summary, when it ended by itself.
    pub summary: Option<Summary>,
}

/// s_time's own summary lines (`N connections in X.XXs; ... connections/user sec` and
/// `N connections in S real seconds`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub connections: u64,
    pub user_s: f64,
    /// Whole seconds only: s_time reads the wall clock with `time()`.
    pub real_s: u64,
}

/// Counts of progress characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub connections: u64,
    pub reused: u64,
}

impl Counts {
    pub fn of(progress: &str) -> Counts {
        Counts {
            connections: progress.len() as u64,
            reused: progress.bytes().filter(|&b| b == b'r').count() as u64,
        }
    }
}

/// Parses s_time's standard output (complete, or cut short by a kill). Output before
/// the loop's first progress character is allowed to be incomplete: it yields no
/// progress. Fails on characters s_time never prints in a loop, or on two loops (the
/// collector runs one mode per process).
pub fn parse(text: &str) -> Result<Output> {
    let start = match (text.find(NEW_MARKER), text.find(REUSE_MARKER)) {
        (Some(_), Some(_)) => bail!("s_time ran both its -new and -reuse loops; expected one"),
        (Some(i), None) => match text[i..].find('\n') {
            Some(nl) => i + nl + 1,
            None => return Ok(Output::default()),
        },
        (None, Some(i)) => i + REUSE_MARKER.len(),
        (None, None) => return Ok(Output::default()),
    };
    let rest = &text[start..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let progress = &rest[..end];
    if let Some(c) = progress
        .chars()
        .find(|c| !matches!(c, '*' | 'r' | 't' | '3'))
    {
        bail!("unexpected character {c:?} among s_time's progress characters");
    }
    Ok(Output {
        progress: progress.to_string(),
        summary: summary(&rest[end..])?,
    })
}

fn summary(text: &str) -> Result<Option<Summary>> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let (Some(user_line), Some(real_line)) = (lines.next(), lines.next()) else {
        return Ok(None);
    };
    let (Some((n, rest)), Some((n2, real_rest))) = (
        user_line.split_once(" connections in "),
        real_line.split_once(" connections in "),
    ) else {
        bail!("unexpected s_time summary: {user_line:?} / {real_line:?}");
    };
    let user = rest.split_once("s;").map(|(u, _)| u);
    let real = real_rest.split_once(" real seconds").map(|(r, _)| r);
    match (
        n.parse(),
        n2.parse::<u64>(),
        user.map(str::parse),
        real.map(str::parse),
    ) {
        (Ok(connections), Ok(n2), Some(Ok(user_s)), Some(Ok(real_s))) if n2 == connections => {
            Ok(Some(Summary {
                connections,
                user_s,
                real_s,
            }))
        }
        _ => bail!("unexpected s_time summary: {user_line:?} / {real_line:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/data/s_time/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn tls13_plain_reuse_never_resumes() {
        // Recorded on this machine: `s_time -tls1_3 -reuse` (no -www), killed after 0.25 s.
        let out = parse(&fixture("tls13-reuse-plain-killed")).unwrap();
        let c = Counts::of(&out.progress);
        assert!(c.connections > 0);
        assert_eq!(
            c.reused, 0,
            "every 'reused' connection was a full handshake"
        );
        assert_eq!(out.summary, None, "killed before its summary");
    }

    #[test]
    fn tls13_reuse_with_a_read_resumes_every_time() {
        let out = parse(&fixture("tls13-reuse-www-killed")).unwrap();
        let c = Counts::of(&out.progress);
        assert!(c.connections > 0);
        assert_eq!(c.reused, c.connections);
        let out = parse(&fixture("tls12-reuse-killed")).unwrap();
        let c = Counts::of(&out.progress);
        assert!(c.connections > 0 && c.reused == c.connections);
    }

    #[test]
    fn new_sessions_and_a_complete_summary() {
        let out = parse(&fixture("tls13-new-killed")).unwrap();
        assert_eq!(Counts::of(&out.progress).reused, 0);
        assert!(!out.progress.is_empty());
        let out = parse(&fixture("tls12-new-complete")).unwrap();
        let s = out.summary.expect("ran to its end");
        assert_eq!(s.connections, out.progress.len() as u64);
        assert_eq!((s.connections, s.user_s, s.real_s), (2159, 0.74, 2));
    }

    #[test]
    fn partial_and_odd_output() {
        assert_eq!(parse("").unwrap(), Output::default());
        assert_eq!(
            parse("Collecting connection statistics for 3").unwrap(),
            Output::default()
        );
        assert_eq!(
            parse("\n\nNow timing with session id reuse.\nstarting\nrr*")
                .unwrap()
                .progress,
            "rr*"
        );
        assert!(parse("starting\nr?r").is_err());
        assert!(parse("Collecting connection statistics for 1 seconds\n*\n\nstarting\nr").is_err());
        assert!(parse("starting\nrr\n\n2 connections in lots\nand more\n").is_err());
    }
}
