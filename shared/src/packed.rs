//! The packed form of the per-connection arrays (schema version 2): `samples_us`,
//! `tracing.samples_us` and the phases' four row arrays, each one JSON string.
//!
//! Measured on a default run (139 arms, 61 with phases, 250 traced connections each):
//! the rows were 2.34 MB of its 3.28 MB as floats with one decimal. As JSON integers in
//! 0.1 µs they were 1.95 MB; columns instead of rows 1.87 MB; each moment as the step
//! from the previous moment of its row, then each column as the step from the row above,
//! 1.05 MB (1.40 MB with the `, ` the text form puts between array items) — the file
//! would still be about 1.9 MB. The same integers as zigzag varints in base64 digits
//! ([`codec`]) took 0.72 MB, which brings the run under 1.5 MB; so the arrays are packed, and every value
//! still comes back exactly (the writer falls back to plain arrays for any array with a
//! value the packing cannot carry exactly, and readers take both forms, which is also
//! how version-1 files still load).
//!
//! - **Samples** (`samples_us`): whole nanoseconds (the collector keeps µs with three
//!   decimals), each as the step from the previous sample (the first from 0).
//! - **Rows** (`phases.*_us`): whole tenths of a µs (the phases keep one decimal). First
//!   the row lengths, run-length coded: the number of runs, then per run (rows, length).
//!   Then the values column by column (moment 0 of every row that has it, then moment 1,
//!   …), each moment taken as its step from the previous moment of its row (moment 0 as
//!   it is) and written as the difference from the same column's value in the row above
//!   (the first row's as it is).
//!
//! Both are zigzag varints in base64 digits ([`codec`]). Empty arrays stay `[]`.

mod codec;

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serialize, Serializer};

use codec::{put, Reader};

/// `x * scale` as an integer, when that integer divided by `scale` gives `x` back exactly
/// and stays within the integers an f64 holds exactly.
fn whole(x: f64, scale: f64) -> Option<i64> {
    let n = (x * scale).round();
    (n.abs() <= 9_007_199_254_740_992.0 && n / scale == x).then_some(n as i64)
}

/// Samples in µs as packed text; None when one is not a whole number of ns.
pub fn pack_samples(samples: &[f64]) -> Option<String> {
    let mut out = String::with_capacity(samples.len() * 4);
    let mut prev = 0i64;
    for &x in samples {
        let n = whole(x, 1000.0)?;
        put(&mut out, n - prev);
        prev = n;
    }
    Some(out)
}

/// The samples in µs that [`pack_samples`] packed.
pub fn unpack_samples(text: &str) -> Result<Vec<f64>, String> {
    let mut r = Reader::new(text);
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut prev = 0i64;
    while r.left() > 0 {
        prev = prev.checked_add(r.next()?).ok_or("a sample over 64 bits")?;
        out.push(prev as f64 / 1000.0);
    }
    Ok(out)
}

/// Rows of µs with one decimal as packed text; None when a value is not a whole number of
/// tenths, or a row is empty.
pub fn pack_rows(rows: &[Vec<f64>]) -> Option<String> {
    let mut steps = Vec::with_capacity(rows.len());
    for row in rows {
        let mut prev = 0i64;
        let mut s = Vec::with_capacity(row.len());
        for &x in row {
            let n = whole(x, 10.0)?;
            s.push(n - prev);
            prev = n;
        }
        if s.is_empty() {
            return None;
        }
        steps.push(s);
    }
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for s in &steps {
        match runs.last_mut() {
            Some((count, len)) if *len == s.len() => *count += 1,
            _ => runs.push((1, s.len())),
        }
    }
    let mut out = String::new();
    put(&mut out, runs.len() as i64);
    for &(count, len) in &runs {
        put(&mut out, count as i64);
        put(&mut out, len as i64);
    }
    let width = steps.iter().map(Vec::len).max().unwrap_or(0);
    for j in 0..width {
        let mut above = 0i64;
        for s in steps.iter().filter_map(|s| s.get(j)) {
            put(&mut out, s - above);
            above = *s;
        }
    }
    Some(out)
}

/// The rows that [`pack_rows`] packed.
pub fn unpack_rows(text: &str) -> Result<Vec<Vec<f64>>, String> {
    let mut r = Reader::new(text);
    let runs = r.count()?;
    if runs > r.left() {
        return Err(format!(
            "{runs} runs of row lengths in {} digits",
            text.len()
        ));
    }
    let mut lens = Vec::new();
    let (mut rows, mut values) = (0usize, 0usize);
    for _ in 0..runs {
        let (count, len) = (r.count()?, r.count()?);
        rows = rows.saturating_add(count);
        values = values.saturating_add(count.saturating_mul(len));
        // Every row has a value, and every value takes a digit at least.
        if len == 0 || rows > r.left() || values > r.left() {
            return Err(format!(
                "row lengths for more values than the {} digits hold",
                text.len()
            ));
        }
        lens.extend(std::iter::repeat_n(len, count));
    }
    let mut steps: Vec<Vec<i64>> = lens.iter().map(|&l| Vec::with_capacity(l)).collect();
    let width = lens.iter().copied().max().unwrap_or(0);
    for j in 0..width {
        let mut above = 0i64;
        for (i, s) in steps.iter_mut().enumerate() {
            if lens[i] > j {
                above = above.checked_add(r.next()?).ok_or("a value over 64 bits")?;
                s.push(above);
            }
        }
    }
    if r.left() > 0 {
        return Err(format!("{} digits after the last value", r.left()));
    }
    steps
        .into_iter()
        .map(|s| {
            let mut at = 0i64;
            s.into_iter()
                .map(|d| {
                    at = at.checked_add(d).ok_or("a value over 64 bits")?;
                    Ok(at as f64 / 10.0)
                })
                .collect()
        })
        .collect()
}

/// A packed array in the JSON Schema: the packed string (version 2) or the plain array
/// (version 1, and any array whose values the packing cannot carry exactly).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub enum PackedSamples {
    /// Whole ns as steps from the previous sample, zigzag varints in base64 digits.
    Packed(String),
    Plain(Vec<f64>),
}

/// See [`PackedSamples`]; the layout of the string is in this module's documentation.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub enum PackedRows {
    /// Row-length runs, then the values (tenths of µs) column by column, delta-coded
    /// along the row and down the column, zigzag varints in base64 digits.
    Packed(String),
    Plain(Vec<Vec<f64>>),
}

/// A visitor taking the packed string or the plain array.
struct Either<T> {
    expecting: &'static str,
    unpack: fn(&str) -> Result<T, String>,
}

impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for Either<Vec<T>> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<T>, E> {
        (self.unpack)(v).map_err(|e| E::custom(format!("a packed array that does not unpack: {e}")))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        while let Some(x) = seq.next_element()? {
            out.push(x);
        }
        Ok(out)
    }
}

/// `#[serde(with)]` for `samples_us`: written packed, read packed or plain.
pub mod samples {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        match (!v.is_empty()).then(|| pack_samples(v)).flatten() {
            Some(p) => s.serialize_str(&p),
            None => v.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        d.deserialize_any(Either {
            expecting: "an array of numbers or a packed string",
            unpack: unpack_samples,
        })
    }
}

/// `#[serde(with)]` for the phases' rows: written packed, read packed or plain.
pub mod rows {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[Vec<f64>], s: S) -> Result<S::Ok, S::Error> {
        match (!v.is_empty()).then(|| pack_rows(v)).flatten() {
            Some(p) => s.serialize_str(&p),
            None => v.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f64>>, D::Error> {
        d.deserialize_any(Either {
            expecting: "an array of rows of numbers or a packed string",
            unpack: unpack_rows,
        })
    }
}

#[cfg(test)]
#[path = "packed/tests.rs"]
mod tests;
