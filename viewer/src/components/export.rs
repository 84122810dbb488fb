//! Taking things away: a chart as PNG (the canvas's pixels) or SVG (the same chart drawn
//! again by plotters' SVG backend), text (CSV, Markdown) as a file.

use plotters::prelude::{IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlCanvasElement;

use super::canvas::{paint, ChartSpec};
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

/// The canvas's pixels as a PNG download.
pub fn download_png(canvas: &HtmlCanvasElement, name: &str) {
    if let Err(e) = canvas.to_data_url().and_then(|url| offer(&url, name)) {
        web_sys::console::error_1(&e);
    }
}

/// The chart drawn as SVG at the canvas's CSS size, as a download.
pub fn download_svg(canvas: &HtmlCanvasElement, spec: &ChartSpec, name: &str) {
    let size = (canvas.client_width().max(240) as u32, spec.height());
    let mut svg = String::new();
    let drawn = {
        let area = Surface::<CanvasBackend>::Svg(SVGBackend::with_string(&mut svg, size))
            .into_drawing_area();
        paint(&area, spec, 1.0).and_then(|()| area.present().map_err(|e| e.to_string()))
    };
    match drawn {
        Ok(()) => download_text(&svg, "image/svg+xml", name),
        Err(e) => web_sys::console::error_1(&e.into()),
    }
}
