//! Every hostile evidence file in `tests/hostile/` (see its README) through
//! `Evidence::from_json` and through the viewer's whole load-and-derive path run natively
//! (`viewer::native`: load, validate, every card, table, series, chart and the CSV): no
//! panic, and either a clear error naming the file or a valid parse that renders.

use std::path::PathBuf;
use std::time::Duration;

use e2e::root;
use shared::Evidence;
use viewer::charts::Scale;
use viewer::data::filter::ArmFilter;
use viewer::data::load::RunSet;
use viewer::native::{derive_page, load_and_derive, Page};

/// Files in tests/hostile/ as (name, text as the browser's `fetch().text()` decodes it).
fn hostile_files() -> Vec<(String, String)> {
    let dir: PathBuf = root().join("tests").join("hostile");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap();
            (name, String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect();
    files.sort();
    files
}

/// CPU time this thread has used, user + system (`/proc/thread-self/stat`, in ticks of
/// 10 ms): the hang checks below use it, not wall time, so other work on the machine
/// does not move them.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// Runs `f`; fails if it used over a minute of CPU (a hang: these paths are linear and
/// take seconds at most, a quadratic one takes minutes). A deadline, not a timing claim.
fn within_a_minute<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let before = thread_cpu();
    let out = f();
    let used = thread_cpu() - before;
    eprintln!("{what}: {used:?} of CPU");
    assert!(
        used < Duration::from_secs(60),
        "{what}: {used:?} of CPU (a hang)"
    );
    out
}

/// Loads `text` as the page does, from `source`, with the hang check.
fn derive(source: &str, text: &str) -> Page {
    within_a_minute(source, || load_and_derive(&[(source, text)]))
}

#[test]
fn every_hostile_file_ends_in_an_error_naming_it_or_in_a_render() {
    let files = hostile_files();
    assert!(files.len() >= 30, "only {} hostile files", files.len());
    let (mut errors, mut renders) = (0, 0);
    for (name, text) in &files {
        let source = format!("hostile/{name}");
        let parsed = Evidence::from_json(text);
        let page = derive(&source, text);
        if name.starts_with("error-") {
            errors += 1;
            let Err(e) = parsed else {
                panic!("{name} parsed as valid evidence")
            };
            let reason = e.to_string();
            // A reason, and not an echo of a huge input (a 5,000-digit version, a
            // 20,001-digit count): several violations fit, an echo does not.
            assert!(
                !reason.is_empty() && reason.len() < 4000,
                "{name}: {reason}"
            );
            assert_eq!(page.runs, 0, "{name}");
            assert_eq!(page.failures, [format!("{source}: {reason}")], "{name}");
        } else {
            assert!(
                name.starts_with("render-"),
                "{name}: neither error- nor render-"
            );
            renders += 1;
            let ev = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(ev.violations().is_empty(), "{name}");
            assert!(page.failures.is_empty(), "{name}: {:?}", page.failures);
            assert_eq!(page.runs, 1, "{name}");
            // Every arm is a table row and a CSV line (the default filter shows all).
            assert_eq!(page.rows, ev.arms.len(), "{name}");
            assert_eq!(
                page.csv.matches("\r\n").count(),
                1 + ev.arms.len(),
                "{name}"
            );
            assert!(
                page.draw_errors.is_empty(),
                "{name}: {:?}",
                page.draw_errors
            );
            // The speedup chart and the CDF always, and one percentile panel per stack
            // with latencies (none for a run without them: the page says so in text).
            let stacks = {
                let mut s: Vec<_> = ev
                    .arms
                    .iter()
                    .filter(|a| a.latency_us.is_some())
                    .map(|a| (a.client_stack, a.server_stack))
                    .collect();
                s.sort();
                s.dedup();
                s.len()
            };
            assert!(page.charts >= 2 + stacks, "{name}: {} charts", page.charts);
            // The host name comes through as the text it is.
            assert!(
                page.texts.contains(&ev.environment.hostname),
                "{name}: the host name is not shown as text"
            );
        }
    }
    assert!(
        errors >= 20 && renders >= 5,
        "{errors} errors, {renders} renders"
    );
}

#[test]
fn markup_in_a_file_is_kept_as_text() {
    let text =
        std::fs::read_to_string(root().join("tests/hostile/render-markup-strings.json")).unwrap();
    let page = derive("markup.json", &text);
    let markup =
        r#"<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>"#;
    assert!(page.texts.iter().any(|t| t == markup), "host name as text");
    assert!(
        page.texts
            .iter()
            .any(|t| t == &format!("tls13-full-{markup}")),
        "arm id as text"
    );
}

#[test]
fn csv_cells_from_the_file_cannot_run_as_spreadsheet_formulas() {
    let text =
        std::fs::read_to_string(root().join("tests/hostile/render-formula-strings.json")).unwrap();
    let page = derive("formulas.json", &text);
    // Each file string as RFC 4180 writes it after a leading ' (written out here).
    for cell in [
        r#""'=HYPERLINK(""http://example.invalid/x"",""click"")""#,
        r#"'+cmd|' /C calc'!A0"#,
        r#"'-2+3+cmd|' /C calc'!A0"#,
        r#"'@SUM(1+1)*cmd|' /C calc'!A0"#,
    ] {
        assert!(page.csv.contains(cell), "no {cell} in\n{}", page.csv);
    }
    for line in page.csv.split("\r\n") {
        for bad in [",=", ",+", ",-2", ",@", "\"=", "\"+", "\"-", "\"@"] {
            assert!(!line.contains(bad), "{bad} in {line}");
        }
    }
}

/// The base run with `n` copies of its full TLS 1.3 arm and of its resumed arm, each
/// pair with its resume speedup and its TLS-over-TCP ratio. Built in memory (a file of
/// this many arms is past the viewer's 64 MB cap): arms × comparisons lookups would be
/// about n × 2n compares of 200-byte ids per derivation, minutes in all; linear ones
/// take seconds.
fn many_arm_pairs(n: usize) -> Evidence {
    let text =
        std::fs::read_to_string(root().join("tests/hostile/render-valid-base.json")).unwrap();
    let mut ev = Evidence::from_json(&text).unwrap();
    let (full, resumed) = (ev.arms[1].clone(), ev.arms[2].clone());
    let (speedup, over_tcp) = (ev.comparisons[0].clone(), ev.comparisons[1].clone());
    assert_eq!(
        (&speedup.baseline, &speedup.candidate, &over_tcp.candidate),
        (&full.id, &resumed.id, &full.id)
    );
    ev.arms.truncate(1);
    ev.comparisons.clear();
    // Ids of one length (112 bytes, under the 128-byte limit) that differ only at the
    // end: each compare reads the whole id.
    let prefix = "p".repeat(100);
    for i in 0..n {
        let (mut f, mut r) = (full.clone(), resumed.clone());
        f.id = format!("{prefix}-full-{i:06}");
        r.id = format!("{prefix}-resd-{i:06}");
        let mut c = speedup.clone();
        (c.baseline, c.candidate) = (f.id.clone(), r.id.clone());
        let mut t = over_tcp.clone();
        t.candidate = f.id.clone();
        ev.arms.extend([f, r]);
        ev.comparisons.extend([c, t]);
    }
    ev
}

#[test]
fn fifty_thousand_arms_validate_and_derive_without_a_hang() {
    let n = 25_000;
    let ev = many_arm_pairs(n);
    let page = within_a_minute("50,000 arms", || {
        assert_eq!(ev.violations(), []);
        let mut set = RunSet::default();
        set.add("many.json", ev);
        derive_page(&set, &ArmFilter::default(), Scale::Log)
    });
    assert_eq!((page.runs, page.rows), (1, 1 + 2 * n));
}
