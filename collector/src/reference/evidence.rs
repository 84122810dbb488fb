//! `docs/src/reference/evidence.md`: the evidence file's types, one section each, read
//! off the JSON Schema the types generate (`collector schema`), so every field's name,
//! type, whether it must be there and its description are the program's own.

use serde_json::{Map, Value};

pub fn markdown(schema: &Value) -> String {
    let mut out = format!(
        "{}\n\n# Evidence reference\n\n\
         An evidence file is one JSON object, the type `Evidence` below. This page is \
         generated from the JSON Schema `collector schema` prints ({}); each type links to \
         its section. A field marked *required* is always written; the others may be \
         missing or `null` in older files.\n",
        super::GENERATED,
        schema
            .get("$schema")
            .and_then(Value::as_str)
            .unwrap_or("JSON Schema"),
    );
    let empty = Map::new();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let title = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("Evidence");
    describe(&mut out, title, schema);
    let mut names: Vec<&String> = defs.keys().collect();
    names.sort();
    for name in names {
        describe(&mut out, name, &defs[name]);
    }
    out
}

/// One type's section: its description, then its fields as a table, or its variants.
fn describe(out: &mut String, name: &str, def: &Value) {
    out.push_str(&format!("\n## {name}\n\n"));
    if let Some(d) = text(def) {
        out.push_str(&format!("{d}\n\n"));
    }
    if let Some(props) = def.get("properties").and_then(Value::as_object) {
        fields(out, props, &required(def));
    }
    let variants = def
        .get("oneOf")
        .or_else(|| def.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(variants) = variants {
        out.push_str("One of:\n\n");
        for v in variants {
            out.push_str(&format!("- {}", variant(v)));
            out.push('\n');
        }
        out.push('\n');
    } else if def.get("properties").is_none() {
        out.push_str(&format!("Type: {}\n\n", ty(def)));
    }
}

fn fields(out: &mut String, props: &Map<String, Value>, required: &[&str]) {
    out.push_str("| field | type | required | description |\n|---|---|---|---|\n");
    let mut names: Vec<&String> = props.keys().collect();
    names.sort_by_key(|n| (!required.contains(&n.as_str()), n.as_str()));
    for name in names {
        let p = &props[name];
        out.push_str(&format!(
            "| `{name}` | {} | {} | {} |\n",
            cell(&ty(p)),
            if required.contains(&name.as_str()) {
                "required"
            } else {
                ""
            },
            cell(&text(p).unwrap_or_default()),
        ));
    }
    out.push('\n');
}

/// A variant of an enum: its value (and description), or an object's tag and fields.
fn variant(v: &Value) -> String {
    let said = text(v)
        .map(|d| format!(": {}", one_line(&d)))
        .unwrap_or_default();
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        let req = required(v);
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        let parts: Vec<String> = names
            .iter()
            .map(|n| {
                let mark = if req.contains(&n.as_str()) { "" } else { "?" };
                format!("`{n}{mark}`: {}", ty(&props[n.as_str()]))
            })
            .collect();
        return format!("an object {{ {} }}{said}", parts.join(", "));
    }
    format!("{}{said}", ty(v))
}

/// A field's type in words, with links to the types defined on the page.
fn ty(v: &Value) -> String {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("[{name}](#{})", name.to_lowercase());
    }
    if let Some(c) = v.get("const") {
        return format!("`{c}`");
    }
    if let Some(values) = v.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(|e| format!("`{e}`")).collect();
        return values.join(" or ");
    }
    if let Some(alts) = v
        .get("anyOf")
        .or_else(|| v.get("oneOf"))
        .and_then(Value::as_array)
    {
        let alts: Vec<String> = alts.iter().map(ty).collect();
        return alts.join(" or ");
    }
    match v.get("type") {
        Some(Value::Array(types)) => {
            let one: Vec<String> = types
                .iter()
                .map(|t| {
                    let mut alone = v.clone();
                    alone["type"] = t.clone();
                    ty(&alone)
                })
                .collect();
            one.join(" or ")
        }
        Some(Value::String(t)) => match t.as_str() {
            "array" => match v.get("items") {
                Some(items) => format!("array of {}", ty(items)),
                None => "array".into(),
            },
            "object" => match v.get("additionalProperties") {
                Some(Value::Bool(false)) | None => "object".into(),
                Some(values) => format!("map of string to {}", ty(values)),
            },
            "integer" | "number" => v
                .get("format")
                .and_then(Value::as_str)
                .unwrap_or(t)
                .to_owned(),
            other => other.to_owned(),
        },
        _ => "any JSON value".into(),
    }
}

fn required(def: &Value) -> Vec<&str> {
    def.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A description as written in the Rust doc comment, its intra-doc links (`` [`Hop`] ``,
/// which point into the code, not this page) shown as code.
fn text(v: &Value) -> Option<String> {
    let d = v.get("description").and_then(Value::as_str)?;
    Some(d.replace("[`", "`").replace("`]", "`"))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A table cell: one line, and a `|` in it does not end the cell.
fn cell(s: &str) -> String {
    one_line(s).replace('|', "\\|")
}
