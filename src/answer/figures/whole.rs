//! Whether the computation read from a question answers all of it. The calculator answers a
//! question only when it has understood it whole: one that asks why, which or how, a ratio or a
//! share whose terms it read only one of ("total debt to EBITDA ratio" is not EBITDA), a change
//! where it read a level ("how much did revenue grow in FY2022"), or a part of a figure (a
//! segment, a region, per share, adjusted, a forecast) goes to the model instead, with the
//! statements' rows among its passages.

use super::items::named_at;
use super::question::{says_change, Asked, Over};

/// What a question asks that its computation leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// It asks for a reason, a choice or a description ("why", "which", "how did"), not a figure.
    Kind,
    /// It asks for a ratio or a share; the computation divides nothing.
    Ratio,
    /// It asks for a change; the computation is one year's level.
    Change,
    /// It asks for a part of the figure (a segment, a region, per share, adjusted, a forecast)
    /// that the computation's name does not hold.
    Part,
}

/// Words that ask for a reason or an account rather than a figure.
const REASON: [&str; 10] = [
    "why", "drove", "driver", "drivers", "reason", "reasons", "cause", "caused", "factors", "explain",
];

/// Phrases naming a part of a company's figure (or a figure other than the reported one), as
/// whole words.
const PARTS: [&str; 36] = [
    "segment",
    "segments",
    "region",
    "regions",
    "regional",
    "geographic",
    "geography",
    "north america",
    "americas",
    "europe",
    "emea",
    "asia",
    "apac",
    "china",
    "per share",
    "per diluted share",
    "per employee",
    "per store",
    "per unit",
    "per square",
    "adjusted",
    "non gaap",
    "organic",
    "constant currency",
    "comparable",
    "same store",
    "guidance",
    "expected",
    "expect",
    "forecast",
    "projected",
    "outlook",
    "estimated",
    "excluding",
    "pro forma",
    "subsidiary",
];

/// Phrases asking for a share of a whole.
const SHARE: [&str; 6] = [
    "% of",
    "percent of",
    "percentage of",
    "share of",
    "proportion",
    "portion of",
];

/// What the question whose main sentence is `main` (its tokens) asks that `asked` leaves out,
/// if anything.
pub fn left_out(main: &[String], asked: &Asked) -> Option<LeftOut> {
    let text = format!(" {} ", main.join(" "));
    let has = |phrase: &str| text.contains(&format!(" {phrase} "));
    if asks_other_kind(main) || REASON.iter().any(|w| has(w)) {
        return Some(LeftOut::Kind);
    }
    let name = format!(" {} ", asked.name.to_lowercase());
    if PARTS.iter().any(|p| has(p) && !name.contains(&format!(" {p} "))) {
        return Some(LeftOut::Part);
    }
    let ratio = has("ratio") || has("/") || SHARE.iter().any(|p| has(p)) || relates_two_items(main);
    if ratio && !asked.expr.divides() {
        return Some(LeftOut::Ratio);
    }
    if says_change(main) && matches!(asked.over, Over::Year(_)) && !asked.expr.has_change() {
        return Some(LeftOut::Change);
    }
    None
}

/// Whether the sentence asks for something other than a figure: it asks no "what is" or "how
/// much" anywhere, and its first asking word is "why", "which", "who", "when", "where" or "how"
/// ("how did", "how has").
fn asks_other_kind(main: &[String]) -> bool {
    let text = format!(" {} ", main.join(" "));
    let figure = [
        " what is ",
        " what was ",
        " what are ",
        " what were ",
        " whats ",
        " how much ",
        " how many ",
    ]
    .iter()
    .any(|p| text.contains(p));
    let first = main.iter().find(|t| {
        matches!(
            t.as_str(),
            "what" | "how" | "why" | "which" | "who" | "whom" | "whose" | "when" | "where"
        )
    });
    !figure && first.is_some_and(|t| t != "what")
}

/// Whether the sentence names one item "to" another ("long term debt to total liabilities",
/// "operating cash flow to current liabilities"): a ratio of the two, ratio or not.
fn relates_two_items(main: &[String]) -> bool {
    let words: Vec<&str> = main.iter().map(String::as_str).collect();
    let item_ends_at =
        |end: usize| (0..end).any(|start| named_at(&words[start..end]).is_some_and(|(_, n)| start + n == end));
    let item_starts_at = |start: usize| {
        let start = start + usize::from(words.get(start) == Some(&"the"));
        named_at(&words[start.min(words.len())..]).is_some()
    };
    (1..words.len()).any(|i| words[i] == "to" && item_ends_at(i) && item_starts_at(i + 1))
}

#[cfg(test)]
mod tests {
    use super::super::{asked, question};
    use super::*;

    /// What `question` leaves out of the computation read from it, or `Err` when nothing is read.
    fn verdict(text: &str) -> Result<Option<LeftOut>, ()> {
        let main = question::main_sentence(text).ok_or(())?;
        let asked = question::read(text).ok_or(())?;
        Ok(left_out(&main, &asked))
    }

    /// Each of `questions` is read, and leaves `kind` out: the calculator does not answer it.
    fn left_out_of_each(kind: LeftOut, questions: &[&str]) {
        for q in questions {
            assert_eq!(verdict(q), Ok(Some(kind)), "{q}");
            assert_eq!(asked(q), None, "{q}");
        }
    }

    /// Each of `questions` is read whole.
    fn whole_each(questions: &[&str]) {
        for q in questions {
            assert_eq!(verdict(q), Ok(None), "{q}");
        }
    }

    #[test]
    fn a_ratio_whose_second_term_is_not_read_is_not_answered_by_its_first() {
        left_out_of_each(
            LeftOut::Ratio,
            &[
                "Northwind, year 2021: the ratio of its debt to EBITDA, please.",
                "For fiscal 2021, give Northwind's long-term debt to total liabilities ratio.",
                "What was Northwind's operating cash flow to current liabilities in FY 2021?",
                "What is Northwind's FY2021 total liabilities to total assets ratio?",
                "What is Northwind's FY2021 long-term debt as a percentage of total assets?",
            ],
        );
        // A ratio the calculator knows, or one the question defines, is answered as that.
        let answered = [
            "What is the FY2021 quick ratio for Northwind?",
            "What is Northwind's FY2021 liquidity ratio? Liquidity ratio is defined as: total current assets / total current liabilities.",
            "What share of Northwind's FY2021 revenue went to capital expenditure, as a % of revenue?",
        ];
        whole_each(&answered);
        for q in answered {
            assert!(asked(q).is_some_and(|a| a.expr.divides()), "{q}");
        }
    }

    #[test]
    fn a_change_is_not_answered_by_a_level() {
        left_out_of_each(
            LeftOut::Change,
            &[
                "How much did Northwind's revenue grow in FY2022?",
                "Did Northwind's operating income increase in FY2022?",
                "What was the change in Northwind's inventory in FY2022?",
                "What was Northwind's FY2022 revenue compared to the year before?",
            ],
        );
        // Between two years named, the change is what is computed.
        let answered = [
            "By how much did Northwind's revenue increase from FY2021 to FY2022?",
            "Northwind's revenue: how much did it grow from FY2021 to FY2022?",
            "Did Northwind's operating income decline from FY2021 to FY2022?",
        ];
        whole_each(&answered);
        for q in answered {
            assert_eq!(asked(q).map(|a| a.over), Some(Over::Growth(2021, 2022)), "{q}");
        }
    }

    #[test]
    fn a_part_of_a_figure_is_not_answered_by_the_whole() {
        left_out_of_each(
            LeftOut::Part,
            &[
                "What was Northwind's revenue in North America in FY2022?",
                "What was the Americas segment's operating income for Northwind in FY2022?",
                "What was Northwind's FY2022 net income per share?",
                "What is Northwind's FY2022 adjusted operating income in USD millions?",
                "What revenue does Northwind expect for FY2024?",
            ],
        );
        // "Unadjusted" is the reported figure, and a company's name is no part of it.
        whole_each(&[
            "Northwind's operating income for FY2022, unadjusted, in millions: what was it?",
            "What was Contoso International's FY2022 total revenue?",
            "What are Northwind's FY2022 total assets per the balance sheet?",
        ]);
    }

    #[test]
    fn a_question_for_a_reason_or_a_choice_is_not_answered_by_a_figure() {
        left_out_of_each(
            LeftOut::Kind,
            &[
                "Why did Northwind's revenue decline in FY2022?",
                "How did Northwind's revenue change in FY2022?",
                "Which costs drove Northwind's operating income in FY2022?",
                "What was the main reason for the drop in Northwind's FY2022 net income?",
                "When did Northwind's FY2022 revenue peak?",
            ],
        );
        whole_each(&[
            "How much went to capital expenditure at Northwind in FY2022, in billions?",
            "What net income did Northwind's shareholders get in FY2022?",
            "Read the statements first. Then: how much cash from operations did Northwind report for FY2020?",
            "When looking at the cash flow statement, what is Northwind's FY2021 capital expenditure?",
        ]);
    }
}
