//! Arm filters (protocol, mode, cert, group) and the latency scale switch.

use yew::prelude::*;

use crate::charts::Scale;
use crate::data::filter::{ArmFilter, Facet};

pub struct ControlsProps {
    /// Facets present in the visible runs.
    pub facets: Vec<Facet>,
    pub filter: ArmFilter,
    pub on_toggle: Callback<Facet>,
    pub scale: Scale,
    pub on_scale: Callback<Scale>,
}

/// (A plain function, not a component: it holds no state, and each component costs the
/// wasm a few KB of lifecycle code.)
pub fn controls(props: &ControlsProps) -> Html {
    let mut groups: Vec<(&'static str, Vec<Facet>)> = Vec::new();
    for f in &props.facets {
        match groups.last_mut() {
            Some((dim, list)) if *dim == f.dimension() => list.push(*f),
            _ => groups.push((f.dimension(), vec![*f])),
        }
    }
    let scale_button = |scale: Scale, text: &'static str| {
        let on_scale = props.on_scale.clone();
        let pressed = props.scale == scale;
        html! {
            <button class={pressed.then_some("on")} aria-pressed={pressed.to_string()}
                    onclick={move |_| on_scale.emit(scale)}>{text}</button>
        }
    };
    html! {
        <section id="controls" class="controls">
            <fieldset class="scale">
                <legend class="dim">{"latency axis of the percentile, stacks and CDF charts"}</legend>
                {scale_button(Scale::Log, "log")}
                {scale_button(Scale::Linear, "linear")}
            </fieldset>
            for (dim, list) in groups {
                <fieldset class="facets">
                    <legend class="dim">{dim}</legend>
                    for facet in list {
                        {facet_box(facet, props.filter.is_on(facet), props.on_toggle.clone())}
                    }
                </fieldset>
            }
        </section>
    }
}

fn facet_box(facet: Facet, on: bool, on_toggle: Callback<Facet>) -> Html {
    html! {
        <label class="facet">
            <input type="checkbox" checked={on} data-facet={facet.to_string()}
                   onchange={move |_| on_toggle.emit(facet)} />
            {facet.to_string()}
        </label>
    }
}
