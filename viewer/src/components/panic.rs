//! A panic hook that shows the panic on the page (and in the console) instead of
//! leaving a silently dead app.

use wasm_bindgen::JsValue;

/// Installs the hook; call first thing.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("The viewer stopped on an internal error: {info}");
        web_sys::console::error_1(&JsValue::from_str(&message));
        show(&message);
    }));
}

/// Writes `message` as text into `#panic` (created when the page lacks it).
fn show(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let element = match document.get_element_by_id("panic") {
        Some(e) => e,
        None => {
            let Ok(e) = document.create_element("div") else {
                return;
            };
            e.set_id("panic");
            if let Some(body) = document.body() {
                let _ = body.prepend_with_node_1(&e);
            }
            e
        }
    };
    element.set_text_content(Some(message));
    let _ = element.remove_attribute("hidden");
}
