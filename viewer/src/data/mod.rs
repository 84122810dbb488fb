//! The viewer's data work, as plain functions over [`shared::Evidence`]; no browser APIs.

pub mod brief;
pub mod card;
pub mod changes;
pub mod conditions;
pub mod csv;
pub mod derive;
pub mod export;
pub mod filter;
pub mod findings;
pub mod flights;
pub mod format;
pub mod glossary;
pub mod head;
pub mod head_html;
pub mod headline;
pub mod index;
pub mod load;
pub mod loss;
pub mod markdown;
pub mod matrix;
pub mod open_loop;
pub mod outcome;
pub mod pages;
pub mod permalink;
pub mod phases;
pub mod pick;
pub mod ranking;
pub mod scale;
pub mod series;
pub mod stacks;
pub mod table;
pub mod text;
pub mod trend;
pub mod verdicts;
pub mod work;

#[cfg(test)]
pub(crate) mod testdata;
