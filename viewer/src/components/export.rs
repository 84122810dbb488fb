//! Taking things away: a chart as PNG (the canvas's pixels) or SVG (the same chart drawn
//! again by plotters' SVG backend), text (CSV, Markdown) as a file.

use plotters::prelude::{IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlCanvasElement;

use crate::charts::spec::{export_height, paint_with_head, ChartSpec};
use crate::charts::surface::Surface;

/// Offers `href` (a data or object URL) as a download called `name`.
fn offer(href: &str, name: &str) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    a.set_href(href);
    a.set_download(name);
    a.click();
    Ok(())
}

/// Offers `text` as a file download through a temporary object URL.
pub fn download_text(text: &str, mime: &str, name: &str) {
    let result = (|| {
        let parts = js_sys::Array::of1(&text.into());
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)?;
        offer(&url, name)?;
        web_sys::Url::revoke_object_url(&url)
    })();
    if let Err(e) = result {
        web_sys::console::error_1(&e);
    }
}

/// The chart drawn again, under its header `head`, on a canvas of its own `css_w` CSS
/// pixels wide at the screen's pixel ratio, as a PNG download.
pub fn download_png(css_w: u32, spec: &ChartSpec, head: &[String; 3], name: &str) {
    let result = (|| -> Result<(), JsValue> {
        let window = web_sys::window().ok_or("no window")?;
        let dpr = window.device_pixel_ratio().clamp(1.0, 4.0);
        let document = window.document().ok_or("no document")?;
        let canvas: HtmlCanvasElement = document.create_element("canvas")?.unchecked_into();
        canvas.set_width((f64::from(css_w) * dpr).round() as u32);
        canvas.set_height((f64::from(export_height(spec)) * dpr).round() as u32);
        let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no 2D canvas")?;
        let area = Surface::Screen(backend).into_drawing_area();
        paint_with_head(&area, spec, head, dpr)?;
        area.present().map_err(|e| e.to_string())?;
        offer(&canvas.to_data_url()?, name)
    })();
    if let Err(e) = result {
        web_sys::console::error_1(&e);
    }
}

/// The chart drawn as SVG, `css_w` CSS pixels wide, under its header `head`, as a download.
pub fn download_svg(css_w: u32, spec: &ChartSpec, head: &[String; 3], name: &str) {
    let size = (css_w, export_height(spec));
    let mut svg = String::new();
    let drawn = {
        let area = Surface::<CanvasBackend>::Svg(SVGBackend::with_string(&mut svg, size))
            .into_drawing_area();
        paint_with_head(&area, spec, head, 1.0)
            .and_then(|()| area.present().map_err(|e| e.to_string()))
    };
    match drawn {
        Ok(()) => download_text(&svg, "image/svg+xml", name),
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}
