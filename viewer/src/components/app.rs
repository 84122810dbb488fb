//! The page: state (loaded runs, filters, picks, sort) and the layout of the sections.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::canvas::{Chart, ChartSpec};
use super::cdf::CdfSection;
use super::controls::Controls;
use super::findings::Findings;
use super::loader::{initial_load, Fetched, Loader};
use super::permalink::{self, use_permalink, Targets};
use super::runs::{Failures, RunColumn, RunList};
use super::table::ArmTable;
use super::verdicts::Verdicts;
use crate::charts::Scale;
use crate::data::derive::{arm_ids, compare_bars, default_cdf_pick, ArmRef};
use crate::data::filter::{facets_present, toggle, ArmFilter, Facet};
use crate::data::format::short;
use crate::data::load::RunSet;
use crate::data::permalink::Permalink;
use crate::data::table::{arm_rows, sort_rows, SortKey};

/// Changes to the set of loaded runs.
enum RunsAction {
    Loaded(Vec<Fetched>),
    ToggleHidden(u32),
    Remove(u32),
    Dismiss(usize),
}

#[derive(Default, PartialEq)]
struct Runs {
    set: Rc<RunSet>,
    /// False until the start-up load finished.
    ready: bool,
}

impl Reducible for Runs {
    type Action = RunsAction;

    fn reduce(self: Rc<Self>, action: RunsAction) -> Rc<Self> {
        let mut set = (*self.set).clone();
        let mut ready = self.ready;
        match action {
            RunsAction::Loaded(items) => {
                ready = true;
                for (source, text) in items {
                    match text {
                        Ok(text) => {
                            let _ = set.add_text(&source, &text);
                        }
                        Err(reason) => {
                            set.add_failure(&source, reason);
                        }
                    }
                }
            }
            RunsAction::ToggleHidden(key) => set.toggle_hidden(key),
            RunsAction::Remove(key) => set.remove(key),
            RunsAction::Dismiss(i) => set.dismiss_failure(i),
        }
        Rc::new(Runs {
            set: Rc::new(set),
            ready,
        })
    }
}

#[component]
pub fn App() -> Html {
    let runs = use_reducer(Runs::default);
    let link = use_memo((), |_| permalink::read());
    let filter = use_state(ArmFilter::default);
    let scale = use_state(|| link.scale.unwrap_or_default());
    let sort = use_state(|| link.sort.unwrap_or_default());
    // None: the default pick (first run's full and resumed arm) until the user picks.
    let picked = use_state(|| None::<Vec<ArmRef>>);
    let compare_arm = use_state(|| None::<String>);

    {
        let runs = runs.clone();
        use_effect_with((), move |_| {
            initial_load(Callback::from(move |items| {
                runs.dispatch(RunsAction::Loaded(items))
            }));
        });
    }

    let set = runs.set.clone();
    let on_loaded = {
        let runs = runs.clone();
        Callback::from(move |items| runs.dispatch(RunsAction::Loaded(items)))
    };
    let on_toggle_run = {
        let runs = runs.clone();
        Callback::from(move |k| runs.dispatch(RunsAction::ToggleHidden(k)))
    };
    let on_remove = {
        let runs = runs.clone();
        Callback::from(move |k| runs.dispatch(RunsAction::Remove(k)))
    };
    let on_dismiss = {
        let runs = runs.clone();
        Callback::from(move |i| runs.dispatch(RunsAction::Dismiss(i)))
    };
    let on_facet = {
        let filter = filter.clone();
        Callback::from(move |f: Facet| {
            let mut next = (*filter).clone();
            next.toggle(f);
            filter.set(next);
        })
    };
    let on_scale = {
        let scale = scale.clone();
        Callback::from(move |s| scale.set(s))
    };
    let on_sort = {
        let sort = sort.clone();
        Callback::from(move |k: SortKey| sort.set(sort.clicked(k)))
    };
    let current_pick = (*picked).clone().unwrap_or_else(|| default_cdf_pick(&set));
    let on_pick = {
        let picked = picked.clone();
        let current = current_pick.clone();
        Callback::from(move |r: ArmRef| {
            let mut next = current.clone();
            toggle(&mut next, r);
            picked.set(Some(next));
        })
    };

    let ids = arm_ids(&set, &filter);
    let chosen = (*compare_arm)
        .clone()
        .filter(|a| ids.contains(a))
        .or_else(|| ids.first().cloned());
    let on_compare = {
        let compare_arm = compare_arm.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
            {
                compare_arm.set(Some(select.value()));
            }
        })
    };
    let compare_spec = Rc::new(ChartSpec::Percentiles(
        chosen
            .as_deref()
            .map(|a| compare_bars(&set, a))
            .unwrap_or_default(),
        // Linear from zero whatever the page's scale: bar lengths compare runs.
        Scale::Linear,
    ));
    let now = Permalink::of(
        &set,
        &filter,
        *scale,
        *sort,
        (*picked).as_deref(),
        (*compare_arm).as_deref(),
    )
    .to_query();
    let targets = Targets {
        filter: filter.clone(),
        picked: picked.clone(),
        arm: compare_arm.clone(),
        hide: on_toggle_run.clone(),
    };
    use_permalink(link, set.clone(), runs.ready, targets, now);
    let mut rows = arm_rows(&set, &filter);
    sort_rows(&mut rows, *sort);

    html! {
        <main>
            <a class="skip" href="#table-section">{"Skip to the table of every arm"}</a>
            <header>
                <h1>{"Handshake Lab"}</h1>
                <p class="tagline">{"TLS handshake costs on loopback: what was measured, where, and how sure we are."}</p>
                <Loader {on_loaded} />
            </header>
            <Failures failures={set.failures.clone()} {on_dismiss} />
            if let Some(run) = set.visible().max_by(|a, b| a.evidence.run.started_at.cmp(&b.evidence.run.started_at)) {
                <Findings run={run.clone()} />
            }
            <section id="runs-section">
                <h2>{"Runs"}</h2>
                <RunList runs={set.clone()} on_toggle={on_toggle_run} {on_remove} ready={runs.ready} />
            </section>
            if set.visible().next().is_some() {
                <Controls facets={facets_present(&set)} filter={(*filter).clone()}
                          on_toggle={on_facet} scale={*scale} {on_scale} />
                <section id="run-columns" class="columns">
                    for run in set.visible() {
                        <RunColumn key={run.key} run={run.clone()} filter={(*filter).clone()} scale={*scale} />
                    }
                </section>
                <CdfSection runs={set.clone()} filter={(*filter).clone()} picked={current_pick}
                            on_toggle={on_pick} scale={*scale} />
                <section id="compare-section">
                    <h2>{"One arm across runs"}</h2>
                    <p class="hint">{"Linear axis from zero, one row per run id; the whisker is the p50's 95% CI."}</p>
                    <label>{"arm "}
                        <select id="compare-arm" onchange={on_compare}>
                            for id in ids.iter() {
                                <option value={id.clone()} selected={chosen.as_ref() == Some(id)}>{short(id)}</option>
                            }
                        </select>
                    </label>
                    <Chart id="chart-compare" spec={compare_spec}
                           label="the same arm's p50, p95 and p99 in each loaded run, by run id, on a linear axis from zero" />
                    if let Some(arm) = chosen.as_deref() {
                        <Verdicts runs={set.clone()} arm={AttrValue::from(arm.to_string())} />
                    }
                </section>
                <ArmTable {rows} sort={*sort} {on_sort} />
            }
        </main>
    }
}
