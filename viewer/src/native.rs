//! The page's whole data path without a browser: files are loaded and validated into a
//! [`RunSet`], then everything the components derive from it is derived, in the same
//! way (`components/app.rs`, `runs.rs`, `views.rs`, `cdf.rs`, `verdicts.rs`, `table.rs`),
//! and every chart is drawn on a recording backend. The fuzz target
//! (`fuzz/fuzz_targets/viewer.rs`) and the hostile-file tests run it, so what the page
//! would do with a file is checked natively: no panic, no hang, an error or a render.

use crate::charts::recorder::Recorder;
use crate::charts::{against, bars, cdf, lines, speedup, stacks, waterfall, Scale};
use crate::data::card::{run_card, tls_over_tcp};
use crate::data::csv::to_csv;
use crate::data::derive::{arm_ids, cdf_series, default_cdf_pick, has_cdf, resume_speedups};
use crate::data::filter::{facets_present, ArmFilter};
use crate::data::findings::findings;
use crate::data::format::{fmt_ci_us, fmt_opt_us, fmt_ratio, fmt_us, short};
use crate::data::load::{short_time, HistoryRun, LoadedRun, RunSet};
use crate::data::matrix::matrices;
use crate::data::phases::waterfalls;
use crate::data::series::{capacity_lines, ttfb_lines, CapacityMetric};
use crate::data::stacks::{percentile_panels, stack_latencies, stack_speedups};
use crate::data::table::{arm_rows, sort_rows, Sort, SortKey};
use crate::data::text::{percentile_text, speedup_text};
use crate::data::trend::{chart_lines, marks, trend};
use crate::data::verdicts::run_verdicts;

/// The canvas width the native path draws at (CSS pixels, device pixel ratio 1).
const WIDTH: u32 = 640;

/// What the page would show, in numbers and texts a test can check.
#[derive(Debug, Default)]
pub struct Page {
    /// Runs loaded, and files that failed as `source: reason`.
    pub runs: usize,
    pub failures: Vec<String>,
    /// The arm table's rows and its CSV download.
    pub rows: usize,
    pub csv: String,
    /// Charts drawn, and the failures a chart would show under itself.
    pub charts: usize,
    pub draw_errors: Vec<String>,
    /// Every text the page derives from the files (labels, cards, table cells, chart
    /// texts), for checks that file text comes through as text.
    pub texts: Vec<String>,
}

/// Loads each `(source, text)` as the page does after fetching it, then derives the page.
pub fn load_and_derive(files: &[(&str, &str)]) -> Page {
    let mut set = RunSet::default();
    for (source, text) in files {
        let _ = set.add_text(source, text);
    }
    derive_page(&set, &ArmFilter::default(), Scale::Log)
}

/// Everything the page derives from `set` with `filter` and `scale` on.
pub fn derive_page(set: &RunSet, filter: &ArmFilter, scale: Scale) -> Page {
    let mut page = Page {
        runs: set.runs.len(),
        failures: set.failures.iter().map(|f| f.to_string()).collect(),
        ..Page::default()
    };
    for run in &set.history {
        run_line(&mut page, run);
    }
    if set.visible().next().is_none() {
        return page;
    }
    page.texts
        .extend(facets_present(set).iter().map(|f| f.to_string()));
    for run in set.visible() {
        run_column(&mut page, run, filter, scale);
    }
    // The CDF section with the default pick, and its arm pickers.
    let pick = default_cdf_pick(set);
    for run in set.visible() {
        page.texts.push(run.label());
        let arms = run.evidence.arms.iter();
        let arms = arms.filter(|a| filter.matches(a) && has_cdf(a));
        page.texts.extend(arms.map(|a| short(&a.id)));
    }
    let series = cdf_series(set, filter, &pick);
    page.draw(lines::HEIGHT, |a| cdf::draw_cdf(a, &series, scale, 1.0));
    // The findings panel, for the newest visible run.
    if let Some(run) = set.newest().and_then(|r| set.loaded(r.key)) {
        page.texts
            .extend(findings(&run.evidence).into_iter().map(|f| f.text));
    }
    // One arm across runs: the first arm id, as the page starts.
    let ids = arm_ids(set, filter);
    page.texts.extend(ids.iter().map(|id| short(id)));
    if let Some(arm) = ids.first() {
        // The trend of that arm over every visible run, as the page starts.
        let t = trend(set, arm, &[]);
        let (l, m) = (chart_lines(&t), marks(&t));
        page.draw(lines::HEIGHT, |a| against::draw_trend(a, &l, &m, 1.0));
        page.texts.extend(t.iter().map(|line| line.host.clone()));
        for v in run_verdicts(set, arm) {
            page.texts
                .push(format!("{}: {} {}", v.run, fmt_ratio(v.ratio), v.verdict));
        }
    }
    // The table and its CSV as first shown.
    let mut rows = arm_rows(set, filter);
    sort_rows(&mut rows, Sort::default());
    page.rows = rows.len();
    page.csv = to_csv(&rows);
    for r in &rows {
        page.texts.extend([
            r.run.clone(),
            r.arm.clone(),
            fmt_opt_us(r.p50),
            fmt_ci_us(r.p50_ci),
            r.efficiency_text(),
        ]);
        page.texts
            .extend(r.no_result.as_ref().map(|w| w.to_string()));
    }
    // Every column both ways, as clicks would, on tables a fuzzer makes (each sort is
    // n log n; on a huge table 26 of them would only slow the hang checks down).
    if rows.len() <= 5_000 {
        for key in SortKey::ALL {
            for descending in [false, true] {
                sort_rows(&mut rows, Sort { key, descending });
            }
        }
    }
    page
}

/// The run list's line of one run.
fn run_line(page: &mut Page, run: &HistoryRun) {
    let brief = &run.brief.run;
    page.texts.extend([
        brief.host.clone(),
        short(&brief.run_id),
        short_time(&brief.started_at),
        brief.tool.clone(),
        run.source.clone(),
    ]);
    page.texts.extend(run.duplicate_of.clone());
}

/// One run's column: card, percentile and speedup charts, and the views its data allow.
fn run_column(page: &mut Page, run: &LoadedRun, filter: &ArmFilter, scale: Scale) {
    let ev = &run.evidence;
    page.texts.push(run.label());
    for (k, v) in tls_over_tcp(ev, filter) {
        page.texts.extend([k, v]);
    }
    let card = run_card(ev);
    for (k, v) in card.main.into_iter().chain(card.more) {
        page.texts.extend([k, v]);
    }
    for (stack, bars) in percentile_panels(ev, filter) {
        page.texts.push(stack);
        page.bars(&bars, scale);
    }
    let speedups = resume_speedups(ev, filter);
    let groups = speedup::speedup_rows(&speedups).len();
    page.draw(bars::height_for(groups, 2), |a| {
        speedup::draw_speedups(a, &speedups, 1.0)
    });
    page.texts.extend(
        speedup_text(&speedups)
            .into_iter()
            .flat_map(|(label, text, _)| [label, text]),
    );

    let stack_rows = stack_latencies(ev, filter);
    if !stack_rows.is_empty() {
        page.draw(bars::height_for(stack_rows.len(), 2), |a| {
            stacks::draw_stack_latencies(a, &stack_rows, scale, 1.0)
        });
    }
    let stack_ratios = stack_speedups(ev, filter);
    if !stack_ratios.is_empty() {
        page.draw(bars::height_for(stack_ratios.len(), 2), |a| {
            stacks::draw_stack_speedups(a, &stack_ratios, 1.0)
        });
        page.texts
            .extend(stack_ratios.iter().map(|r| r.arm.clone()));
    }
    for metric in [CapacityMetric::Rate, CapacityMetric::P99] {
        let capacity = capacity_lines(ev, filter, metric);
        if !capacity.is_empty() {
            page.draw(lines::HEIGHT, |a| {
                against::draw_capacity(a, &capacity, metric, 1.0)
            });
        }
    }
    let ttfb = ttfb_lines(ev, filter);
    if !ttfb.is_empty() {
        page.draw(lines::HEIGHT, |a| against::draw_ttfb(a, &ttfb, 1.0));
        page.texts.extend(ttfb.iter().map(|l| l.label.clone()));
    }
    let falls = waterfalls(ev, filter);
    if !falls.is_empty() {
        page.draw(waterfall::height_for(falls.len()), |a| {
            waterfall::draw_waterfalls(a, &falls, 1.0)
        });
        for w in &falls {
            page.texts
                .extend([w.arm.clone(), fmt_us(w.predicted), fmt_ratio(w.ratio)]);
            page.texts.extend(w.miss.clone());
        }
    }
    for grid in matrices(ev, filter) {
        for row in &grid.cells {
            for v in row.iter().flatten() {
                page.texts
                    .push(format!("{} {:.0}", fmt_us(*v), grid.shade(*v)));
            }
        }
    }
}

impl Page {
    /// Draws one chart of height `h` on a recorder; its failure is kept, as the page
    /// shows it under the chart.
    fn draw(
        &mut self,
        h: u32,
        f: impl FnOnce(
            &plotters::prelude::DrawingArea<Recorder, plotters::coord::Shift>,
        ) -> crate::charts::DrawResult,
    ) {
        self.charts += 1;
        match Recorder::try_draw(WIDTH, h, f) {
            Ok(drawn) => self.texts.extend(drawn.texts.into_iter().map(|t| t.0)),
            Err(e) => self.draw_errors.push(e),
        }
    }

    /// A percentile chart and its "as text" list.
    fn bars(&mut self, b: &[crate::data::outcome::PercentileBar], scale: Scale) {
        self.draw(bars::height_for(b.len(), 3), |a| {
            bars::draw_percentiles(a, b, scale, None, 1.0)
        });
        self.texts.extend(
            percentile_text(b)
                .into_iter()
                .flat_map(|(label, text, _)| [label, text]),
        );
    }
}

#[cfg(test)]
#[path = "native_tests.rs"]
mod tests;
