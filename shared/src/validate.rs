//! Reading evidence: JSON syntax, schema version, field types, then invariants.
//! Every error names where in the file it is.

use std::collections::HashSet;
use std::fmt;

use crate::schema::{Evidence, Mode, SCHEMA_VERSION};

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
    /// Evidence of a schema version this build does not know.
    #[error("unknown schema version {found} (this build reads version {supported})")]
    UnknownVersion { found: String, supported: u32 },
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

impl Evidence {
    /// Parses and validates an evidence file.
    ///
    /// Guarantees on `Ok`: the schema version is [`SCHEMA_VERSION`], every required field
    /// is present with the right type, and [`Evidence::violations`] is empty.
    pub fn from_json(text: &str) -> Result<Evidence, EvidenceError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| EvidenceError::Syntax {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            })?;
        let object = value.as_object().ok_or_else(|| {
            EvidenceError::Foreign(format!(
                "the top level is {}, not an object",
                json_kind(&value)
            ))
        })?;
        match object.get("schema_version") {
            None => {
                return Err(EvidenceError::Foreign(
                    "it has no `schema_version` field".into(),
                ))
            }
            Some(v) if v.as_u64() == Some(u64::from(SCHEMA_VERSION)) => {}
            Some(v) => {
                return Err(EvidenceError::UnknownVersion {
                    found: v.to_string(),
                    supported: SCHEMA_VERSION,
                })
            }
        }
        let evidence: Evidence =
            serde_path_to_error::deserialize(value).map_err(|e| EvidenceError::Field {
                path: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        let violations = evidence.violations();
        if violations.is_empty() {
            Ok(evidence)
        } else {
            Err(EvidenceError::Invariant(violations))
        }
    }

    /// Serializes as pretty JSON (what the collector writes).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .expect("evidence serializes: no maps with non-string keys")
    }

    /// Every invariant the evidence breaks; empty when it is consistent.
    // `!(a <= b)` on purpose: it is also true when either side is NaN.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        let mut bad = |path: String, message: String| out.push(Violation { path, message });
        let mut ids = HashSet::new();
        for (i, arm) in self.arms.iter().enumerate() {
            let at = |field: &str| format!("arms[{i}].{field}");
            if !ids.insert(arm.id.as_str()) {
                bad(at("id"), format!("arm id `{}` appears twice", arm.id));
            }
            if arm.succeeded + arm.failed != arm.attempted {
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
            if arm.samples_us.len() as u64 != arm.succeeded {
                bad(
                    at("samples_us"),
                    format!(
                        "{} samples but {} succeeded connections",
                        arm.samples_us.len(),
                        arm.succeeded
                    ),
                );
            }
            if let Some(j) = arm
                .samples_us
                .iter()
                .position(|s| !(s.is_finite() && *s >= 0.0))
            {
                bad(
                    at(&format!("samples_us[{j}]")),
                    "a sample must be a finite, non-negative number".into(),
                );
            }
            if (arm.mode == Mode::Resumed) != arm.resumption.is_some() {
                bad(
                    at("resumption"),
                    "a resumed arm names its resumption kind, and only a resumed arm does".into(),
                );
            }
            match (&arm.latency_us, arm.succeeded) {
                (None, 0) => {}
                (None, _) => bad(
                    at("latency_us"),
                    "missing although connections succeeded".into(),
                ),
                (Some(_), 0) => bad(
                    at("latency_us"),
                    "present although no connection succeeded".into(),
                ),
                (Some(l), _) => {
                    let order = [
                        ("min", l.min),
                        ("p50", l.p50),
                        ("p95", l.p95),
                        ("p99", l.p99),
                        ("max", l.max),
                    ];
                    for pair in order.windows(2) {
                        let ((a, x), (b, y)) = (pair[0], pair[1]);
                        if !(x <= y) {
                            bad(
                                at(&format!("latency_us.{b}")),
                                format!("{a} ({x}) must not exceed {b} ({y})"),
                            );
                        }
                    }
                    if let Some([lo, hi]) = arm.p50_ci95_us {
                        if !(lo <= l.p50 && l.p50 <= hi) {
                            bad(
                                at("p50_ci95_us"),
                                format!("[{lo}, {hi}] does not contain p50 ({})", l.p50),
                            );
                        }
                    }
                }
            }
        }
        for (i, c) in self.comparisons.iter().enumerate() {
            for (field, id) in [("baseline", &c.baseline), ("candidate", &c.candidate)] {
                if !ids.contains(id.as_str()) {
                    bad(
                        format!("comparisons[{i}].{field}"),
                        format!("names arm `{id}`, which is not in `arms`"),
                    );
                }
            }
            if !(c.p50_ratio.is_finite() && c.p50_ratio > 0.0) {
                bad(
                    format!("comparisons[{i}].p50_ratio"),
                    "must be a finite, positive number".into(),
                );
            }
            if !(c.ci95[0] <= c.ci95[1]) {
                bad(
                    format!("comparisons[{i}].ci95"),
                    format!("lower bound {} above upper bound {}", c.ci95[0], c.ci95[1]),
                );
            }
        }
        out
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}
