//! The financial statement a question names. "Base your judgments on the balance sheet" says
//! where the answer is before any word of its subject does, and a filing's balance sheet is one
//! page among a hundred that all say "inventories" somewhere. When a question names a statement,
//! the first [`CANDIDATES`] pages of a hybrid search are ordered again: those under the title of
//! a statement it names (the title in the passage's context, or in its first lines) come first,
//! each keeping its order, then the others. On realqa's FinanceBench questions that name a
//! statement, the gold page came first for 0.24 of them before and 0.59 after
//! (docs/figures.md).

use super::merge::{rank_order, Ranked};
use crate::chunk::{statement_titled, Statement};

/// How many of the first pages are looked at for a statement's title.
pub const CANDIDATES: usize = 20;

/// The first lines of a passage in which its statement's title may stand.
const TITLE_LINES: usize = 4;

/// The ways a question names each statement, in lower case.
const NAMES: [(Statement, &[&str]); 4] = [
    (
        Statement::Balance,
        &[
            "balance sheet",
            "statement of financial position",
            "statement of financial condition",
        ],
    ),
    (
        Statement::Income,
        &[
            "income statement",
            "statement of income",
            "statements of income",
            "statement of operations",
            "statements of operations",
            "statement of earnings",
            "p&l",
            "profit and loss",
            "statement of comprehensive income",
        ],
    ),
    (
        Statement::CashFlows,
        &["cash flow statement", "cash flows statement", "statement of cash flow"],
    ),
    (
        Statement::Equity,
        &[
            "statement of stockholders",
            "statement of shareholders",
            "statement of changes in equity",
        ],
    ),
];

/// The statements `question` names.
pub fn asked(question: &str) -> Vec<Statement> {
    let lower = question.to_lowercase();
    NAMES
        .iter()
        .filter(|(_, names)| names.iter().any(|name| lower.contains(name)))
        .map(|(statement, _)| *statement)
        .collect()
}

/// Puts the pages among the first [`CANDIDATES`] of `hits` (best first, their text read) that
/// are under a statement in `asked` before the others, by adding `boost` to their score
/// ([`super::Tuning::statement_boost`]).
pub fn favour(asked: &[Statement], hits: &mut [Ranked], boost: f32) {
    let n = hits.len().min(CANDIDATES);
    for hit in &mut hits[..n] {
        let text = hit.text.as_deref().unwrap_or_default();
        let titled = hit
            .context
            .lines()
            .chain(text.lines().take(TITLE_LINES))
            .filter_map(statement_titled)
            .any(|statement| asked.contains(&statement));
        if titled {
            hit.score += boost;
        }
    }
    hits[..n].sort_by(rank_order);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Found, Located};
    use crate::search::merge::ranked;

    fn page(page: u32, score: f32, context: &str, text: &str) -> Ranked {
        let located = Located {
            chunk_id: format!("c{page}"),
            page,
            char_start: 0,
            char_end: 1,
        };
        let mut hit = ranked(Found {
            doc: 0,
            located,
            key: None,
            score,
        });
        hit.text = Some(text.to_string());
        hit.context = context.to_string();
        hit
    }

    #[test]
    fn a_question_names_its_statements_in_the_words_analysts_use() {
        assert_eq!(
            asked("What is Northwind's FY2019 inventory? Base your judgments on the balance sheet."),
            [Statement::Balance]
        );
        assert_eq!(
            asked("Using the P&L statement and the statement of cash flows, what is the capex to revenue?"),
            [Statement::Income, Statement::CashFlows]
        );
        assert_eq!(asked("How many employees did Nike have?"), []);
    }

    #[test]
    fn pages_under_the_statement_asked_for_come_first_in_their_order() {
        let mut hits = vec![
            page(
                82,
                0.9,
                "BESTBUY 2019 10K",
                "Restructuring charges\nInventory write-downs 47",
            ),
            page(80, 0.8, "BESTBUY 2019 10K\nNotes", "inventory we expect to be returned"),
            page(
                53,
                0.75,
                "BESTBUY 2019 10K\nCONSOLIDATED BALANCE SHEETS\nFebruary 2, 2019 February 3, 2018",
                "Total liabilities 9,595",
            ),
            page(
                52,
                0.7,
                "BESTBUY 2019 10K",
                "Table of Contents\nConsolidated Balance Sheets\nMerchandise inventories 5,409 5,209",
            ),
            page(
                60,
                0.6,
                "BESTBUY 2019 10K\nCONSOLIDATED STATEMENTS OF CASH FLOWS",
                "Merchandise inventories (194)",
            ),
        ];
        favour(&[Statement::Balance], &mut hits, 1.5);
        let order: Vec<u32> = hits.iter().map(|h| h.page).collect();
        assert_eq!(order, [53, 52, 82, 80, 60]);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }
}
