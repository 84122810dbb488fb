//! A long history a page at a time. The run list and the run pickers render one page of
//! runs, not the whole history: with a thousand runs loaded, the page holds fifty of each,
//! and the rest are a click away ("older runs", "newer runs").

use std::ops::Range;

/// Runs on a page of the run list or of a picker.
pub const PAGE: usize = 50;

/// Page `page` of `len` items, `size` to a page: which items and where that is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The items on the page (indices into the whole list).
    pub items: Range<usize>,
    /// The page asked for, brought into range (the last one when past it).
    pub page: usize,
    /// Pages in all (1 for an empty list).
    pub pages: usize,
}

impl Page {
    /// Page `page` of `len` items, counted from the start of the list.
    pub fn of(len: usize, page: usize, size: usize) -> Page {
        let size = size.max(1);
        let pages = len.div_ceil(size).max(1);
        let page = page.min(pages - 1);
        let start = page * size;
        Page {
            items: start..(start + size).min(len),
            page,
            pages,
        }
    }

    /// Page `page` counted from the end of the list: page 0 holds its last `size` items
    /// (a list in time order whose newest runs come first to the eye), page 1 the `size`
    /// before them; the first page may hold fewer.
    pub fn from_end(len: usize, page: usize, size: usize) -> Page {
        let size = size.max(1);
        let pages = len.div_ceil(size).max(1);
        let page = page.min(pages - 1);
        let end = len - (page * size).min(len);
        Page {
            items: end.saturating_sub(size)..end,
            page,
            pages,
        }
    }

    /// True when the list needs more than one page: then the pager is drawn.
    pub fn paged(&self) -> bool {
        self.pages > 1
    }

    /// "runs 51–100 of 1,000" (items counted from 1, in the list's own order).
    pub fn words(&self, len: usize) -> String {
        if self.items.is_empty() {
            return format!("no runs of {}", thousands(len));
        }
        format!(
            "runs {}–{} of {}",
            thousands(self.items.start + 1),
            thousands(self.items.end),
            thousands(len)
        )
    }
}

/// `1000` → "1,000".
pub fn thousands(n: impl ToString) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_from_the_start_cover_the_list_once() {
        assert_eq!(
            Page::of(120, 0, 50),
            Page {
                items: 0..50,
                page: 0,
                pages: 3
            }
        );
        assert_eq!(Page::of(120, 1, 50).items, 50..100);
        assert_eq!(Page::of(120, 2, 50).items, 100..120);
        // Past the end: the last page.
        assert_eq!(Page::of(120, 9, 50).items, 100..120);
        assert_eq!(Page::of(120, 9, 50).page, 2);
        // Exactly full pages: no empty page after them.
        assert_eq!(Page::of(100, 0, 50).pages, 2);
        assert_eq!(Page::of(100, 5, 50).items, 50..100);
    }

    #[test]
    fn pages_from_the_end_start_with_the_newest() {
        assert_eq!(
            Page::from_end(120, 0, 50),
            Page {
                items: 70..120,
                page: 0,
                pages: 3
            }
        );
        assert_eq!(Page::from_end(120, 1, 50).items, 20..70);
        assert_eq!(Page::from_end(120, 2, 50).items, 0..20);
        assert_eq!(Page::from_end(120, 7, 50).items, 0..20);
        assert_eq!(Page::from_end(1000, 0, 50).items, 950..1000);
    }

    #[test]
    fn a_short_or_empty_list_is_one_page_without_a_pager() {
        for p in [Page::of(3, 0, 50), Page::from_end(3, 4, 50)] {
            assert_eq!(p.items, 0..3);
            assert_eq!(p.pages, 1);
            assert!(!p.paged());
        }
        let empty = Page::from_end(0, 0, 50);
        assert_eq!((empty.items.clone(), empty.pages), (0..0, 1));
        assert_eq!(empty.words(0), "no runs of 0");
        assert!(Page::of(51, 0, 50).paged());
    }

    #[test]
    fn a_page_says_which_runs_it_holds() {
        assert_eq!(Page::of(1000, 1, 50).words(1000), "runs 51–100 of 1,000");
        assert_eq!(
            Page::from_end(1000, 0, 50).words(1000),
            "runs 951–1,000 of 1,000"
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
