//! Markdown for taking results away (pasted into an issue, a PR or notes), in the way
//! hyperfine's `--export-markdown` writes its table: a pipe table, numbers right-aligned.
//! Text from evidence files is escaped so it stays one cell and one line and renders as
//! text, not markup.

use super::findings::{data_rows, Finding, DATA_COLUMNS};
use super::format::{fmt_ci_us, fmt_opt_us};
use super::table::{ArmRow, SortKey};

/// `s` as inline Markdown text: `\`, `|`, `` ` ``, `*`, `_`, `[`, `]`, `<`, `>` and `#`
/// escaped, line breaks and tabs as spaces.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn push_row(out: &mut String, cells: &[String]) {
    out.push('|');
    for c in cells {
        out.push(' ');
        out.push_str(&escape(c));
        out.push_str(" |");
    }
    out.push('\n');
}

/// The table of every arm as shown on the page (same columns, rows and formatting).
pub fn table_markdown(rows: &[ArmRow]) -> String {
    let mut out = String::new();
    let head: Vec<String> = SortKey::ALL.iter().map(|k| k.header().into()).collect();
    push_row(&mut out, &head);
    out.push('|');
    for (i, _) in SortKey::ALL.iter().enumerate() {
        // Text columns left, numbers (from p50 on) right.
        out.push_str(if i < 6 { ":---|" } else { "---:|" });
    }
    out.push('\n');
    for r in rows {
        let (p50, ci, p95, p99) = match &r.no_result {
            Some(why) => (why.to_string(), String::new(), String::new(), String::new()),
            None => (
                fmt_opt_us(r.p50),
                fmt_ci_us(r.p50_ci),
                fmt_opt_us(r.p95),
                fmt_opt_us(r.p99),
            ),
        };
        push_row(
            &mut out,
            &[
                r.run.clone(),
                r.arm.clone(),
                r.protocol.clone(),
                r.mode.clone(),
                r.cert.clone(),
                r.group.clone(),
                p50,
                ci,
                p95,
                p99,
                r.efficiency_text(),
                r.resumed_text(),
                format!("{} of {}", r.failed, r.attempted),
            ],
        );
    }
    out
}

/// Findings as data: the sentences as a list under a heading, then a pipe table of the
/// numbers they state ([`data_rows`]: kind, arm, metric, value, CI, unit, sentence).
pub fn findings_markdown(list: &[Finding], conditions: &str) -> String {
    let mut out = String::from("## Findings\n\n");
    if !conditions.is_empty() {
        out.push_str("> ");
        out.push_str(&escape(conditions));
        out.push_str("\n\n");
    }
    for f in list {
        out.push_str("- ");
        out.push_str(&escape(&f.text));
        out.push('\n');
    }
    let rows = data_rows(list);
    if rows.iter().any(|r| !r[3].is_empty()) {
        out.push_str("\n| ");
        out.push_str(&DATA_COLUMNS.join(" | "));
        out.push_str(" |\n|");
        out.push_str(&":---|".repeat(DATA_COLUMNS.len()));
        out.push('\n');
        for r in rows.iter().filter(|r| !r[3].is_empty()) {
            out.push('|');
            for cell in r {
                out.push(' ');
                out.push_str(&escape(cell));
                out.push_str(" |");
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::filter::ArmFilter;
    use crate::data::load::RunSet;
    use crate::data::table::arm_rows;
    use crate::data::testdata::sample;

    #[test]
    fn the_table_is_a_pipe_table_with_one_line_per_row() {
        let mut ev = sample();
        ev.environment.hostname = "box|a\nb".into();
        ev.arms[2].error = Some("did not resume: <b>0 of 4</b> | see `notes`".into());
        let mut set = RunSet::default();
        set.add("a", ev);
        let rows = arm_rows(&set, &ArmFilter::default());
        let md = table_markdown(&rows);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 2 + rows.len(), "{md}");
        assert_eq!(
            lines[0],
            "| run | arm | protocol | mode | cert | group | p50 | p50 95% CI | p95 | p99 \
             | efficiency (floor / p50) | resumed (client/server) | failed of attempted |"
        );
        assert_eq!(
            lines[1],
            "|:---|:---|:---|:---|:---|:---|---:|---:|---:|---:|---:|---:|---:|"
        );
        // The sample's full handshake: 390/400/410/450 µs, 4 of 4 succeeded.
        assert_eq!(
            lines[3],
            "| box\\|a b · 2026-11-30 00:00:00 | tls13-full-ecdsa-p256-x25519 | tls1.3 | full \
             | ecdsa-p256 | x25519 | 400 µs | \\[390 µs – 450 µs\\] | 450 µs | 450 µs | – \
             | 0/0 | 0 of 4 |"
        );
        // An error stays in its cell, as text: every row has the header's 14 pipes.
        assert!(lines[4].contains("did not resume: \\<b\\>0 of 4\\</b\\> \\| see \\`notes\\`"));
        for l in &lines {
            let pipes = l.len() - l.replace('|', "").len() - l.matches("\\|").count();
            assert_eq!(pipes, 14, "{l}");
        }
    }

    #[test]
    fn findings_are_a_list_then_a_table_of_their_numbers() {
        let mut list = crate::data::findings::findings(&sample());
        list[0].text = "*not* bold\nnor two lines".into();
        let md = findings_markdown(&list, "");
        assert!(
            md.starts_with("## Findings\n\n- \\*not\\* bold nor two lines\n"),
            "{md}"
        );
        assert!(
            md.contains(
                "\n| kind | arm | metric | value | ci_low | ci_high | unit | sentence |\n|:---|"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| full handshake | tls13-full-ecdsa-p256-x25519 | p50 | 400 | 390 | 450 | µs |"
            ),
            "{md}"
        );
        assert_eq!(findings_markdown(&[], ""), "## Findings\n\n");
        assert_eq!(
            findings_markdown(&[], "Run conditions: noisy | 3%"),
            "## Findings\n\n> Run conditions: noisy \\| 3%\n\n"
        );
    }
}
