//! The line charts' legend: a box of rows, each a sample of its line and the line's name,
//! laid out as plotters' series labels lay it out (10 px margin, 30 px for the sample,
//! rows 1.25 font sizes apart, 5 px from the plotting area's edge).
//!
//! Drawn here rather than by plotters: its series-label drawing always builds a default
//! font from the name `"sans-serif"`, and reading a font name calls `str::to_lowercase`,
//! which compiles Unicode's case tables into the wasm (about 10 KB of the gzipped bundle,
//! for a font the charts never use).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{fail, DrawResult};

const MARGIN: i32 = 10;
/// Room for each row's line sample, left of its name.
const SAMPLE: i32 = 30;
/// From the plotting area's edge.
const INSET: i32 = 5;

/// Draws `rows` (name, line style) in a box at `at` of `area` (the plotting area), names in
/// `style`, on `background` inside a `border`; each sample is `sample_px` long.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[(String, ShapeStyle)],
    at: &SeriesLabelPosition,
    style: &TextStyle,
    (background, border): (ShapeStyle, ShapeStyle),
    sample_px: i32,
) -> DrawResult {
    if rows.is_empty() {
        return Ok(());
    }
    let step = style.font.get_size() * 1.25;
    // Each row's top (from the text's top) and its text's size.
    let mut boxes: Vec<(i32, i32, i32)> = Vec::with_capacity(rows.len());
    for (i, (name, _)) in rows.iter().enumerate() {
        let (w, h) = style.font.box_size(name).map_err(fail)?;
        boxes.push(((i as f64 * step).round() as i32, w as i32, h as i32));
    }
    let text_w = boxes.iter().map(|b| b.1).max().unwrap_or(0);
    let text_h = boxes.iter().map(|b| b.0 + b.2).max().unwrap_or(0);
    let (w, h) = (text_w + SAMPLE + 2 * MARGIN, text_h + 2 * MARGIN);
    let (x, y) = place(at, (w, h), area.dim_in_pixel());
    let corners = [(x, y), (x + w, y + h)];
    area.draw(&Rectangle::new(corners, background))
        .map_err(fail)?;
    area.draw(&Rectangle::new(corners, border)).map_err(fail)?;
    for ((name, line), (top, _, text_h)) in rows.iter().zip(boxes) {
        let text_y = y + MARGIN + top;
        area.draw(&Text::new(
            name.as_str(),
            (x + SAMPLE + MARGIN, text_y),
            style.clone(),
        ))
        .map_err(fail)?;
        let (sx, sy) = (x + MARGIN, text_y + text_h / 2);
        area.draw(&PathElement::new(
            vec![(sx, sy), (sx + sample_px, sy)],
            *line,
        ))
        .map_err(fail)?;
    }
    Ok(())
}

/// The box's top-left corner for a box of `size` at `at` in an area of `area` pixels.
fn place(at: &SeriesLabelPosition, (w, h): (i32, i32), area: (u32, u32)) -> (i32, i32) {
    use SeriesLabelPosition::*;
    let (aw, ah) = (area.0 as i32, area.1 as i32);
    let x = match at {
        UpperLeft | MiddleLeft | LowerLeft => INSET,
        UpperMiddle | MiddleMiddle | LowerMiddle => (aw - w) / 2,
        UpperRight | MiddleRight | LowerRight => aw - w - INSET,
        Coordinate(x, _) => *x,
    };
    let y = match at {
        UpperLeft | UpperMiddle | UpperRight => INSET,
        MiddleLeft | MiddleMiddle | MiddleRight => (ah - h) / 2,
        LowerLeft | LowerMiddle | LowerRight => ah - h - INSET,
        Coordinate(_, y) => *y,
    };
    (x, y)
}
