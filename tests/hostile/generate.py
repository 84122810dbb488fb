#!/usr/bin/env python3
"""Writes the hostile evidence files of this folder from render-valid-base.json (a real
collector run: 4 arms, 5 samples each). Run it from anywhere; it rewrites the files and
README.md's list. A name starting with `error-` must end in a load error naming the
file; `render-` must load and render (its strings shown as text, never as markup)."""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = json.load(open(os.path.join(HERE, "render-valid-base.json")))
FILES = {}  # name -> (bytes, what it is for)

MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>'


def text(ev):
    return json.dumps(ev, separators=(",", ":"), ensure_ascii=False).encode()


def add(name, content, why):
    assert name not in FILES, name
    FILES[name] = (content if isinstance(content, bytes) else content.encode(), why)


def mutated(change):
    ev = copy.deepcopy(BASE)
    change(ev)
    return text(ev)


def rename_arm(ev, i, new):
    old = ev["arms"][i]["id"]
    ev["arms"][i]["id"] = new
    for c in ev["comparisons"]:
        for side in ("baseline", "candidate"):
            if c[side] == old:
                c[side] = new


base_text = open(os.path.join(HERE, "render-valid-base.json"), "rb").read()


def swap(old, new):
    """The base's text (as the collector wrote it) with its first `old` made `new`."""
    assert old in base_text, old
    return base_text.replace(old, new, 1)


# --- Not JSON, or not an object -------------------------------------------------------
add("error-empty.json", b"", "an empty file")
add("error-whitespace-only.json", b" \n\t \n", "only whitespace")
add("error-truncated-half.json", base_text[: len(base_text) // 2], "the base cut in half")
add("error-truncated-last-byte.json", base_text[:-1], "the base without its closing brace")
add("error-not-json.json", b"Handshake Lab? <b>no</b>", "plain text (with markup) instead of JSON")
add("render-bom-prefixed.json", b"\xef\xbb\xbf" + base_text, "the base behind a UTF-8 byte-order mark (dropped, as browsers drop it)")
add("render-invalid-utf8-host.json", swap(b'"vm"', b'"\xff\xfe"'), "bytes that are not UTF-8 in the host name (read as U+FFFD, as `fetch().text()` and the native test decode them)")
add("error-top-level-array.json", b"[" + base_text + b"]", "the base inside an array")
add("error-top-level-string.json", b'"evidence"', "a JSON string")
add("error-top-level-null.json", b"null", "JSON null")
add("error-empty-object.json", b"{}", "an object without schema_version")
add("error-nan-literal.json", swap(b'"p50": ', b'"p50": NaN, "x": '), "a NaN literal (not JSON)")
add("error-number-1e400.json", swap(b'"p50": ', b'"p50": 1e400, "x": '), "a number beyond f64")
add("error-deep-nesting-array.json", b"[" * 20_000 + b"]" * 20_000, "20,000 nested arrays")
add("render-deep-nesting-in-unknown-field.json",
    swap(b'"extra": {', b'"deep": ' + b"[" * 10_000 + b"]" * 10_000 + b', "extra": {'),
    "10,000 nested arrays in a field this build does not know (skipped without recursion)")
add("error-long-digits.json", swap(b'"attempted": 5', b'"attempted": 1' + b"0" * 20_000),
    "an integer with 20,001 digits")

# --- Versions ---------------------------------------------------------------------------
add("error-version-3.json", mutated(lambda e: e.update(schema_version=3)), "schema version 3 (newer than this build)")
add("error-version-string.json", mutated(lambda e: e.update(schema_version="1")), 'schema version "1" (a string)')
add("error-version-float.json", mutated(lambda e: e.update(schema_version=1.0)), "schema version 1.0")
add("error-version-missing.json", mutated(lambda e: e.pop("schema_version")), "no schema_version")
add("error-version-huge.json", swap(b'"schema_version": 1', b'"schema_version": 1' + b"9" * 5000),
    "a 5,000-digit schema version (the message must not repeat it whole)")

# --- Wrong types and missing fields ------------------------------------------------------
add("error-type-samples-string.json", mutated(lambda e: e["arms"][1]["samples_us"].__setitem__(0, "fast")), "a sample that is a string")
add("error-type-attempted-negative.json", mutated(lambda e: e["arms"][1].update(attempted=-1)), "a negative count")
add("error-type-arms-object.json", mutated(lambda e: e.update(arms={"tcp": e["arms"][0]})), "arms as an object, not a list")
add("error-type-hostname-number.json", mutated(lambda e: e["environment"].update(hostname=42)), "a host name that is a number")
add("error-missing-run.json", mutated(lambda e: e.pop("run")), "no run section")
add("error-duplicate-json-key.json", swap(b'"attempted": 5', b'"attempted": 5, "attempted": 6'), "a field twice in one object")
add("error-u64-overflow-literal.json", swap(b'"attempted": 5', b'"attempted": 18446744073709551616'), "a count of 2^64 (no u64)")

# --- Broken invariants -------------------------------------------------------------------
def counts_max(e):
    a = e["arms"][1]
    a.update(attempted=18446744073709551615, succeeded=18446744073709551615, failed=1)
add("error-counts-overflow.json", mutated(counts_max), "succeeded + failed overflows u64")
add("error-succeeded-plus-failed.json", mutated(lambda e: e["arms"][1].update(failed=3)), "succeeded + failed != attempted")
add("error-comparison-unknown-arm.json", mutated(lambda e: e["comparisons"][0].update(candidate="no-such-arm")), "a comparison naming a missing arm")
add("error-ci-reversed.json", mutated(lambda e: e["arms"][1].update(p50_ci95_us=[9e3, 1.0])), "a CI whose low end is above its high end")
def dup(e):
    e["arms"][2]["id"] = e["arms"][1]["id"]
add("error-duplicate-arm-ids.json", mutated(dup), "two arms with one id")
add("error-resumed-over-succeeded.json", mutated(lambda e: e["arms"][2]["resumed"].update(client=99)), "more resumed than succeeded")

# --- Huge and tiny numbers ---------------------------------------------------------------
def huge_latency(e):
    for k in ("min", "p50", "p95", "p99", "max", "mean"):
        e["arms"][1]["latency_us"][k] = 1.5e308
add("error-latency-1.5e308.json", mutated(huge_latency), "percentiles near f64::MAX (overflow to infinity in a chart)")
add("error-latency-negative.json", mutated(lambda e: e["arms"][1]["latency_us"].update(p50=-5.0)), "a negative p50")
add("error-latency-subnormal.json", mutated(lambda e: e["arms"][1]["latency_us"].update(p50=5e-324)), "a p50 of 5e-324 that is no sample")
add("error-ratio-1e300.json", mutated(lambda e: e["comparisons"][0].update(p50_ratio=1e300, ci95=[1e299, 1e301])), "a speedup of 1e300")
add("error-load-average-inf.json", swap(b'"before": [', b'"before": [1e999, '), "a load average of 1e999")

# --- Strings: long, markup, formulas, odd characters -------------------------------------
# Identity strings have real limits (shared/src/validate/strings.rs): a host name 253
# bytes, run and arm ids 128, versions 256. Past them a file is refused, at the limit it
# renders.
add("error-long-hostname-200k.json", mutated(lambda e: e["environment"].update(hostname="h" * 200_000)), "a 200,000-character host name (a host name is at most 253 bytes)")
add("error-hostname-254.json", mutated(lambda e: e["environment"].update(hostname="h" * 254)), "a 254-byte host name, one past a DNS name's 253")
add("render-hostname-253.json", mutated(lambda e: e["environment"].update(hostname="h" * 253)), "a 253-byte host name, a DNS name's limit (shown cut)")
add("error-long-arm-id.json", mutated(lambda e: rename_arm(e, 1, "tls13-" + "x" * 20_000)), "a 20,000-character arm id (an arm id is at most 128 bytes)")
add("error-long-run-id.json", mutated(lambda e: e["run"].update(id="r" * 129)), "a 129-byte run id (at most 128)")
add("error-long-tool-version.json", mutated(lambda e: e["run"]["tool"].update(version="1." * 100_000)), "a 200,000-character collector version (a version is at most 256 bytes)")
add("error-long-tls-library-version.json", mutated(lambda e: e["environment"]["tls_library"].update(version="9" * 257)), "a 257-byte TLS library version")
def markup(e):
    e["environment"]["hostname"] = MARKUP
    e["environment"]["cpu_model"] = MARKUP
    e["run"]["id"] = e["run"]["id"] + "-" + MARKUP
    e["run"]["tool"]["version"] = MARKUP
    e["run"]["settings"]["extra"][MARKUP] = MARKUP
    rename_arm(e, 1, "tls13-full-" + MARKUP)
add("render-markup-strings.json", mutated(markup), "markup and script in host, CPU, run id, tool, settings and an arm id")
def formulas(e):
    e["environment"]["hostname"] = '=HYPERLINK("http://example.invalid/x","click")'
    rename_arm(e, 0, "+cmd|' /C calc'!A0")
    rename_arm(e, 1, "-2+3+cmd|' /C calc'!A0")
    rename_arm(e, 2, "@SUM(1+1)*cmd|' /C calc'!A0")
add("render-formula-strings.json", mutated(formulas), "spreadsheet formulas in the host and arm ids (CSV must defuse them)")
def odd(e):
    e["environment"]["hostname"] = "rtl\u202eevil\u200b\u200dzero\u0000nul\u0007bell \U0001F600 \ud7ff"
    e["run"]["settings"]["extra"]["ctrl\u0001"] = "line\nbreak\ttab"
add("render-control-and-bidi-chars.json", mutated(odd), "NUL, bell, bidi override, zero-width and emoji characters")
add("render-unknown-fields.json", mutated(lambda e: e.update(future_field={"x": [1, 2, 3]})), "a field this build does not know")
add("render-no-arms.json", mutated(lambda e: (e.update(arms=[], comparisons=[]))), "a run without arms")
def many(e):
    tcp = e["arms"][0]
    e["arms"] = []
    for i in range(150):
        a = copy.deepcopy(tcp)
        a["id"] = f"tcp-connect-{i:04}"
        e["arms"].append(a)
    e["comparisons"] = []
add("render-many-arms-150.json", mutated(many), "150 arms (a test generates 20,000 at run time)")
add("render-valid-base.json", base_text, "the base: a real run (4 arms, 5 samples each)")

for name, (content, _) in FILES.items():
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(content)

with open(os.path.join(HERE, "README.md"), "w") as f:
    f.write("# Hostile evidence files\n\n")
    f.write("Written by `generate.py` from `render-valid-base.json`. Loaded by "
            "`tests/e2e/hostile.rs` (natively: `Evidence::from_json` and the viewer's whole "
            "load-and-derive path) and `tests/e2e/hostile_browser.rs` (each with `?run=` in "
            "Chromium). A name starting with `error-` must end in a load error that names the "
            "file; `render-` must load and render, its strings as text, never as markup.\n\n")
    f.write("| file | what it is |\n| --- | --- |\n")
    for name in sorted(FILES):
        f.write(f"| `{name}` | {FILES[name][1]} |\n")
print(len(FILES), "files,", sum(len(c) for c, _ in FILES.values()), "bytes")
