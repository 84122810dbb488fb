//! Reading evidence: JSON syntax, schema version, field types, then invariants.
//! Every error names where in the file it is.

use std::fmt;

mod arm;
mod bounds;
mod chunks;
mod instructions;
mod locate;
mod open_loop;
mod phases;
#[cfg(not(target_arch = "wasm32"))]
mod placement;
mod strings;
mod wire;

use crate::ids::ArmsById;
use crate::schema::{ComparisonKind, Evidence, Mode, SCHEMA_VERSION};
pub use arm::ArmKind;
pub use bounds::{MAX_RATE_PER_S, MAX_RATIO, MAX_RTT_MS, MAX_SECONDS, MAX_US};
pub use strings::{MAX_HOST_NAME, MAX_ID, MAX_TIME, MAX_VERSION};

/// Why a file is not usable evidence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvidenceError {
    /// Not JSON at all.
    #[error("not valid JSON at line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// JSON, but not a Handshake Lab evidence file.
    #[error("not a Handshake Lab evidence file: {0}")]
    Foreign(String),
    /// Evidence whose schema version is not a version number (0, a fraction, a string).
    #[error("unknown schema version {found} (this build reads versions 1 to {supported})")]
    UnknownVersion { found: String, supported: u32 },
    /// Evidence of a schema version after the newest this build knows: a newer collector
    /// wrote it.
    #[error(
        "schema version {found} is newer than this build reads (versions 1 to {supported}): \
         read it with a newer collector or viewer"
    )]
    NewerVersion { found: String, supported: u32 },
    /// A field is missing or has the wrong type.
    #[error("at `{path}`: {message}")]
    Field { path: String, message: String },
    /// The fields parse but contradict each other.
    #[error("{}", .0.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; "))]
    Invariant(Vec<Violation>),
}

/// One broken invariant, with the JSON path it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub path: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.message)
    }
}

/// Whether `text` (a JSON value) is a schema version this build reads: 1 (floats in the
/// per-connection arrays) to [`SCHEMA_VERSION`] (those arrays packed, see
/// [`crate::packed`]); the readers take both forms, so one type reads them all.
fn known_version(text: &str) -> bool {
    (1..=SCHEMA_VERSION).any(|v| text == v.to_string())
}

impl Evidence {
    /// Parses and validates an evidence file.
    ///
    /// Guarantees on `Ok`: the schema version is 1 to [`SCHEMA_VERSION`], every required field
    /// is present with the right type, and [`Evidence::violations`] is empty.
    pub fn from_json(text: &str) -> Result<Evidence, EvidenceError> {
        // A leading UTF-8 byte-order mark is not part of the text (browsers drop it when
        // they decode a fetched file, so the page and this agree).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // First only what tells whether the file is ours and of which version (this
        // also checks the JSON syntax), then the typed read straight from the text: no
        // intermediate `serde_json::Value`, which keeps the viewer's wasm small.
        let syntax = |e: serde_json::Error| EvidenceError::Syntax {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        };
        let kind = top_level_kind(text);
        if kind != "an object" {
            serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(syntax)?;
            return Err(EvidenceError::Foreign(format!(
                "the top level is {kind}, not an object"
            )));
        }
        let probe: Probe = serde_json::from_str(text).map_err(syntax)?;
        match probe.schema_version {
            None => {
                return Err(EvidenceError::Foreign(
                    "it has no `schema_version` field".into(),
                ))
            }
            Some(v) if known_version(v.get().trim()) => {}
            Some(v) => {
                // Quoted at most 40 characters long: the value may be any JSON, any size.
                let whole = v.get().trim();
                let mut found: String = whole.chars().take(40).collect();
                if found.len() < whole.len() {
                    found.push('…');
                }
                let newer = whole.bytes().all(|b| b.is_ascii_digit()) && !whole.starts_with('0');
                return Err(if newer {
                    EvidenceError::NewerVersion {
                        found,
                        supported: SCHEMA_VERSION,
                    }
                } else {
                    EvidenceError::UnknownVersion {
                        found,
                        supported: SCHEMA_VERSION,
                    }
                });
            }
        }
        let evidence: Evidence =
            crate::objects::from_str(text).map_err(|e| EvidenceError::Field {
                path: locate::path_at(text, e.line(), e.column()),
                message: strip_position(&e.to_string()),
            })?;
        let violations = evidence.violations();
        if violations.is_empty() {
            Ok(evidence)
        } else {
            Err(EvidenceError::Invariant(violations))
        }
    }

    /// Serializes as JSON (what the collector writes): objects one field a line,
    /// arrays of numbers on one line (see [`crate::json`]).
    pub fn to_json(&self) -> String {
        crate::json::to_string(self).expect("evidence serializes: no maps with non-string keys")
    }

    /// Every invariant the evidence breaks; empty when it is consistent.
    // `!(a <= b)` on purpose: it is also true when either side is NaN.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        let mut bad = |path: String, message: String| out.push(Violation { path, message });
        // Each id's first arm: lookups by id stay linear in arms + comparisons.
        let by_id = ArmsById::new(&self.arms);
        for (i, arm) in self.arms.iter().enumerate() {
            let at = |field: &str| format!("arms[{i}].{field}");
            if by_id.position(&arm.id) != Some(i) {
                bad(
                    at("id"),
                    format!("arm id `{}` appears twice", strings::quoted(&arm.id)),
                );
            }
        }
        for (i, arm) in self.arms.iter().enumerate() {
            let at = |field: &str| format!("arms[{i}].{field}");
            if arm.succeeded.checked_add(arm.failed) != Some(arm.attempted) {
                bad(
                    at("attempted"),
                    format!(
                        "succeeded ({}) + failed ({}) != attempted ({})",
                        arm.succeeded, arm.failed, arm.attempted
                    ),
                );
            }
            for (side, n) in [
                ("client", arm.resumed.client),
                ("server", arm.resumed.server),
            ] {
                if n > arm.succeeded {
                    bad(
                        at(&format!("resumed.{side}")),
                        format!("{n} resumed > {} succeeded", arm.succeeded),
                    );
                }
            }
            if let Some(ed) = arm.early_data {
                if ed.accepted > ed.offered || ed.offered > arm.succeeded {
                    bad(
                        at("early_data"),
                        format!(
                            "accepted ({}) ≤ offered ({}) ≤ succeeded ({}) does not hold",
                            ed.accepted, ed.offered, arm.succeeded
                        ),
                    );
                }
            }
            if (arm.mode == Mode::Resumed) != arm.resumption.is_some() {
                bad(
                    at("resumption"),
                    "a resumed arm names its resumption kind, and only a resumed arm does".into(),
                );
            }
            if let Some(c) = &arm.capacity {
                let in_window: f64 = c.per_second.iter().sum();
                if !(in_window + c.after_window as f64 <= arm.succeeded as f64) {
                    bad(
                        at("capacity.per_second"),
                        format!(
                            "{in_window} handshakes in the window + {} after it > {} succeeded",
                            c.after_window, arm.succeeded
                        ),
                    );
                }
            }
            if arm.known_pitfall.is_some() && arm.error.is_none() {
                bad(
                    at("known_pitfall"),
                    "an arm that reproduces a known pitfall must say what went wrong in `error`"
                        .into(),
                );
            }
            arm::check(arm, self.summary, &at, &mut bad);
            // The viewer's wasm build does not read `keepalive` (nor pay for its rules).
            #[cfg(not(target_arch = "wasm32"))]
            arm::check_keepalive(arm, &at, &mut bad);
            phases::check(arm, self.summary, &at, &mut bad);
            #[cfg(not(target_arch = "wasm32"))]
            placement::check(arm, self.summary, &at, &mut bad);
            open_loop::check(arm, &at, &mut bad);
            wire::check(arm, self.summary, &at, &mut bad);
            instructions::check(arm, &at, &mut bad);
            bounds::check_arm(arm, &at, &mut bad);
        }
        bounds::check_rest(self, &mut bad);
        instructions::check_run(self, &mut bad);
        strings::check_all(self, &mut bad);
        chunks::check_conditions(self, &mut bad);
        phases::check_control(&self.arms, &by_id, &self.comparisons, &mut bad);
        #[cfg(not(target_arch = "wasm32"))]
        for (i, p) in self.primitives.iter().enumerate() {
            if let (Some(b), Some(a)) = (p.median_before_us, p.median_after_us) {
                // The median of two passes pooled lies between the passes' medians.
                if !(b.min(a) <= p.median_us && p.median_us <= b.max(a)) {
                    bad(
                        format!("primitives[{i}].median_us"),
                        format!(
                            "{} is not between the passes' medians {b} and {a}",
                            p.median_us
                        ),
                    );
                }
            }
        }
        for (i, c) in self.comparisons.iter().enumerate() {
            bounds::check_comparison(i, c, &mut bad);
            for (field, id) in [("baseline", &c.baseline), ("candidate", &c.candidate)] {
                if by_id.position(id).is_none() {
                    bad(
                        format!("comparisons[{i}].{field}"),
                        format!(
                            "names arm `{}`, which is not in `arms`",
                            strings::quoted(id)
                        ),
                    );
                }
            }
            if !(c.p50_ratio.is_finite() && c.p50_ratio > 0.0) {
                bad(
                    format!("comparisons[{i}].p50_ratio"),
                    "must be a finite, positive number".into(),
                );
            }
            let rate_kind = c.kind == ComparisonKind::ResumeRateSpeedup;
            if rate_kind != c.basis.is_some() {
                bad(
                    format!("comparisons[{i}].basis"),
                    "a rate comparison names its basis (per_real_s or per_user_s), and only a rate comparison does".into(),
                );
            }
            for (field, id) in [("baseline", &c.baseline), ("candidate", &c.candidate)] {
                if let Some(arm) = by_id.get(id) {
                    if arm.error.is_some() || arm.skipped.is_some() {
                        bad(
                            format!("comparisons[{i}].{field}"),
                            format!("arm `{}` has an error or was skipped: no ratio may be derived from it", strings::quoted(id)),
                        );
                    } else if rate_kind != (arm.kind() == ArmKind::Rate) {
                        bad(
                            format!("comparisons[{i}].{field}"),
                            format!(
                                "arm `{}` is not a {} arm",
                                strings::quoted(id),
                                if rate_kind { "rate" } else { "latency" }
                            ),
                        );
                    }
                }
            }
            if c.kind == ComparisonKind::ZeroRttSpeedup {
                let arm = |id: &String| by_id.get(id);
                if arm(&c.candidate).is_some_and(|a| a.early_data.is_none()) {
                    bad(
                        format!("comparisons[{i}].candidate"),
                        format!("a 0-RTT speedup's candidate `{}` has no early-data counts: it is not a 0-RTT arm", strings::quoted(&c.candidate)),
                    );
                }
                if arm(&c.baseline).is_some_and(|a| a.mode != Mode::Full) {
                    bad(
                        format!("comparisons[{i}].baseline"),
                        format!(
                            "a 0-RTT speedup's baseline `{}` is not a full arm",
                            strings::quoted(&c.baseline)
                        ),
                    );
                }
            }
            match (c.ci95, &c.ci_unavailable) {
                (Some([lo, hi]), None) if !(lo <= hi) => bad(
                    format!("comparisons[{i}].ci95"),
                    format!("lower bound {lo} above upper bound {hi}"),
                ),
                (Some(_), None) => {}
                (None, Some(why)) if !why.trim().is_empty() => {}
                _ => bad(
                    format!("comparisons[{i}].ci_unavailable"),
                    "a comparison has either a ci95 or a reason why not (ci_unavailable), never both or neither".into(),
                ),
            }
        }
        out
    }
}

/// What a JSON text's top-level value is, from its first character (the text is
/// known to be valid JSON here).
fn top_level_kind(text: &str) -> &'static str {
    match text.trim_start().chars().next() {
        Some('[') => "an array",
        Some('"') => "a string",
        Some('t' | 'f') => "a boolean",
        Some('n') => "null",
        Some('{') => "an object",
        _ => "a number",
    }
}

/// The fields read before the typed read: whether the file is ours, and its version.
#[derive(serde::Deserialize)]
struct Probe {
    schema_version: Option<Box<serde_json::value::RawValue>>,
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_position(message: &str) -> String {
    match crate::search::rfind(message, " at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
