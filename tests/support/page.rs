//! Reading the viewer's page in a test: the table's rows, the canvases' pixels and
//! redraws, and a CSV download's text.

use serde_json::{json, Value};

use crate::webdriver::Browser;

/// A table row: the run's place in load order (its `data-run` key) and the arm id.
pub type Row = (u64, String);

pub fn table_rows(b: &Browser) -> Vec<Row> {
    let rows = b.exec(
        "return [...document.querySelectorAll('#arm-table tbody tr')]\
         .map(r => [Number(r.dataset.run), r.dataset.arm]);",
        json!([]),
    );
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| (r[0].as_u64().unwrap(), r[1].as_str().unwrap().to_string()))
        .collect()
}

/// Each canvas's pixels, by id: the data URL's length and a hash of it.
pub fn pixels(b: &Browser) -> Value {
    b.exec(
        "const out = {}; for (const c of document.querySelectorAll('canvas')) { \
           const u = c.toDataURL(); let h = 0; \
           for (let i = 0; i < u.length; i++) h = (h * 31 + u.charCodeAt(i)) | 0; \
           out[c.id] = [u.length, h]; } return out;",
        json!([]),
    )
}

/// Waits until each of `ids` has drawn more often than `draws` says it had.
pub fn wait_redrawn(b: &Browser, what: &str, draws: &Value) {
    b.wait_for(
        what,
        &format!(
            "Object.entries({draws}).every(([id, n]) => \
             Number(document.getElementById(id).dataset.draws) > n)"
        ),
    );
}

pub fn draws(b: &Browser, ids: &[&str]) -> Value {
    b.exec(
        "return Object.fromEntries(arguments[0].map(id => \
         [id, Number(document.getElementById(id).dataset.draws)]));",
        json!([ids]),
    )
}

/// RFC 4180 fields, for the test's own reading of the CSV.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}
