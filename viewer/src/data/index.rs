//! `results/index.json`: the list of evidence files a site (or a collector run) holds.
//!
//! Same format the collector writes next to its evidence:
//! `{"runs": [{"file": "<run-id>.json", "run_id": "...", "host": "...", "started_at": "...",
//! "complete": true}]}`, with `file` relative to the index.

pub use shared::{IndexEntry, ResultsIndex};

/// Every run in brief beside the index ([`shared::History`], written by `cargo xtask
/// site`); run files and `summaries/<file>` are relative to it.
pub const HISTORY_URL: &str = "results/history.json";

/// Parses an index (for `cargo xtask site`; the page starts from the history); the error
/// says where the text stops being a run index.
pub fn parse_index(text: &str) -> Result<ResultsIndex, String> {
    shared::objects::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message =
            &message[..shared::search::find(&message, " at line ").unwrap_or(message.len())];
        format!(
            "not a run index (line {}, column {}): {message}",
            e.line(),
            e.column()
        )
    })
}

/// Serializes an index as pretty JSON (what `cargo xtask site` writes).
pub fn index_json(index: &ResultsIndex) -> String {
    serde_json::to_string_pretty(index).unwrap_or_else(|_| "{\"runs\": []}".into())
}

/// Checks that `url` is a relative reference that stays on the site (no scheme, no
/// host, no absolute path), so a site works from any host and sub-path, and returns it as
/// the browser will read it: the URL parser drops leading and trailing controls and spaces
/// and every tab and newline (so ` //host` and `/<tab>/host` name another host), and
/// reads `\` as `/`. The check is made on that form, and that form is what is fetched.
pub fn check_relative(url: &str) -> Result<String, String> {
    let clean: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .map(|c| if c == '\\' { '/' } else { c })
        .collect();
    let bad = if clean.is_empty() {
        Some("it is empty")
    } else if clean.starts_with('/') {
        Some("it is an absolute path; use a path relative to the page")
    } else if clean
        .split(['/', '?', '#'])
        .next()
        .is_some_and(|first| first.contains(':'))
    {
        Some("it names a scheme or host; only relative URLs are loaded")
    } else {
        None
    };
    match bad {
        Some(why) => Err(format!("`{url}` is not a relative URL: {why}")),
        None => Ok(clean),
    }
}

/// Where a site keeps each arm's raw samples ([`shared::ArmSamples`]), beside the
/// history: `raw/<run>/<arm index>.json.gz`, `<run>` being the run's file name without
/// `.json.gz` (the CDF fetches the arms it draws, not a whole evidence file).
pub const RAW: &str = "raw";

/// The folder, relative to the history, of the raw samples of the run stored as `file`.
pub fn raw_dir(file: &str) -> String {
    let stem = file.strip_suffix(".gz").unwrap_or(file);
    let stem = stem.strip_suffix(".json").unwrap_or(stem);
    format!("{RAW}/{stem}/")
}

/// The name, in its run's [`raw_dir`], of the raw samples of the arm at `index`.
pub fn raw_name(index: usize) -> String {
    format!("{index}.json.gz")
}

/// The URL of `file` listed in the index at `index_url` (both relative to the page).
pub fn entry_url(index_url: &str, file: &str) -> Result<String, String> {
    let file = check_relative(file)?;
    let dir = match index_url.rfind('/') {
        Some(i) => &index_url[..=i],
        None => "",
    };
    Ok(format!("{dir}{file}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_collector_index_format() {
        let text = r#"{"runs": [{"file": "a.json", "run_id": "a", "host": "h",
            "started_at": "2026-11-30T00:00:00Z", "complete": true}, {"file": "b.json"}]}"#;
        let index = parse_index(text).unwrap();
        assert_eq!(index.runs.len(), 2);
        assert_eq!(index.runs[0].host, "h");
        assert!(index.runs[0].complete);
        assert_eq!(
            (index.runs[1].host.as_str(), index.runs[1].complete),
            ("", false)
        );
        assert_eq!(parse_index(&index_json(&index)).unwrap(), index);
    }

    #[test]
    fn index_errors_name_line_and_column() {
        let err = parse_index("{\"runs\": [\n  {\"nofile\": 1}]}").unwrap_err();
        assert!(err.starts_with("not a run index (line 2"), "{err}");
        assert!(err.contains("missing field `file`"), "{err}");
        let err = parse_index("{\"runs\": []} trailing").unwrap_err();
        assert!(err.contains("trailing"), "{err}");
    }

    #[test]
    fn an_arms_raw_samples_are_under_the_runs_name_and_the_arms_index() {
        let at = |file: &str, i| format!("{}{}", raw_dir(file), raw_name(i));
        assert_eq!(
            at("20261202T1Z-h-1.json.gz", 3),
            "raw/20261202T1Z-h-1/3.json.gz"
        );
        assert_eq!(at("a.json", 0), "raw/a/0.json.gz");
        assert_eq!(at("b", 12), "raw/b/12.json.gz");
    }

    #[test]
    fn entry_urls_are_relative_to_the_index() {
        assert_eq!(
            entry_url("results/index.json", "r1.json").unwrap(),
            "results/r1.json"
        );
        assert_eq!(entry_url("index.json", "r1.json").unwrap(), "r1.json");
        assert_eq!(
            entry_url("a/b/index.json", "c/d.json").unwrap(),
            "a/b/c/d.json"
        );
    }

    #[test]
    fn only_relative_urls_are_accepted() {
        for bad in [
            "",
            "/etc/passwd",
            "http://example.invalid/x.json",
            "javascript:alert(1)",
            "//host/x.json",
            // What `?run=%20//other.example/e.json` and its tab and newline variants
            // decode to: the browser drops the blanks and fetches another host.
            " //other.example/e.json",
            "\t//other.example/e.json",
            "\n\r//other.example/e.json",
            "/\t/other.example/e.json",
            "\u{0}//other.example/e.json",
            " http://other.example/e.json",
            "ht\ttp://other.example/e.json",
            "\\\\other.example\\e.json",
            "\\/other.example/e.json",
            "  \t ",
        ] {
            assert!(check_relative(bad).is_err(), "{bad:?} accepted");
        }
        for (good, fetched) in [
            ("x.json", "x.json"),
            ("results/x.json", "results/x.json"),
            ("../x.json", "../x.json"),
            ("x.json?v=1:2", "x.json?v=1:2"),
            (" results/x.json\t", "results/x.json"),
            ("results\\x.json", "results/x.json"),
        ] {
            assert_eq!(check_relative(good).as_deref(), Ok(fetched), "{good:?}");
        }
        assert_eq!(
            check_relative(" //h/e.json").unwrap_err(),
            "` //h/e.json` is not a relative URL: it is an absolute path; use a path relative to the page"
        );
    }
}
