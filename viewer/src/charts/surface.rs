//! One drawing backend for both outputs of a chart: the screen (a `<canvas>` in the page)
//! or an SVG document (plotters' `SVGBackend`, for the download). Charts are generic over
//! their backend, and each backend type compiles every chart once more; drawing both
//! through this one type keeps a single copy of the chart code in the wasm.

use std::fmt;

use plotters::prelude::SVGBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// The screen backend `S`, or an SVG document written into a string.
pub enum Surface<'a, S> {
    Screen(S),
    Svg(SVGBackend<'a>),
}

/// Either backend's error, as its message.
#[derive(Debug)]
pub struct SurfaceError(String);

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SurfaceError {}

type Drawn = Result<(), DrawingErrorKind<SurfaceError>>;

fn lift<T, E: std::error::Error + Send + Sync>(
    r: Result<T, DrawingErrorKind<E>>,
) -> Result<T, DrawingErrorKind<SurfaceError>> {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(SurfaceError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

/// A style reduced to what the SVG backend reads (colour and width), so the SVG code is
/// compiled once per kind of mark, not once per style type of every chart.
#[derive(Clone, Copy)]
struct Pen(BackendColor, u32);

impl BackendStyle for Pen {
    fn color(&self) -> BackendColor {
        self.0
    }

    fn stroke_width(&self) -> u32 {
        self.1
    }
}

fn pen<T: BackendStyle>(style: &T) -> Pen {
    Pen(style.color(), style.stroke_width())
}

type SvgDrawn = Result<(), DrawingErrorKind<std::io::Error>>;

/// The SVG marks, out of line: the charts' code only calls them.
#[inline(never)]
fn svg_line(b: &mut SVGBackend, from: BackendCoord, to: BackendCoord, pen: Pen) -> SvgDrawn {
    b.draw_line(from, to, &pen)
}

#[inline(never)]
fn svg_rect(
    b: &mut SVGBackend,
    ul: BackendCoord,
    br: BackendCoord,
    pen: Pen,
    fill: bool,
) -> SvgDrawn {
    b.draw_rect(ul, br, &pen, fill)
}

#[inline(never)]
fn svg_path(b: &mut SVGBackend, path: Vec<BackendCoord>, pen: Pen, fill: bool) -> SvgDrawn {
    match fill {
        true => b.fill_polygon(path, &pen),
        false => b.draw_path(path, &pen),
    }
}

#[inline(never)]
fn svg_circle(b: &mut SVGBackend, at: BackendCoord, r: u32, pen: Pen, fill: bool) -> SvgDrawn {
    b.draw_circle(at, r, &pen, fill)
}

impl<S: DrawingBackend> DrawingBackend for Surface<'_, S> {
    type ErrorType = SurfaceError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Surface::Screen(b) => b.get_size(),
            Surface::Svg(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.present()),
            Surface::Svg(b) => lift(b.present()),
        }
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_pixel(point, color)),
            Surface::Svg(b) => lift(svg_rect(
                b,
                point,
                (point.0 + 1, point.1 + 1),
                Pen(color, 0),
                true,
            )),
        }
    }

    fn draw_line<T: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &T,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_line(from, to, style)),
            Surface::Svg(b) => lift(svg_line(b, from, to, pen(style))),
        }
    }

    fn draw_rect<T: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &T,
        fill: bool,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_rect(upper_left, bottom_right, style, fill)),
            Surface::Svg(b) => lift(svg_rect(b, upper_left, bottom_right, pen(style), fill)),
        }
    }

    fn draw_path<T: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &T,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_path(path, style)),
            Surface::Svg(b) => lift(svg_path(b, path.into_iter().collect(), pen(style), false)),
        }
    }

    fn draw_circle<T: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &T,
        fill: bool,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_circle(center, radius, style, fill)),
            Surface::Svg(b) => lift(svg_circle(b, center, radius, pen(style), fill)),
        }
    }

    fn fill_polygon<T: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &T,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.fill_polygon(vert, style)),
            Surface::Svg(b) => lift(svg_path(b, vert.into_iter().collect(), pen(style), true)),
        }
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Drawn {
        match self {
            Surface::Screen(b) => lift(b.draw_text(text, style, pos)),
            Surface::Svg(b) => lift(b.draw_text(text, style, pos)),
        }
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<SurfaceError>> {
        match self {
            Surface::Screen(b) => lift(b.estimate_text_size(text, style)),
            Surface::Svg(b) => lift(b.estimate_text_size(text, style)),
        }
    }
}

#[cfg(test)]
mod tests {
    use plotters::prelude::IntoDrawingArea;

    use super::*;
    use crate::charts::bars::draw_percentiles;
    use crate::charts::recorder::Recorder;
    use crate::charts::{Scale, P50, P95, P99};
    use crate::data::derive::percentile_bars;
    use crate::data::filter::ArmFilter;
    use crate::data::testdata::sample;

    #[test]
    fn a_chart_drawn_as_svg_holds_its_bars_and_labels() {
        let ev = sample();
        let bars = percentile_bars(&ev, &ArmFilter::default());
        let mut svg = String::new();
        {
            let area = Surface::<Recorder>::Svg(SVGBackend::with_string(&mut svg, (640, 300)))
                .into_drawing_area();
            draw_percentiles(&area, &bars, Scale::Log, None, 1.0).unwrap();
            area.present().unwrap();
        }
        assert!(
            svg.starts_with("<svg width=\"640\" height=\"300\""),
            "{svg}"
        );
        assert!(svg.trim_end().ends_with("</svg>"), "closed");
        // One filled bar per percentile per arm, below the legend's top 18 px (as the
        // recorder test of this chart counts them).
        let y_of = |l: &str| -> i32 {
            let at = l.find(" y=\"").unwrap() + 4;
            l[at..].split('"').next().unwrap().parse().unwrap()
        };
        for c in [P50, P95, P99] {
            let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
            let marks = svg
                .lines()
                .filter(|l| l.starts_with("<rect") && l.contains(&fill) && y_of(l) >= 19)
                .count();
            assert_eq!(marks, bars.len(), "{fill} in\n{svg}");
        }
        for arm in ["tcp-connect", "tls13-full-ecdsa-p256-x25519"] {
            assert!(svg.contains(arm), "the label {arm} is in the SVG");
        }
    }
}
