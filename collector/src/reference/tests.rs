use serde_json::json;

use super::*;

#[test]
fn the_checked_in_pages_are_what_the_code_generates_now() {
    for page in [Page::Cli, Page::Evidence] {
        let file = repo().join(path(page));
        let on_disk = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask docs`)", file.display()));
        assert!(
            on_disk == markdown(page),
            "{} differs from what `collector reference` generates: run `cargo xtask docs` and \
             commit the page",
            path(page)
        );
    }
}

#[test]
fn the_cli_page_has_a_section_per_visible_command_and_none_for_hidden_ones() {
    let page = markdown(Page::Cli);
    assert!(page.starts_with(GENERATED));
    for name in [
        "run", "schema", "floor", "compare", "serve", "probe", "spread", "export",
    ] {
        assert!(
            page.contains(&format!("\n## `collector {name}`\n")),
            "no section for {name}"
        );
    }
    for hidden in ["reference", "count-side", "count-calibrate", "help"] {
        assert!(
            !page.contains(&format!("## `collector {hidden}`")),
            "{hidden} is listed"
        );
    }
}

#[test]
fn a_schema_becomes_sections_with_typed_linked_fields() {
    // A small schema written out by hand, shaped as schemars writes one.
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Evidence",
        "description": "One run.",
        "type": "object",
        "required": ["run"],
        "properties": {
            "run": {"$ref": "#/$defs/Run", "description": "Who | where, see [`Hop`]."},
            "hop": {"anyOf": [{"$ref": "#/$defs/Hop"}, {"type": "null"}]},
            "ids": {"type": "array", "items": {"type": "string"}},
            "extra": {"type": "object", "additionalProperties": {"type": "string"}},
            "n": {"type": ["integer", "null"], "format": "uint64"}
        },
        "$defs": {
            "Run": {"type": "object", "properties": {}, "description": "A run,\nwrapped."},
            "Hop": {"type": "object", "properties": {}},
            "Kind": {"oneOf": [
                {"const": "full", "type": "string", "description": "A full\nhandshake."},
                {"type": "object", "required": ["tag"],
                 "properties": {"tag": {"const": "x"}, "n": {"type": "integer"}}}
            ]},
            "Profile": {"enum": ["debug", "release"], "type": "string"}
        }
    });
    let page = evidence::markdown(&schema);
    let expect = [
        "\n## Evidence\n\nOne run.\n\n| field | type | required | description |\n|---|---|---|---|\n\
         | `run` | [Run](#run) | required | Who \\| where, see `Hop`. |\n\
         | `extra` | map of string to string |  |  |\n\
         | `hop` | [Hop](#hop) or null |  |  |\n\
         | `ids` | array of string |  |  |\n\
         | `n` | uint64 or null |  |  |\n",
        "\n## Kind\n\nOne of:\n\n- `\"full\"`: A full handshake.\n\
         - an object { `n?`: integer, `tag`: `\"x\"` }\n",
        "\n## Profile\n\nType: `\"debug\"` or `\"release\"`\n",
        "\n## Run\n\nA run,\nwrapped.\n\n",
    ];
    for part in expect {
        assert!(page.contains(part), "missing:\n{part}\nin:\n{page}");
    }
    // Sections after the root in name order.
    let at = |h: &str| page.find(&format!("\n## {h}\n")).unwrap();
    assert!(at("Evidence") < at("Hop") && at("Hop") < at("Kind") && at("Kind") < at("Profile"));
}
