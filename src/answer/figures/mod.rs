//! Figures computed by Lectern from a filing's statements, not by a model. A question asking
//! for a line item in a fiscal year ("FY2019 total inventories"), a metric it defines ("defined
//! as: cash from operations / total current liabilities") or one analysts know by name (a
//! margin, a turnover, days payable outstanding, a growth rate, a CAGR, a three-year average) is
//! read into a computation over line items (`question.rs`); the document's rows of figures, each
//! with its column's year, statement and scale (`sheet.rs`), give every operand, read from the
//! row whose label names the item (`items.rs`) under the statement it belongs to; Lectern
//! evaluates the computation exactly and answers with the result first (after "Yes" or "No"
//! where the question asks one of it), then the computation with each operand cited to its row.
//! A small model picks the wrong row or the wrong year's column and invents ratios
//! (docs/figures.md, "Answers measured"); a question Lectern cannot read, or whose operands it
//! does not all find, goes to the model as before.

mod items;
mod question;
mod sheet;
mod whole;

use super::{citation_of, Answer, AnswerEvent, AnswerKind, NumberCounts};
use crate::chunk::Chunk;
use crate::llm::Finish;
use crate::search::{Hit, ScoreComponents};
pub use question::Asked;
use question::{Expr, Over, Polar, Year};
use sheet::Row;
pub use sheet::Sheet;

/// The figure `question` asks of a filing's statements, if it asks for one Lectern can compute
/// and the computation answers all the question asks (`whole.rs`).
pub fn asked(question: &str) -> Option<Asked> {
    let asked = question::read(question)?;
    let main = question::main_sentence(question)?;
    whole::left_out(&main, &asked).is_none().then_some(asked)
}

/// A figure computed from a document's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved {
    /// What was asked for and in which years, as the answer names it.
    pub name: String,
    /// The result as the answer writes it ("0.83", "65.4%", "$5,466 million").
    pub result: String,
    /// The computation with its operands, each followed by `[n]`, the row it comes from
    /// (1-based, into `rows`), and its result.
    pub working: String,
    /// The rows the operands come from, in order of first use.
    pub rows: Vec<Row>,
    /// The computation in words where it is one ("operating income + depreciation and
    /// amortization"), so that a metric with several definitions says which it used.
    pub formula: Option<String>,
    /// The answer to a yes-or-no question about the figure ("Does it have positive working
    /// capital?"), where it asks one.
    pub verdict: Option<bool>,
}

/// Evaluates a computation over a sheet's rows, noting the rows it reads.
struct Evaluation<'s> {
    sheet: &'s Sheet,
    rows: Vec<Row>,
    /// The scale assumed for a table that states none: the one asked for, else millions.
    unstated: f64,
    /// The scale every table of the filing that states one states, where they agree: that of
    /// a table whose page lost its "(In millions)" line.
    filing: Option<f64>,
    /// Whether the rows read so far have a known scale (their table's or the filing's): every
    /// operand's row does, or none does (a quotient of a row in millions and one of unknown
    /// scale means nothing).
    stated: Option<bool>,
    /// Whether a quarter's figures are read (interim rows) rather than a fiscal year's.
    interim: bool,
    /// How many years a fiscal year is after the calendar year its columns name.
    ahead: u16,
}

/// A value and how it was computed, as text.
struct Worked {
    value: f64,
    shown: String,
    /// Whether `shown` is a sum or difference (so that a product or quotient wraps it).
    sum: bool,
}

impl Evaluation<'_> {
    /// The row giving `item` in `year` as an operand: its value in units (scale applied) and its
    /// figure cited.
    fn operand(&mut self, item: items::Item, year: u16) -> Option<Worked> {
        let Some((row, figure)) = self.sheet.find(item, year - self.ahead, self.interim) else {
            // An item the statements do not write on a line of their own, from two that they do.
            let (whole, less) = items::derived(item)?;
            let (whole, less) = (self.operand(whole, year)?, self.operand(less, year)?);
            let wrap = |w: Worked| if w.sum { format!("({})", w.shown) } else { w.shown };
            return Some(Worked {
                value: whole.value - less.value,
                shown: format!("{} - {}", wrap(whole), wrap(less)),
                sum: true,
            });
        };
        let scale = row.scale.or(self.filing);
        if *self.stated.get_or_insert(scale.is_some()) != scale.is_some() {
            return None;
        }
        let at = match self
            .rows
            .iter()
            .position(|r| r.chunk == row.chunk && r.char_start == row.char_start)
        {
            Some(at) => at,
            None => {
                self.rows.push(row.clone());
                self.rows.len() - 1
            }
        };
        let value = if items::spec(item).outflow {
            figure.value.abs()
        } else {
            figure.value
        };
        let written = if items::spec(item).outflow {
            figure.written.trim_matches(['(', ')']).to_string()
        } else {
            figure.written.clone()
        };
        Some(Worked {
            value: value * scale.unwrap_or(self.unstated),
            shown: format!("{written} [{}]", at + 1),
            sum: false,
        })
    }

    fn year(year: Year, at: u16) -> u16 {
        match year {
            Year::Fixed(y) => y,
            Year::Relative(d) => (i32::from(at) + d).clamp(1900, 2100) as u16,
        }
    }

    /// `expr` in fiscal year `at`.
    fn eval(&mut self, expr: &Expr, at: u16) -> Option<Worked> {
        match expr {
            Expr::Number(n) => Some(Worked {
                value: *n,
                shown: plain(*n),
                sum: false,
            }),
            Expr::Item(item, year) => self.operand(*item, Self::year(*year, at)),
            Expr::Average(item, a, b) => {
                let (a, b) = (
                    self.operand(*item, Self::year(*a, at))?,
                    self.operand(*item, Self::year(*b, at))?,
                );
                Some(Worked {
                    value: (a.value + b.value) / 2.0,
                    shown: format!("({} + {}) / 2", a.shown, b.shown),
                    sum: false,
                })
            }
            Expr::Change(item, a, b) => {
                let (a, b) = (
                    self.operand(*item, Self::year(*a, at))?,
                    self.operand(*item, Self::year(*b, at))?,
                );
                Some(Worked {
                    value: b.value - a.value,
                    shown: format!("({} - {})", b.shown, a.shown),
                    sum: false,
                })
            }
            Expr::Op(left, op, right) => {
                let (l, r) = (self.eval(left, at)?, self.eval(right, at)?);
                let value = match op {
                    '+' => l.value + r.value,
                    '-' => l.value - r.value,
                    '*' => l.value * r.value,
                    _ if r.value == 0.0 => return None,
                    _ => l.value / r.value,
                };
                let product = matches!(op, '*' | '/');
                let wrap = |w: &Worked, right_side: bool| {
                    let nested_quotient = right_side && *op == '/' && w.shown.contains(" / ") && !w.sum;
                    if (product && w.sum) || nested_quotient || (right_side && *op == '-' && w.sum) {
                        format!("({})", w.shown)
                    } else {
                        w.shown.clone()
                    }
                };
                Some(Worked {
                    value,
                    shown: format!("{} {op} {}", wrap(&l, false), wrap(&r, true)),
                    sum: !product,
                })
            }
        }
    }
}

/// A number as a computation writes it: whole numbers without a point.
fn plain(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

/// `value` with `decimals` and thousands separators.
fn written(value: f64, decimals: u32) -> String {
    let plain = format!("{:.*}", decimals as usize, value.abs());
    let (whole, fraction) = plain
        .split_once('.')
        .map_or((plain.as_str(), None), |(w, f)| (w, Some(f)));
    let mut out = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    if value < 0.0 && out.chars().any(|c| c.is_ascii_digit() && c != '0') {
        out.insert(0, '-');
    }
    out
}

/// What `asked` comes to in `sheet`, if every operand is there.
pub fn solve(asked: &Asked, sheet: &Sheet, question: &str) -> Option<Solved> {
    // A quarter's figures come from the quarterly report of that fiscal quarter, whose columns
    // name calendar years (a year early where the fiscal year ends before the calendar's).
    let mut ahead = 0;
    if let Some(quarter) = asked.quarter {
        let last = match asked.over {
            Over::Year(y) | Over::Growth(_, y) => y,
            Over::Average(..) | Over::Cagr(..) => return None,
        };
        let report = sheet.fiscal_quarter()?;
        if (report.quarter, report.fiscal_year) != (quarter, last) {
            return None;
        }
        ahead = report.ahead;
    }
    let period = |y: u16| match asked.quarter {
        Some(q) => format!("Q{q} FY{y}"),
        None => format!("FY{y}"),
    };
    let mut evaluation = Evaluation {
        sheet,
        rows: Vec::new(),
        unstated: asked.scale.unwrap_or(1e6),
        filing: sheet.filing_scale(),
        stated: None,
        interim: asked.quarter.is_some(),
        ahead,
    };
    let expr = &asked.expr;
    // A growth of an amount of money, with the amount it grew by.
    let (value, working, years, grown) = match asked.over {
        Over::Year(y) => {
            let w = evaluation.eval(expr, y)?;
            (w.value, w.shown, period(y), None)
        }
        Over::Average(a, b) => {
            let mut parts = Vec::new();
            let mut sum = 0.0;
            for y in a..=b {
                let w = evaluation.eval(expr, y)?;
                sum += w.value;
                parts.push(format!("FY{y}: {}", w.shown));
            }
            let n = f64::from(b - a + 1);
            (
                sum / n,
                format!("the mean of {}", parts.join("; ")),
                format!("FY{a} to FY{b}, average"),
                None,
            )
        }
        Over::Growth(a, b) | Over::Cagr(a, b) => {
            let (from, to) = (evaluation.eval(expr, a)?, evaluation.eval(expr, b)?);
            if from.value == 0.0 {
                return None;
            }
            let cagr = matches!(asked.over, Over::Cagr(..));
            if !cagr && expr.divides() {
                // A ratio or a rate changes by points, not by a share of itself.
                let (scale, unit) = if asked.percent { (100.0, "%") } else { (1.0, "") };
                let decimals = asked.decimals.unwrap_or(if asked.percent { 1 } else { 2 });
                let at = |v: f64| format!("{}{unit}", written(v * scale, decimals));
                let points = (to.value - from.value) * scale;
                let sign = if points >= 0.0 { "+" } else { "" };
                let change = format!(
                    "{sign}{}{}",
                    written(points, decimals),
                    if asked.percent { " percentage points" } else { "" }
                );
                let (pa, pb) = (period(a), period(b));
                return Some(Solved {
                    name: format!("{} ({pa} to {pb})", asked.name),
                    result: format!(
                        "{} in {pb}, against {} in {pa} ({change})",
                        at(to.value),
                        at(from.value)
                    ),
                    working: format!(
                        "{pa}: {} = {}; {pb}: {} = {}",
                        from.shown,
                        at(from.value),
                        to.shown,
                        at(to.value)
                    ),
                    rows: evaluation.rows,
                    formula: formula(expr),
                    verdict: verdict(asked.polar, to.value - from.value),
                });
            }
            let value = if cagr {
                if from.value < 0.0 || to.value < 0.0 {
                    return None;
                }
                (to.value / from.value).powf(1.0 / f64::from(b - a)) - 1.0
            } else {
                (to.value - from.value) / from.value.abs()
            };
            let wrap = |w: &Worked| {
                if [" + ", " - ", " * ", " / "].iter().any(|op| w.shown.contains(op)) {
                    format!("({})", w.shown)
                } else {
                    w.shown.clone()
                }
            };
            let working = if cagr {
                format!("({} / {})^(1/{}) - 1", wrap(&to), wrap(&from), b - a)
            } else {
                format!("({} - {}) / {}", wrap(&to), wrap(&from), wrap(&from))
            };
            let grown = (!cagr).then_some(to.value - from.value);
            (value, working, format!("{} to {}", period(a), period(b)), grown)
        }
    };
    if !value.is_finite() {
        return None;
    }
    let money = !asked.percent && !expr.divides();
    // An amount from tables that state no scale is not given one: "8,489" may be dollars,
    // thousands or millions. Where the question names the scale, the answer says it was assumed.
    let unstated_scale = evaluation.stated == Some(false);
    if money && unstated_scale && asked.scale.is_none() {
        return None;
    }
    // The amount a figure grew by, where its scale is known.
    let grown = grown.filter(|_| !unstated_scale || asked.scale.is_some());
    let amount = |value: f64, decimals: Option<u32>| {
        let scale = asked
            .scale
            .or_else(|| evaluation.rows.first().and_then(|r| r.scale))
            .or(evaluation.filing)
            .unwrap_or(evaluation.unstated);
        let word = scale_word(scale);
        let decimals = decimals.unwrap_or(if scale >= 1e9 { 1 } else { 0 });
        let dollar = if question.to_lowercase().contains("usd") || question.contains('$') {
            "$"
        } else {
            ""
        };
        let amount = written(value / scale, decimals);
        match amount.strip_prefix('-') {
            Some(size) => format!("-{dollar}{size}{word}"),
            None => format!("{dollar}{amount}{word}"),
        }
    };
    let result = if asked.percent {
        let percent = format!("{}%", written(value * 100.0, asked.decimals.unwrap_or(1)));
        match grown {
            Some(by) if by >= 0.0 => format!("{percent} (+{})", amount(by, None)),
            Some(by) => format!("{percent} ({})", amount(by, None)),
            None => percent,
        }
    } else if money {
        amount(value, asked.decimals)
    } else {
        written(value, asked.decimals.unwrap_or(2))
    };
    let assumed = match (money && unstated_scale, asked.scale) {
        (true, Some(scale)) => format!(
            " (the statements state no scale: read in {}s, as the question asks)",
            scale_word(scale).trim()
        ),
        _ => String::new(),
    };
    // A change is named as one: "Operating income growth", "Total revenue CAGR".
    let measure = match asked.over {
        Over::Growth(..) => " growth",
        Over::Cagr(..) => " CAGR",
        _ => "",
    };
    Some(Solved {
        name: format!("{}{measure} ({years})", asked.name),
        working: format!("{working} = {result}{assumed}"),
        result,
        rows: evaluation.rows,
        formula: formula(expr),
        verdict: verdict(asked.polar, value),
    })
}

/// The word an amount at `scale` is written with: " million" for 1e6.
fn scale_word(scale: f64) -> &'static str {
    match scale {
        s if s >= 1e9 => " billion",
        s if s >= 1e6 => " million",
        s if s >= 1e3 => " thousand",
        _ => "",
    }
}

/// The computation `expr` in words, where it is one rather than a single item.
fn formula(expr: &Expr) -> Option<String> {
    matches!(expr, Expr::Op(..)).then(|| expr.formula())
}

/// The answer to what `polar` asks of a figure whose value (or change, for a rise) is `value`.
fn verdict(polar: Option<Polar>, value: f64) -> Option<bool> {
    match polar? {
        Polar::Positive(above) | Polar::Rose(above) if value != 0.0 => Some((value > 0.0) == above),
        _ => None,
    }
}

/// The answer for `solved`: the result first, then the computation with each operand cited to
/// its row, which `chunks` (the sheet's) hold in `document` (a hit of the document, whose
/// document and folder the citations name). Returns the answer and the cited rows as hits.
pub fn answer(
    solved: &Solved,
    chunks: &[Chunk],
    document: &Hit,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> (Answer, Vec<Hit>) {
    let hits: Vec<Hit> = solved
        .rows
        .iter()
        .map(|row| Hit {
            chunk_id: chunks[row.chunk].id.0.clone(),
            page: row.page,
            char_start: row.char_start,
            char_end: row.char_end,
            text: row.line.clone(),
            score: document.score,
            components: ScoreComponents::default(),
            context: chunks[row.chunk].context.clone(),
            ..document.clone()
        })
        .collect();
    let mut name = solved.name.clone();
    if let Some(first) = name.get(..1) {
        name.replace_range(..1, &first.to_uppercase());
    }
    let mut working = solved.working.clone();
    for n in (1..=hits.len()).rev() {
        working = working.replace(&format!("[{n}]"), &format!("[^{n}]"));
    }
    let verdict = match solved.verdict {
        Some(true) => "Yes. ",
        Some(false) => "No. ",
        None => "",
    };
    let formula = solved.formula.as_ref().map(|f| format!(" as {f},")).unwrap_or_default();
    let body = format!(
        "{verdict}{name}: **{}**.\n\nComputed by Lectern{formula} from the statements' rows cited: {working}.",
        solved.result
    );
    // Footnotes resolve before the text that marks them, as a model's answer sends them.
    let citations: Vec<_> = hits
        .iter()
        .enumerate()
        .map(|(i, hit)| citation_of(i + 1, hit))
        .collect();
    for citation in &citations {
        on_event(AnswerEvent::Citation {
            citation: citation.clone(),
        });
    }
    on_event(AnswerEvent::Text { text: body.clone() });
    let answer = Answer {
        kind: AnswerKind::Computed,
        body,
        citations,
        finish: Finish::Stop,
        backend: String::new(),
        passages_supplied: 0,
        numbers: NumberCounts {
            quoted: hits.len() as u32,
            computed: 1,
            withheld: 0,
        },
        unconfirmed: None,
    };
    (answer, hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ChunkId;

    fn chunk(page: u32, context: &str, text: &str) -> Chunk {
        Chunk {
            id: ChunkId(format!("c{page}")),
            page,
            char_start: 0,
            char_end: text.chars().count() as u32,
            text: text.into(),
            context: context.into(),
        }
    }

    fn acme() -> Vec<Chunk> {
        vec![
            chunk(
                50,
                "ACME 10-K",
                "CONSOLIDATED STATEMENTS OF OPERATIONS\n(In thousands)\nYears ended 2017 2016 2015\n\
                 Total revenue 6,240,150 5,102,380 4,411,920\nCost of revenue 902,114 801,550 690,300\n\
                 Operating income 1,611,240 1,020,530 455,870\nNet income $ 1,204,460 $ 688,120 $ 301,050",
            ),
            chunk(
                52,
                "ACME 10-K",
                "CONSOLIDATED BALANCE SHEETS\n(In thousands)\nDecember 1, 2017 December 2, 2016\n\
                 Cash and cash equivalents 900 700\nInventories 1,000 800\nTotal current assets 7,000 5,000\n\
                 Total assets 14,000,000 12,000,000\nTotal current liabilities 3,702,415 2,950,270\n\
                 Total stockholders' equity 8,000,000 7,000,000\n\
                 Total liabilities and stockholders' equity 14,000,000 12,000,000",
            ),
            chunk(
                56,
                "ACME 10-K\nConsolidated Statements of Cash Flows",
                "(In thousands)\n2017 2016 2015\nNet cash provided by operating activities 3,050,610 2,310,400 1,540,220\n\
                 Depreciation and amortization 310,000 290,000 270,000\n\
                 Purchases of property and equipment (190,450) (214,370) (196,210)",
            ),
        ]
    }

    fn solved(question: &str) -> Solved {
        let asked = asked(question).unwrap_or_else(|| panic!("not read: {question}"));
        solve(&asked, &Sheet::of(&acme()), question).unwrap_or_else(|| panic!("not solved: {asked:?}"))
    }

    #[test]
    fn a_defined_ratio_is_computed_from_the_rows_of_its_statements() {
        let s = solved(
            "What is the FY2017 operating cash flow ratio for Acme? Operating cash flow ratio is defined as: cash \
             from operations / total current liabilities. Round your answer to two decimal places.",
        );
        assert_eq!(s.result, "0.82");
        assert_eq!(s.working, "3,050,610 [1] / 3,702,415 [2] = 0.82");
        assert_eq!((s.rows[0].page, s.rows[1].page), (56, 52));
    }

    #[test]
    fn growth_averages_and_amounts_are_written_as_asked() {
        let s = solved(
            "What is Acme's year-over-year change in operating income from FY2016 to FY2017 (in units of \
             percents and round to one decimal place)?",
        );
        assert_eq!(s.result, "57.9% (+590,710 thousand)");
        assert_eq!(s.name, "operating income growth (FY2016 to FY2017)");
        assert_eq!(
            s.working,
            "(1,611,240 [1] - 1,020,530 [1]) / 1,020,530 [1] = 57.9% (+590,710 thousand)"
        );
        assert_eq!(s.formula, None);
        let s = solved("What is the FY2015 - FY2017 3 year average of capex as a % of revenue for Acme?");
        assert_eq!(s.result, "3.9%");
        let s = solved(
            "What is Acme's FY2017 free cash flow in USD millions? FCF is defined as: cash from operations - capex.",
        );
        assert_eq!(s.result, "$2,860 million");
        assert_eq!(s.working, "3,050,610 [1] - 190,450 [2] = $2,860 million");
        let s = solved("What is the FY2017 return on assets for Acme? Round to two decimal places.");
        assert_eq!(s.result, "0.09");
        assert_eq!(
            s.working,
            "1,204,460 [1] / ((12,000,000 [2] + 14,000,000 [2]) / 2) = 0.09"
        );
    }

    #[test]
    fn a_metric_with_several_definitions_says_which_it_computed() {
        let s = solved("What is Acme's FY2017 EBITDA in USD millions?");
        assert_eq!(s.result, "$1,921 million");
        assert_eq!(
            s.formula.as_deref(),
            Some("operating income + depreciation and amortization")
        );
        let s = solved("What is the FY2017 quick ratio for Acme?");
        assert_eq!(
            s.formula.as_deref(),
            Some("(total current assets - inventories) / total current liabilities")
        );
        let document = Hit {
            document: crate::catalog::DocumentId::new_random(),
            document_name: "acme-10k.pdf".into(),
            folder: crate::catalog::FolderId(1),
            folder_path: "Filings".into(),
            chunk_id: String::new(),
            page: 1,
            char_start: 0,
            char_end: 0,
            text: String::new(),
            score: 1.0,
            components: ScoreComponents::default(),
            remote: None,
            context: String::new(),
        };
        let (answer, _) = super::answer(&s, &acme(), &document, &mut |_| {});
        assert!(
            answer.body.contains(
                "Computed by Lectern as (total current assets - inventories) / total current liabilities, from"
            ),
            "{}",
            answer.body
        );
    }

    #[test]
    fn an_amount_from_tables_that_state_no_scale_is_given_none() {
        let unstated: Vec<Chunk> = acme()
            .into_iter()
            .map(|c| chunk(c.page, &c.context, &c.text.replace("(In thousands)\n", "")))
            .collect();
        let solve_in = |chunks: &[Chunk], q: &str| solve(&asked(q).expect("read"), &Sheet::of(chunks), q);
        assert_eq!(solve_in(&unstated, "What is Acme's FY2017 total revenue?"), None);
        let s = solve_in(&unstated, "What is Acme's FY2017 total revenue in USD millions?").expect("solved");
        assert_eq!(
            s.working,
            "6,240,150 [1] = $6,240,150 million (the statements state no scale: read in millions, as the question asks)"
        );
        // A ratio of rows of one scale is the same in any.
        let q = "What is the FY2017 operating cash flow ratio for Acme? Operating cash flow ratio is defined as: cash \
                 from operations / total current liabilities.";
        assert_eq!(solve_in(&unstated, q).expect("solved").result, "0.82");
        // A table whose page lost its scale is read in the one the filing's other tables agree on.
        let lost: Vec<Chunk> = acme()
            .into_iter()
            .map(|c| match c.page {
                52 => chunk(c.page, &c.context, &c.text.replace("(In thousands)\n", "")),
                _ => c,
            })
            .collect();
        let q = "What is the FY2017 return on assets for Acme? Round to two decimal places.";
        assert_eq!(solve_in(&lost, q).expect("solved").result, "0.09");
        // A row of a known scale and one of none are not put in one computation.
        let mixed: Vec<Chunk> = lost
            .iter()
            .map(|c| match c.page {
                50 => chunk(c.page, &c.context, &c.text.replace("(In thousands)", "(In millions)")),
                _ => c.clone(),
            })
            .collect();
        assert_eq!(solve_in(&mixed, q), None);
    }

    #[test]
    fn liabilities_no_line_totals_are_computed_from_the_lines_that_do() {
        let s = solved("What is Acme's total long-term liabilities in FY2017?");
        assert_eq!(s.result, "2,297,585 thousand");
        assert_eq!(
            s.working,
            "(14,000,000 [1] - 8,000,000 [2]) - 3,702,415 [3] = 2,297,585 thousand"
        );
        assert_eq!(
            solved("What is Acme's FY2017 cash ratio?").working,
            "900 [1] / 3,702,415 [2] = 0.00"
        );
    }

    #[test]
    fn a_year_the_statements_do_not_hold_is_not_computed() {
        let question = "What is Acme's FY2019 total current liabilities?";
        assert_eq!(solve(&asked(question).unwrap(), &Sheet::of(&acme()), question), None);
    }

    #[test]
    fn a_yes_or_no_question_is_answered_by_the_figures_sign_first() {
        let q = "Does Acme have positive working capital based on FY2017 data?";
        let s = solved(q);
        assert_eq!((s.result.as_str(), s.verdict), ("-3,695,415 thousand", Some(false)));
        assert_eq!(
            solved("Does Acme have negative working capital in FY2017?").verdict,
            Some(true)
        );
        let q = "Did Acme's operating income decrease from FY2016 to FY2017?";
        assert_eq!(solved(q).verdict, Some(false));
        assert_eq!(solved("What is Acme's FY2017 working capital?").verdict, None);
    }

    /// A quarterly report: its cover, a statement of the quarter and the half year, and a
    /// balance sheet at the quarter's end and the year's.
    fn acme_quarter() -> Vec<Chunk> {
        vec![
            chunk(
                1,
                "ACME 10-Q",
                "FORM 10-Q\nQUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)\nFor the quarterly period ended June 30, 2023",
            ),
            chunk(
                3,
                "ACME 10-Q",
                "CONSOLIDATED STATEMENTS OF INCOME\n(In millions)\nThree Months Ended June 30, Six Months Ended June 30,\n\
                 2023 2022 2023 2022\nNet sales 8,000 7,500 15,000 14,000\nNet income 1,640 1,500 2,900 2,800",
            ),
            chunk(
                4,
                "ACME 10-Q",
                "CONSOLIDATED BALANCE SHEETS\n(In millions)\nJune 30, 2023 December 31, 2022\n\
                 Total current assets 15,754 14,688\nTotal current liabilities 10,936 9,523",
            ),
        ]
    }

    #[test]
    fn a_quarter_is_read_from_its_quarterly_report_and_a_fiscal_year_is_not() {
        let sheet = Sheet::of(&acme_quarter());
        let solve_q = |q: &str| solve(&asked(q).unwrap_or_else(|| panic!("not read: {q}")), &sheet, q);
        let s = solve_q("What were Acme's net sales in Q2 of FY2023?").expect("the quarter's net sales");
        assert_eq!(
            (s.name.as_str(), s.result.as_str()),
            ("net sales (Q2 FY2023)", "8,000 million")
        );
        let s = solve_q("Did Acme's net profit margin increase from Q2 FY2022 to Q2 FY2023?").expect("a change");
        assert_eq!(s.verdict, Some(true));
        assert_eq!(
            s.result,
            "20.5% in Q2 FY2023, against 20.0% in Q2 FY2022 (+0.5 percentage points)"
        );
        let s = solve_q("What is Acme's working capital as of 2023 Q2?").expect("the quarter's balance");
        assert_eq!(s.result, "4,818 million");
        // Another quarter's report, a fiscal year's figures, and a quarter in a 10-K are not read.
        assert_eq!(solve_q("What were Acme's net sales in Q1 of FY2023?"), None);
        assert_eq!(solve_q("What were Acme's FY2022 net sales?"), None);
        let q = "What were Acme's total revenue in Q4 of FY2017?";
        assert_eq!(solve(&asked(q).unwrap(), &Sheet::of(&acme()), q), None);

        // A fiscal year ending on June 30: the quarter ended December 31, 2022 is Q2 of FY2023,
        // in the columns of 2022.
        let june: Vec<Chunk> = acme_quarter()
            .into_iter()
            .map(|c| {
                let text = c
                    .text
                    .replace("period ended June 30, 2023", "period ended December 31, 2022")
                    .replace(
                        "Ended June 30, Six Months Ended June 30,",
                        "Ended December 31, Six Months Ended December 31,",
                    )
                    .replace("2023 2022 2023 2022", "2022 2021 2022 2021")
                    .replace("June 30, 2023 December 31, 2022", "December 31, 2022 June 30, 2022");
                chunk(c.page, &c.context, &text)
            })
            .collect();
        let q = "What were Acme's net sales in Q2 of FY2023?";
        let s = solve(&asked(q).unwrap(), &Sheet::of(&june), q).expect("the fiscal quarter's net sales");
        assert_eq!(s.result, "8,000 million");
        let q = "What were Acme's net sales in Q2 of FY2022?";
        assert_eq!(solve(&asked(q).unwrap(), &Sheet::of(&june), q), None);
    }

    #[test]
    fn numbers_are_written_with_separators_and_a_sign() {
        assert_eq!(written(1234567.891, 2), "1,234,567.89");
        assert_eq!(written(-0.004, 2), "0.00");
        assert_eq!(written(-12.5, 1), "-12.5");
    }
}
