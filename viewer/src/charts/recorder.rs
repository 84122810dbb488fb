//! A drawing backend for tests and the native page path ([`crate::native`]): records
//! texts and rectangles instead of pixels.

use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

use super::DrawResult;

/// What a chart drew.
#[derive(Default)]
pub struct Recorded {
    pub texts: Vec<(String, BackendCoord)>,
    /// Rectangles: color, whether filled, and the upper-left corner.
    pub rects: Vec<(BackendColor, bool, BackendCoord)>,
    pub paths: usize,
}

impl Recorded {
    pub fn has_text(&self, text: &str) -> bool {
        self.texts.iter().any(|t| t.0 == text)
    }

    pub fn filled_rects_of(&self, c: RGBColor) -> usize {
        self.rects
            .iter()
            .filter(|(col, fill, _)| *fill && col.rgb == (c.0, c.1, c.2))
            .count()
    }

    /// Outlined (not filled) rectangles of colour `c`.
    pub fn rects_of(&self, c: RGBColor) -> usize {
        self.rects
            .iter()
            .filter(|(col, fill, _)| !*fill && col.rgb == (c.0, c.1, c.2))
            .count()
    }

    /// Filled rectangles of colour `c` whose top edge is at or below `y`: the
    /// marks in the plot, not the legend squares drawn in the top band.
    pub fn filled_rects_of_below(&self, c: RGBColor, y: i32) -> usize {
        self.rects
            .iter()
            .filter(|(col, fill, at)| *fill && col.rgb == (c.0, c.1, c.2) && at.1 >= y)
            .count()
    }
}

pub struct Recorder {
    size: (u32, u32),
    log: Rc<RefCell<Recorded>>,
}

impl Recorder {
    /// Runs `f` on a `w × h` recorder; panics if drawing fails.
    pub fn draw(
        w: u32,
        h: u32,
        f: impl FnOnce(&DrawingArea<Recorder, Shift>) -> DrawResult,
    ) -> Recorded {
        Self::try_draw(w, h, f).expect("chart draws")
    }

    /// Runs `f` on a `w × h` recorder; a drawing failure is returned, as the page shows
    /// it under the chart.
    pub fn try_draw(
        w: u32,
        h: u32,
        f: impl FnOnce(&DrawingArea<Recorder, Shift>) -> DrawResult,
    ) -> Result<Recorded, String> {
        let log = Rc::new(RefCell::new(Recorded::default()));
        let area = Recorder {
            size: (w, h),
            log: log.clone(),
        }
        .into_drawing_area();
        let drawn = f(&area);
        drop(area);
        drawn?;
        match Rc::try_unwrap(log) {
            Ok(cell) => Ok(cell.into_inner()),
            Err(_) => Err("the drawing area outlived the recorder".into()),
        }
    }
}

impl DrawingBackend for Recorder {
    type ErrorType = Infallible;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Infallible>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Infallible>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        _: BackendCoord,
        _: BackendColor,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: BackendCoord,
        _: &S,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.log.borrow_mut().paths += 1;
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        _: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.log
            .borrow_mut()
            .rects
            .push((style.color(), fill, upper_left));
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        _: &S,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.log.borrow_mut().paths += 1;
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        _: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Infallible>> {
        self.log.borrow_mut().texts.push((text.to_string(), pos));
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Infallible>> {
        let size = style.size();
        Ok((
            (text.chars().count() as f64 * size * 0.55) as u32,
            size as u32,
        ))
    }
}
