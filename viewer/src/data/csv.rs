//! CSV of the table as shown (same rows, same order). Latencies in microseconds.

use super::findings::{data_rows, Finding, DATA_COLUMNS, DATA_NUMBERS};
use super::table::ArmRow;

/// Column names, units included.
pub const HEADER: [&str; 28] = [
    "run_id",
    "host",
    "arm",
    "stack",
    "client",
    "server",
    "protocol",
    "mode",
    "resumption",
    "cert",
    "kx_group",
    "rtt_ms",
    "p50_us",
    "p95_us",
    "p99_us",
    "p50_ci95_low_us",
    "p50_ci95_high_us",
    "attempted",
    "succeeded",
    "failed",
    "resumed_client",
    "resumed_server",
    "crypto_floor_us",
    "efficiency",
    "rate_per_wall_s",
    "rate_per_user_cpu_s",
    "no_result",
    "run_label",
];

/// RFC 4180 CSV with a header line and CRLF line ends.
pub fn to_csv(rows: &[ArmRow]) -> String {
    let mut out = String::new();
    push_line(&mut out, HEADER.iter().map(|h| h.to_string()));
    for r in rows {
        let num = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let ci = |i: usize| num(r.p50_ci.map(|c| c[i]));
        push_line(
            &mut out,
            [
                r.run_id.clone(),
                r.host.clone(),
                r.arm.clone(),
                r.stack.clone(),
                r.client.clone(),
                r.server.clone(),
                r.protocol.clone(),
                r.mode.clone(),
                r.resumption.clone(),
                r.cert.clone(),
                r.group.clone(),
                num(r.rtt_ms),
                num(r.p50),
                num(r.p95),
                num(r.p99),
                ci(0),
                ci(1),
                r.attempted.to_string(),
                r.succeeded.to_string(),
                r.failed.to_string(),
                r.resumed_client.map_or(String::new(), |n| n.to_string()),
                r.resumed_server.map_or(String::new(), |n| n.to_string()),
                num(r.crypto_floor),
                num(r.efficiency),
                num(r.rate.map(|r| r[0])),
                num(r.rate.map(|r| r[1])),
                r.no_result
                    .as_ref()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
                r.run.clone(),
            ]
            .into_iter(),
        );
    }
    out
}

/// Findings as data: one line per number a finding states ([`data_rows`]), with the
/// sentence it belongs to.
pub fn findings_csv(list: &[Finding]) -> String {
    let mut out = String::new();
    push_line(&mut out, DATA_COLUMNS.iter().map(|h| h.to_string()));
    for row in data_rows(list) {
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_field(&mut out, cell, !DATA_NUMBERS.contains(&i));
        }
        out.push_str("\r\n");
    }
    out
}

/// The columns that hold numbers this code wrote (rtt_ms to rate_per_user_cpu_s); every
/// other cell holds text from a file.
const NUMBERS: std::ops::Range<usize> = 11..26;

fn push_line(out: &mut String, cells: impl Iterator<Item = String>) {
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(out, &cell, !NUMBERS.contains(&i));
    }
    out.push_str("\r\n");
}

/// Appends `cell`, quoted when needed. A text cell that a spreadsheet would run as a
/// formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading
/// `'`; numbers are ours and stay numbers, negative ones too.
fn push_field(out: &mut String, cell: &str, text: bool) {
    let quoted = cell.contains([',', '"', '\n', '\r']);
    if quoted {
        out.push('"');
    }
    if text && cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        out.push('\'');
    }
    for c in cell.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    if quoted {
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::filter::ArmFilter;
    use crate::data::load::RunSet;
    use crate::data::table::arm_rows;
    use crate::data::testdata::sample;

    /// A text cell as the CSV writes it.
    fn field(cell: &str) -> String {
        let mut out = String::new();
        push_field(&mut out, cell, true);
        out
    }

    #[test]
    fn csv_has_a_header_and_one_line_per_row() {
        let mut set = RunSet::default();
        set.add("a", sample());
        let rows = arm_rows(&set, &ArmFilter::default());
        let csv = to_csv(&rows);
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert_eq!(lines.len(), 1 + rows.len());
        assert_eq!(lines[0], HEADER.join(","));
        assert_eq!(
            lines[2],
            "20261130T000000Z-sample-0000,sample-host,tls13-full-ecdsa-p256-x25519,rustls,rustls,rustls,\
             tls1.3,full,,ecdsa-p256,x25519,,400,450,450,390,450,4,4,0,0,0,,,,,,sample-host · 2026-11-30 00:00:00"
        );
    }

    #[test]
    fn rate_only_arms_have_their_rates_as_numbers() {
        let mut set = RunSet::default();
        set.add("a", crate::data::testdata::with_peers());
        let csv = to_csv(&arm_rows(&set, &ArmFilter::default()));
        let line = csv
            .split_terminator("\r\n")
            .find(|l| l.contains(",s_time-tls12-new-vs-s_server,"))
            .unwrap();
        let cells: Vec<&str> = line.split(',').collect();
        let col = |name: &str| cells[HEADER.iter().position(|h| *h == name).unwrap()];
        assert_eq!(
            (col("rate_per_wall_s"), col("rate_per_user_cpu_s")),
            ("100", "200")
        );
        assert_eq!(col("p50_us"), "");
    }

    #[test]
    fn findings_are_data_with_their_sentences() {
        let mut ev = crate::data::testdata::sample();
        ev.arms[2].error = Some("=1+1".into());
        let list = crate::data::findings::findings(&ev);
        let csv = findings_csv(&list);
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert_eq!(
            lines[0],
            "kind,arm,metric,value,ci_low,ci_high,unit,sentence"
        );
        // The sample's TLS 1.3 full arm: p50 400 µs (nearest rank of 390/400/410/450).
        let p50 = lines
            .iter()
            .find(|l| l.starts_with("full handshake,tls13-full-ecdsa-p256-x25519,p50,400,"))
            .unwrap_or_else(|| panic!("{csv}"));
        assert_eq!(
            *p50,
            "full handshake,tls13-full-ecdsa-p256-x25519,p50,400,390,450,µs,\
             A full handshake (rustls · x25519) takes at the median: TLS 1.3 with ecdsa-p256 400 µs [390 µs – 450 µs]."
        );
        // A caught arm: its count as a number, the error's text in the sentence.
        assert!(
            csv.contains("\r\ncaught by the tool,tls13-resumed-ticket-ecdsa-p256-x25519,connections resumed,4,,,connections,"),
            "{csv}"
        );
    }

    #[test]
    fn cells_are_quoted_and_formulas_defused() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\"\nbye"), "\"say \"\"hi\"\"\nbye\"");
        assert_eq!(field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(field("@x,y"), "\"'@x,y\"");
        let mut number = String::new();
        push_field(&mut number, "-12.5", false);
        assert_eq!(number, "-12.5");
        assert_eq!((HEADER[11], HEADER[25]), ("rtt_ms", "rate_per_user_cpu_s"));
    }

    #[test]
    fn text_starting_with_a_minus_or_plus_is_defused() {
        assert_eq!(field("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
        assert_eq!(field("-rtt5ms"), "'-rtt5ms");
        assert_eq!(field("-"), "'-");
        assert_eq!(field("-1.2.3"), "'-1.2.3");
        assert_eq!(field("-1e5"), "'-1e5");
        assert_eq!(field("+1"), "'+1");
        assert_eq!(field("\t=1"), "'\t=1");
    }
}
