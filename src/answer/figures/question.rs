//! What a question asks of a filing's statements, read from its words: a figure ("FY2019 total
//! inventories"), a metric the question defines ("Operating cash flow ratio is defined as: cash
//! from operations / total current liabilities") or one analysts know by name (a margin, a
//! turnover, days payable outstanding), in a fiscal year or a quarter ("Q2 of FY2023"), as a
//! change or a growth rate between two, or averaged over several years; whether it asks yes or
//! no of the figure ("Does it have positive working capital?"); and how the answer is to be
//! written (a percent, its decimals, in millions or billions).

use super::items::{named_at, Item};

/// A fiscal year an operand is read in: a year the question names, or one counted from the year
/// being evaluated (a template's "average between the year before and the year").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Year {
    Fixed(u16),
    Relative(i32),
}

/// A computation over line items.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Number(f64),
    Item(Item, Year),
    /// The mean of an item's values at the end of two years.
    Average(Item, Year, Year),
    /// An item's value in the second year less its value in the first.
    Change(Item, Year, Year),
    Op(Box<Expr>, char, Box<Expr>),
}

impl Expr {
    fn op(a: Expr, op: char, b: Expr) -> Expr {
        Expr::Op(Box::new(a), op, Box::new(b))
    }

    fn item(item: Item) -> Expr {
        Expr::Item(item, Year::Relative(0))
    }

    fn average(item: Item) -> Expr {
        Expr::Average(item, Year::Relative(-1), Year::Relative(0))
    }

    /// Whether it divides: a ratio, not an amount of money.
    pub fn divides(&self) -> bool {
        match self {
            Expr::Op(a, op, b) => *op == '/' || a.divides() || b.divides(),
            _ => false,
        }
    }

    /// Whether it reads an item in a year other than the one evaluated (an average over two
    /// years' ends, a change), which a quarter's columns do not hold.
    fn spans_years(&self) -> bool {
        match self {
            Expr::Number(_) => false,
            Expr::Item(_, year) => *year != Year::Relative(0),
            Expr::Average(..) | Expr::Change(..) => true,
            Expr::Op(a, _, b) => a.spans_years() || b.spans_years(),
        }
    }

    /// The computation in words, its items as an answer names them: "(total current assets -
    /// inventories) / total current liabilities", "365 * average inventories / cost of sales".
    pub fn formula(&self) -> String {
        let name = |item: &Item| super::items::spec(*item).name;
        let year = |year: &Year| match year {
            Year::Fixed(y) => format!("FY{y} "),
            Year::Relative(0) => String::new(),
            Year::Relative(-1) => "the year before's ".to_string(),
            Year::Relative(d) => format!("the year {d:+}'s "),
        };
        match self {
            Expr::Number(n) => format!("{n}"),
            Expr::Item(item, at) => format!("{}{}", year(at), name(item)),
            Expr::Average(item, ..) => format!("average {}", name(item)),
            Expr::Change(item, ..) => format!("change in {}", name(item)),
            Expr::Op(a, op, b) => {
                let sum = |e: &Expr| matches!(e, Expr::Op(_, '+' | '-', _));
                let wrap = |e: &Expr, right: bool| {
                    let needs = (matches!(op, '*' | '/') && sum(e))
                        || (right && *op == '-' && sum(e))
                        || (right && *op == '/' && matches!(e, Expr::Op(_, '*' | '/', _)));
                    if needs {
                        format!("({})", e.formula())
                    } else {
                        e.formula()
                    }
                };
                format!("{} {op} {}", wrap(a, false), wrap(b, true))
            }
        }
    }

    /// Whether it holds the change of an item between two years anywhere.
    pub fn has_change(&self) -> bool {
        match self {
            Expr::Change(..) => true,
            Expr::Op(a, _, b) => a.has_change() || b.has_change(),
            _ => false,
        }
    }

    fn items(&self) -> usize {
        match self {
            Expr::Number(_) => 0,
            Expr::Item(..) | Expr::Average(..) | Expr::Change(..) => 1,
            Expr::Op(a, _, b) => a.items() + b.items(),
        }
    }
}

/// Over which years the metric is evaluated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Over {
    Year(u16),
    /// The mean of the yearly values from the first year to the second.
    Average(u16, u16),
    /// The change from the first year's value to the second's, as a share of the first's.
    Growth(u16, u16),
    /// The compound annual growth rate from the first year to the second.
    Cagr(u16, u16),
}

/// A figure a question asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// What is asked for, in the question's words ("operating cash flow ratio").
    pub name: String,
    pub expr: Expr,
    pub over: Over,
    /// Written as a percent.
    pub percent: bool,
    /// Decimals asked for, if the question says.
    pub decimals: Option<u32>,
    /// The scale an amount of money is asked in (1e6 for "in USD millions").
    pub scale: Option<f64>,
    /// The fiscal quarter (1-4) whose figures are asked for, where the question names one ("Q2
    /// of FY2023"): its years are the quarter's, read from a quarterly report's columns.
    pub quarter: Option<u8>,
    /// What a yes-or-no question asks of the result: "Does it have positive working capital?",
    /// "Did its revenue increase?".
    pub polar: Option<Polar>,
}

/// What a yes-or-no question asks of its figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Polar {
    /// Whether the figure is above zero ("positive") or below ("negative").
    Positive(bool),
    /// Whether the figure rose ("increase", "grow") or fell ("decrease", "decline") between the
    /// two years.
    Rose(bool),
}

/// The sentence of `question` that asks (the first asking "what is" or "how much", else the
/// first), as its tokens.
pub(super) fn main_sentence(question: &str) -> Option<Vec<String>> {
    let sentences = sentences(question);
    main_of(&sentences).cloned()
}

fn main_of(sentences: &[Vec<String>]) -> Option<&Vec<String>> {
    sentences
        .iter()
        .find(|s| {
            let t = s.join(" ");
            ["what is", "what was", "what are", "how much", "whats"]
                .iter()
                .any(|w| t.contains(w))
        })
        .or_else(|| sentences.first())
}

/// The figure `question` asks of a filing's statements as Lectern reads it, if it reads one it
/// can compute; whether that is all the question asks is `whole.rs`'s to say.
pub(super) fn read(question: &str) -> Option<Asked> {
    let sentences = sentences(question);
    let definitions: Vec<(Vec<String>, Vec<String>)> = sentences.iter().filter_map(|s| definition(s)).collect();
    let main = main_of(&sentences)?;
    let all_tokens = tokens(question);
    let all = all_tokens.join(" ");
    // A half's or year-to-date figures are not columns Lectern reads; a quarter's are read from
    // a quarterly report.
    let part_of_year = all.split(' ').any(|w| matches!(w, "half" | "h1" | "h2" | "ytd"))
        || ["six months", "nine months"].iter().any(|w| all.contains(w));
    let quarter = quarter(&all_tokens);
    let unnamed_quarter = all.split(' ').any(|w| w.starts_with("quarter")) || all.contains("three months");
    if part_of_year || (quarter.is_none() && unnamed_quarter) {
        return None;
    }
    let over = match (over(main), quarter) {
        (Some(over), _) => over,
        (None, Some((_, Some(year)))) => Over::Year(year),
        (None, _) => return None,
    };
    let quarter = quarter.map(|(q, _)| q);
    let (name, expr, template_percent) = metric(main, &definitions)?;
    if let (Over::Growth(..) | Over::Cagr(..), true) = (over, expr.items() == 0) {
        return None;
    }
    let quarter_fits = matches!(over, Over::Year(_) | Over::Growth(..)) && !expr.spans_years();
    if quarter.is_some() && !quarter_fits {
        return None;
    }
    let percent = template_percent
        || matches!(over, Over::Growth(..) | Over::Cagr(..))
        || ["percent", "percents", "percentage", "as a %", "in %", "% margin", "%"]
            .iter()
            .any(|w| all.contains(w));
    let decimals = decimals(&all);
    let scale = if expr.divides() || percent {
        None
    } else if all.contains("billion") {
        Some(1e9)
    } else if all.contains("million") {
        Some(1e6)
    } else if all.contains("thousand") {
        Some(1e3)
    } else {
        None
    };
    Some(Asked {
        name,
        expr,
        over,
        percent,
        decimals,
        scale,
        quarter,
        polar: polar(&all_tokens, over),
    })
}

/// The fiscal quarter `tokens` name, with its year where they say it beside the quarter: "q2 of
/// fy2023", "fy2023q2", "2021 q1", "the second fiscal quarter of 2023".
fn quarter(tokens: &[String]) -> Option<(u8, Option<u16>)> {
    let number = |t: &str| match t {
        "first" | "1st" => Some(1),
        "second" | "2nd" => Some(2),
        "third" | "3rd" => Some(3),
        "fourth" | "4th" => Some(4),
        _ => None,
    };
    let q_of = |t: &str| match t.strip_prefix('q')?.parse::<u8>() {
        Ok(q @ 1..=4) => Some(q),
        _ => None,
    };
    let near_year = |i: usize| {
        (i.saturating_sub(2)..(i + 4).min(tokens.len()))
            .filter(|&j| j != i)
            .find_map(|j| year_in(&tokens[j]))
    };
    for (i, t) in tokens.iter().enumerate() {
        // "fy2023q2", "2023q2"
        if let Some((y, q)) = t.split_once('q').filter(|(y, _)| !y.is_empty()) {
            if let (Some(y), Some(q)) = (year_in(y), q_of(&format!("q{q}"))) {
                return Some((q, Some(y)));
            }
        }
        if let Some(q) = q_of(t) {
            return Some((q, near_year(i)));
        }
        if t == "quarter" && i > 0 {
            let ordinal = tokens[..i].iter().rev().take(2).find_map(|w| number(w));
            if let Some(q) = ordinal {
                return Some((q, near_year(i)));
            }
        }
    }
    None
}

/// What a yes-or-no question (one opening with "does", "did", "has", "is" ...) asks of its
/// figure, where its words say it plainly.
fn polar(tokens: &[String], over: Over) -> Option<Polar> {
    let opens = tokens.first().is_some_and(|t| {
        matches!(
            t.as_str(),
            "does" | "did" | "do" | "has" | "have" | "had" | "is" | "was" | "were" | "are"
        )
    });
    let has = |words: &[&str]| tokens.iter().any(|t| words.contains(&t.as_str()));
    if !opens {
        return None;
    }
    match over {
        Over::Year(_) if has(&["positive"]) => Some(Polar::Positive(true)),
        Over::Year(_) if has(&["negative"]) => Some(Polar::Positive(false)),
        Over::Growth(..) if has(&["increase", "increased", "grow", "grew", "rise", "rose"]) => Some(Polar::Rose(true)),
        Over::Growth(..) if has(&["decrease", "decreased", "decline", "declined", "fall", "fell"]) => {
            Some(Polar::Rose(false))
        }
        _ => None,
    }
}

/// The question's sentences, each as its tokens.
fn sentences(question: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = question.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if (c == '?' || c == '!' || (c == '.' && next_space)) && !current.trim().is_empty() {
            out.push(tokens(&current));
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        out.push(tokens(&current));
    }
    out
}

/// Lower-case words and the signs of a computation (`+ - * / ( ) % :`); "&" is "and", an
/// apostrophe is dropped, a hyphen inside a word joins nothing ("year-over-year" is three words),
/// a number keeps its decimal point and loses its separators.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let digit_around = prev.is_some_and(|p| p.is_ascii_digit()) && next.is_some_and(|n| n.is_ascii_digit());
        match c {
            '\'' | '’' => {}
            ',' | '.' if digit_around => {
                if c == '.' {
                    word.push('.');
                }
            }
            '&' => {
                flush(&mut word, &mut out);
                out.push("and".into());
            }
            '-' | '–' | '—' => {
                let spaced = prev.is_none_or(char::is_whitespace) || next.is_none_or(char::is_whitespace);
                flush(&mut word, &mut out);
                if spaced {
                    out.push("-".into());
                }
            }
            '+' | '*' | '/' | '(' | ')' | '%' | ':' | '×' | '÷' => {
                flush(&mut word, &mut out);
                out.push(match c {
                    '×' => "*".to_string(),
                    '÷' => "/".to_string(),
                    c => c.to_string(),
                });
            }
            c if c.is_alphanumeric() => word.extend(c.to_lowercase()),
            _ => flush(&mut word, &mut out),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A sentence defining a name: "X is defined as: EXPR", "X here is defined as EXPR", "Define X as
/// EXPR"; the name's tokens and the expression's.
fn definition(sentence: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let at = |w: &str| sentence.iter().position(|t| t == w);
    let strip = |tokens: &[String]| -> Vec<String> {
        tokens
            .iter()
            .filter(|t| !matches!(t.as_str(), ":" | "here" | "is" | "the"))
            .cloned()
            .collect()
    };
    if sentence.first().is_some_and(|t| t == "define") {
        let as_at = at("as")?;
        return Some((strip(&sentence[1..as_at]), strip(&sentence[as_at + 1..])));
    }
    let defined = sentence.windows(2).position(|w| w[0] == "defined" && w[1] == "as")?;
    let name_start = sentence[..defined]
        .iter()
        .rposition(|t| matches!(t.as_str(), "where" | "and" | "with"))
        .map_or(0, |i| i + 1);
    Some((strip(&sentence[name_start..defined]), strip(&sentence[defined + 2..])))
}

/// A fiscal year a token names: "fy2019", "2019" after "fy" or "fiscal".
fn year_of(tokens: &[String], i: usize) -> Option<u16> {
    let t = tokens[i].as_str();
    let named = t.starts_with("fy") || (i > 0 && matches!(tokens[i - 1].as_str(), "fy" | "fiscal" | "year"));
    named.then(|| year_in(t)).flatten()
}

/// The year a token writes, with or without "fy" before it: "fy2023", "2023".
fn year_in(t: &str) -> Option<u16> {
    let digits = t.strip_prefix("fy").unwrap_or(t);
    (digits.len() == 4 && digits.starts_with("20") && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The years `tokens` name, in order.
fn years(tokens: &[String]) -> Vec<u16> {
    (0..tokens.len()).filter_map(|i| year_of(tokens, i)).collect()
}

/// Over which years the main sentence asks.
fn over(main: &[String]) -> Option<Over> {
    let years = years(main);
    let text = main.join(" ");
    let (&first, &last) = (years.iter().min()?, years.iter().max()?);
    let two = first != last;
    Some(if two && (text.contains("cagr") || text.contains("compound annual")) {
        Over::Cagr(first, last)
    } else if two && text.contains("average") {
        Over::Average(first, last)
    } else if two && says_change(main) {
        Over::Growth(first, last)
    } else {
        Over::Year(*years.last()?)
    })
}

/// Words of a change between two periods.
const CHANGE: [&str; 28] = [
    "change",
    "changed",
    "changes",
    "grow",
    "grew",
    "grown",
    "grows",
    "growth",
    "increase",
    "increased",
    "increases",
    "decrease",
    "decreased",
    "decreases",
    "decline",
    "declined",
    "declines",
    "rise",
    "rose",
    "rises",
    "fall",
    "fell",
    "falls",
    "drop",
    "dropped",
    "drops",
    "yoy",
    "compared",
];

/// Whether `tokens` ask for a change between two periods ("growth", "declined", "year over
/// year", "compared to").
pub(super) fn says_change(tokens: &[String]) -> bool {
    tokens.iter().any(|t| CHANGE.contains(&t.as_str())) || tokens.join(" ").contains("year over year")
}

/// The decimals a question asks for: "round ... to one decimal place", "two decimal places".
fn decimals(text: &str) -> Option<u32> {
    let at = text.find("decimal place")?;
    let before: Vec<&str> = text[..at].split_whitespace().collect();
    match before.last().copied()? {
        "one" | "1" => Some(1),
        "two" | "2" => Some(2),
        "three" | "3" => Some(3),
        "zero" | "0" | "no" => Some(0),
        _ => None,
    }
}

/// Metrics analysts know by name, each with its computation over one year, and whether it is a
/// percent.
fn known(text: &str) -> Option<(&'static str, Expr, bool)> {
    use Item::*;
    let e = Expr::item;
    let avg = Expr::average;
    let days = |over: Expr, by: Expr| Expr::op(Expr::op(Expr::Number(365.0), '*', over), '/', by);
    let dio = || days(avg(Inventory), e(CostOfSales));
    let dso = || days(avg(AccountsReceivable), e(Revenue));
    let dpo = || {
        days(
            avg(AccountsPayable),
            Expr::op(
                e(CostOfSales),
                '+',
                Expr::Change(Inventory, Year::Relative(-1), Year::Relative(0)),
            ),
        )
    };
    let ratio = |a: Item, b: Item| Expr::op(e(a), '/', e(b));
    let table: Vec<(&[&str], &'static str, Expr, bool)> = vec![
        (
            &["cash conversion cycle", "ccc"],
            "cash conversion cycle",
            Expr::op(Expr::op(dio(), '+', dso()), '-', dpo()),
            false,
        ),
        (
            &["days inventory outstanding", "dio"],
            "days inventory outstanding",
            dio(),
            false,
        ),
        (
            &["days sales outstanding", "dso"],
            "days sales outstanding",
            dso(),
            false,
        ),
        (
            &["days payable outstanding", "dpo"],
            "days payable outstanding",
            dpo(),
            false,
        ),
        (
            &["operating cash flow ratio"],
            "operating cash flow ratio",
            ratio(OperatingCashFlow, TotalCurrentLiabilities),
            false,
        ),
        (
            &["working capital ratio", "current ratio"],
            "working capital ratio",
            ratio(TotalCurrentAssets, TotalCurrentLiabilities),
            false,
        ),
        (
            &["cash ratio"],
            "cash ratio",
            ratio(Cash, TotalCurrentLiabilities),
            false,
        ),
        (
            &["quick ratio"],
            "quick ratio",
            Expr::op(
                Expr::op(e(TotalCurrentAssets), '-', e(Inventory)),
                '/',
                e(TotalCurrentLiabilities),
            ),
            false,
        ),
        (
            &["working capital"],
            "working capital",
            Expr::op(e(TotalCurrentAssets), '-', e(TotalCurrentLiabilities)),
            false,
        ),
        (
            &["free cash flow", "fcf"],
            "free cash flow",
            Expr::op(e(OperatingCashFlow), '-', e(CapitalExpenditure)),
            false,
        ),
        (
            &["fixed asset turnover"],
            "fixed asset turnover ratio",
            Expr::op(e(Revenue), '/', avg(PropertyPlantEquipment)),
            false,
        ),
        (
            &["inventory turnover"],
            "inventory turnover ratio",
            Expr::op(e(CostOfSales), '/', avg(Inventory)),
            false,
        ),
        (
            &["asset turnover"],
            "asset turnover ratio",
            Expr::op(e(Revenue), '/', avg(TotalAssets)),
            false,
        ),
        (
            &["return on assets", "roa"],
            "return on assets",
            Expr::op(e(NetIncome), '/', avg(TotalAssets)),
            false,
        ),
        (
            &["return on equity", "roe"],
            "return on equity",
            Expr::op(e(NetIncome), '/', avg(ShareholdersEquity)),
            false,
        ),
        (
            &["retention ratio"],
            "retention ratio",
            Expr::op(Expr::op(e(NetIncome), '-', e(DividendsPaid)), '/', e(NetIncome)),
            false,
        ),
        (
            &["dividend payout ratio", "payout ratio"],
            "dividend payout ratio",
            ratio(DividendsPaid, NetIncome),
            false,
        ),
        (
            &["interest coverage"],
            "interest coverage ratio",
            ratio(OperatingIncome, InterestExpense),
            false,
        ),
        (
            &["effective tax rate"],
            "effective tax rate",
            ratio(IncomeTax, PretaxIncome),
            true,
        ),
        (
            &["ebitda"],
            "unadjusted EBITDA",
            Expr::op(e(OperatingIncome), '+', e(DepreciationAmortization)),
            false,
        ),
    ];
    table.into_iter().find_map(|(names, name, expr, percent)| {
        names
            .iter()
            .any(|n| contains_words(text, n))
            .then_some((name, expr, percent))
    })
}

/// Whether `text` holds `phrase` as whole words.
fn contains_words(text: &str, phrase: &str) -> bool {
    let padded = format!(" {text} ");
    padded.contains(&format!(" {phrase} "))
}

/// What the main sentence asks for: its name, its computation over one year, and whether it is
/// a percent by its nature (a margin, a share of revenue).
fn metric(main: &[String], definitions: &[(Vec<String>, Vec<String>)]) -> Option<(String, Expr, bool)> {
    let text = main.join(" ");
    // A margin, or a share of revenue, is what comes before it over revenue.
    let share = [
        "margin",
        "of revenue",
        "of revenues",
        "of total revenue",
        "of net sales",
        "of sales",
        "to revenue",
    ]
    .iter()
    .filter_map(|w| text.find(w).map(|at| (at, w.len())))
    .min();
    if let Some((at, _)) = share {
        let before: Vec<String> = text[..at].split_whitespace().map(str::to_string).collect();
        let numerator = if before.ends_with(&["net".into(), "profit".into()])
            || before.last().is_some_and(|w| w == "net")
        {
            Some(("net profit".to_string(), Expr::item(Item::NetIncome)))
        } else if before.last().is_some_and(|w| w == "gross") || before.ends_with(&["gross".into(), "profit".into()]) {
            Some((
                "gross".to_string(),
                Expr::op(Expr::item(Item::Revenue), '-', Expr::item(Item::CostOfSales)),
            ))
        } else if before.last().is_some_and(|w| w == "operating") {
            Some(("operating".to_string(), Expr::item(Item::OperatingIncome)))
        } else {
            defined_in(&before, definitions)
                .or_else(|| known(&before.join(" ")).map(|(n, e, _)| (n.to_string(), e)))
                .or_else(|| last_item(&before))
        };
        let (name, numerator) = numerator?;
        let tail = text[at..].split_whitespace().next().unwrap_or("margin");
        let name = if tail == "margin" {
            format!("{name} margin")
        } else {
            format!("{name} as a share of revenue")
        };
        return Some((name, Expr::op(numerator, '/', Expr::item(Item::Revenue)), true));
    }
    if let Some((name, expr)) = defined_in(main, definitions) {
        return Some((name, expr, false));
    }
    if let Some((name, expr, percent)) = known(&text) {
        return Some((name.to_string(), expr, percent));
    }
    let (name, expr) = inline(main).or_else(|| last_item(main))?;
    Some((name, expr, false))
}

/// A name as an answer writes it: its words, the acronyms analysts write in capitals ("ROA",
/// "DPO", "EBITDA") and "D&A", "PP&E".
fn display<S: AsRef<str>>(words: &[S]) -> String {
    const ACRONYMS: [&str; 11] = [
        "roa", "roe", "dpo", "dio", "dso", "ccc", "fcf", "cogs", "ebitda", "ebit", "ppe",
    ];
    let words: Vec<String> = words
        .iter()
        .map(|w| match ACRONYMS.contains(&w.as_ref()) {
            true => w.as_ref().to_uppercase(),
            false => w.as_ref().to_string(),
        })
        .collect();
    words.join(" ").replace("d and a", "D&A").replace("pp and e", "PP&E")
}

/// The item named last in `tokens`, with its name as written.
fn last_item(tokens: &[String]) -> Option<(String, Expr)> {
    let words: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let mut found = None;
    let mut i = 0;
    while i < words.len() {
        match named_at(&words[i..]) {
            Some((item, n)) => {
                found = Some((display(&words[i..i + n]), Expr::item(item)));
                i += n;
            }
            None => i += 1,
        }
    }
    found
}

/// A computation written in the main sentence itself ("operating income + depreciation and
/// amortization"): two or more items joined by signs.
fn inline(main: &[String]) -> Option<(String, Expr)> {
    let words: Vec<&str> = main.iter().map(String::as_str).collect();
    let start = (0..words.len()).find(|&i| words[i] == "(" || named_at(&words[i..]).is_some())?;
    let mut parser = Parser::new(&main[start..], &[]);
    let expr = parser.expr()?;
    (expr.items() >= 2).then(|| (display(&words[start..start + parser.at]), expr))
}

/// The longest defined name `tokens` hold, with its computation.
fn defined_in(tokens: &[String], definitions: &[(Vec<String>, Vec<String>)]) -> Option<(String, Expr)> {
    let text = tokens.join(" ");
    let (name, body) = definitions
        .iter()
        .filter(|(name, _)| !name.is_empty() && contains_words(&text, &name.join(" ")))
        .max_by_key(|(name, _)| name.len())?;
    let mut parser = Parser::new(body, definitions);
    let expr = parser.expr()?;
    Some((display(name), expr))
}

/// Words skipped between the parts of a computation.
const FILLER: [&str; 14] = [
    "the",
    "a",
    "an",
    "of",
    "unadjusted",
    "reported",
    "amount",
    "from",
    "cash",
    "flow",
    "statement",
    "in",
    "total",
    "s",
];

/// Reads a computation: `+ - * /` and their words ("divided by", "less", "plus", "minus",
/// "times"), parentheses, numbers, items with a year before them ("FY2019 revenue"), "average X
/// between FYa and FYb", "change in X between FYa and FYb", and names defined elsewhere in the
/// question.
struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    definitions: &'a [(Vec<String>, Vec<String>)],
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(tokens: &'a [String], definitions: &'a [(Vec<String>, Vec<String>)]) -> Parser<'a> {
        Parser {
            tokens,
            at: 0,
            definitions,
            depth: 0,
        }
    }

    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn expr(&mut self) -> Option<Expr> {
        let mut left = self.term()?;
        loop {
            let op = match self.peek() {
                Some("+" | "plus") => '+',
                Some("-" | "minus" | "less") => '-',
                _ => return Some(left),
            };
            self.at += 1;
            let right = self.term()?;
            left = Expr::op(left, op, right);
        }
    }

    fn term(&mut self) -> Option<Expr> {
        let mut left = self.atom()?;
        loop {
            let op = match self.peek() {
                Some("*" | "times") => '*',
                Some("/") => '/',
                Some("divided") if self.tokens.get(self.at + 1).is_some_and(|t| t == "by") => {
                    self.at += 1;
                    '/'
                }
                _ => return Some(left),
            };
            self.at += 1;
            let right = self.atom()?;
            left = Expr::op(left, op, right);
        }
    }

    fn atom(&mut self) -> Option<Expr> {
        let mut year = None;
        while let Some(t) = self.peek() {
            if let Some(y) = year_of(self.tokens, self.at) {
                year = Some(y);
                self.at += 1;
            } else if self.names_here() {
                break;
            } else if FILLER.contains(&t) || t == "fy" || t == "fiscal" {
                self.at += 1;
            } else {
                break;
            }
        }
        let t = self.peek()?.to_string();
        if t == "(" {
            self.at += 1;
            let inner = self.expr()?;
            if self.peek() == Some(")") {
                self.at += 1;
            }
            return Some(inner);
        }
        if let Ok(n) = t.parse::<f64>() {
            self.at += 1;
            return Some(Expr::Number(n));
        }
        if t == "average" || (t == "change" && self.tokens.get(self.at + 1).is_some_and(|w| w == "in")) {
            self.at += if t == "change" { 2 } else { 1 };
            while !self.names_here() && self.peek().is_some_and(|w| FILLER.contains(&w)) {
                self.at += 1;
            }
            let item = self.item()?;
            let (a, b) = self.between().unwrap_or((Year::Relative(-1), Year::Relative(0)));
            return Some(if t == "average" {
                Expr::Average(item, a, b)
            } else {
                Expr::Change(item, a, b)
            });
        }
        if let Some(expr) = self.defined() {
            return Some(expr);
        }
        let item = self.item()?;
        // Words that only describe the item ("from the cash flow statement") are skipped.
        while !self.names_here() && self.peek().is_some_and(|w| FILLER.contains(&w)) {
            self.at += 1;
        }
        Some(Expr::Item(item, year.map_or(Year::Relative(0), Year::Fixed)))
    }

    /// Whether an item or a defined name starts at the current token.
    fn names_here(&self) -> bool {
        let rest = &self.tokens[self.at..];
        let words: Vec<&str> = rest.iter().map(String::as_str).collect();
        named_at(&words).is_some()
            || self
                .definitions
                .iter()
                .any(|(name, _)| !name.is_empty() && rest.starts_with(name))
    }

    fn item(&mut self) -> Option<Item> {
        let words: Vec<&str> = self.tokens[self.at..].iter().map(String::as_str).collect();
        let (item, n) = named_at(&words)?;
        self.at += n;
        Some(item)
    }

    /// "between FYa and FYb".
    fn between(&mut self) -> Option<(Year, Year)> {
        if self.peek() != Some("between") {
            return None;
        }
        let a = (self.at + 1 < self.tokens.len()).then(|| year_of(self.tokens, self.at + 1))??;
        let b = (self.at + 3 < self.tokens.len() && self.tokens[self.at + 2] == "and")
            .then(|| year_of(self.tokens, self.at + 3))??;
        self.at += 4;
        Some((Year::Fixed(a), Year::Fixed(b)))
    }

    /// A name the question defines elsewhere, as its computation.
    fn defined(&mut self) -> Option<Expr> {
        if self.depth > 4 {
            return None;
        }
        let rest = &self.tokens[self.at..];
        let (name, body) = self
            .definitions
            .iter()
            .filter(|(name, _)| !name.is_empty() && rest.starts_with(name))
            .max_by_key(|(name, _)| name.len())?;
        let mut inner = Parser::new(body, self.definitions);
        inner.depth = self.depth + 1;
        let expr = inner.expr()?;
        self.at += name.len();
        Some(expr)
    }
}

#[cfg(test)]
mod tests {
    use super::read as asked;
    use super::*;
    use Item::*;

    fn fixed(item: Item, year: u16) -> Expr {
        Expr::Item(item, Year::Fixed(year))
    }

    #[test]
    fn a_figure_in_a_year_is_one_item_in_the_scale_asked() {
        let asked =
            asked("What is the year end FY2021 amount of inventories for Acme? Answer in USD millions.").unwrap();
        assert_eq!(asked.expr, Expr::item(Inventory));
        assert_eq!(asked.over, Over::Year(2021));
        assert_eq!((asked.percent, asked.scale), (false, Some(1e6)));
        let asked = asked_of("How much did Acme spend on capital expenditure in FY 2020 (in USD billions)?");
        assert_eq!(
            (asked.expr, asked.over, asked.scale),
            (Expr::item(CapitalExpenditure), Over::Year(2020), Some(1e9))
        );
    }

    fn asked_of(q: &str) -> Asked {
        asked(q).unwrap_or_else(|| panic!("nothing read from {q:?}"))
    }

    #[test]
    fn a_definition_in_the_question_is_its_computation() {
        let q = "What is the FY2022 cash ratio for Acme? Cash ratio is defined as: cash from operations / total \
                 current liabilities. Round your answer to two decimal places.";
        let asked = asked_of(q);
        assert_eq!(asked.name, "cash ratio");
        assert_eq!(
            asked.expr,
            Expr::op(Expr::item(OperatingCashFlow), '/', Expr::item(TotalCurrentLiabilities))
        );
        assert_eq!(
            (asked.over, asked.decimals, asked.percent),
            (Over::Year(2022), Some(2), false)
        );

        let q = "What is Acme's FY2021 ROA? ROA is defined as: FY2021 net income / (average total assets between \
                 FY2020 and FY2021). Round your answer to two decimal places.";
        assert_eq!(
            asked_of(q).expr,
            Expr::op(
                fixed(NetIncome, 2021),
                '/',
                Expr::Average(TotalAssets, Year::Fixed(2020), Year::Fixed(2021))
            )
        );

        let q = "Considering the balance sheet, what is Acme's FY2019 liquidity ratio? Define liquidity ratio as \
                 total current assets divided by total current liabilities.";
        assert_eq!(
            asked_of(q).expr,
            Expr::op(Expr::item(TotalCurrentAssets), '/', Expr::item(TotalCurrentLiabilities))
        );
    }

    #[test]
    fn definitions_may_use_names_defined_after_them() {
        let q = "What is the FY2020 cycle for Acme? Cycle is defined as: DIO - DPO. DIO is defined as: 365 * \
                 (average inventory between FY2019 and FY2020) / (FY2020 COGS). DPO is defined as: 365 * (average \
                 accounts payable between FY2019 and FY2020) / (FY2020 COGS + change in inventory between FY2019 \
                 and FY2020). Round your answer to two decimal places.";
        let asked = asked_of(q);
        let dio = Expr::op(
            Expr::op(
                Expr::Number(365.0),
                '*',
                Expr::Average(Inventory, Year::Fixed(2019), Year::Fixed(2020)),
            ),
            '/',
            fixed(CostOfSales, 2020),
        );
        let Expr::Op(left, '-', _) = &asked.expr else {
            panic!("{:?}", asked.expr)
        };
        assert_eq!(**left, dio);
    }

    #[test]
    fn named_metrics_margins_and_growth_over_years() {
        let asked = asked_of(
            "What is the FY2017 - FY2019 3 year average net profit margin (as a %) for Acme? Answer in units of \
             percents and round to one decimal place.",
        );
        assert_eq!(asked.over, Over::Average(2017, 2019));
        assert_eq!(asked.expr, Expr::op(Expr::item(NetIncome), '/', Expr::item(Revenue)));
        assert!(asked.percent);
        assert_eq!(asked.decimals, Some(1));

        let asked = asked_of("What is Acme's year-over-year change in operating income from FY2015 to FY2016?");
        assert_eq!(
            (asked.over, asked.expr),
            (Over::Growth(2015, 2016), Expr::item(OperatingIncome))
        );
        assert!(asked.percent);

        let asked = asked_of("What is Acme's 2 year total revenue CAGR from FY2020 to FY2022?");
        assert_eq!((asked.over, asked.expr), (Over::Cagr(2020, 2022), Expr::item(Revenue)));

        let asked = asked_of("What is the FY2019 - FY2021 average of capex as a % of revenue for Acme?");
        assert_eq!(
            asked.expr,
            Expr::op(Expr::item(CapitalExpenditure), '/', Expr::item(Revenue))
        );
        let asked = asked_of(
            "What is Acme's FY2021 unadjusted operating income + depreciation and amortization in USD millions?",
        );
        assert_eq!(
            asked.expr,
            Expr::op(Expr::item(OperatingIncome), '+', Expr::item(DepreciationAmortization))
        );
        assert_eq!(
            asked_of("What is the FY2018 fixed asset turnover ratio for Acme?").name,
            "fixed asset turnover ratio"
        );
    }

    #[test]
    fn a_quarter_is_read_with_its_year_and_a_half_is_not_read() {
        let q = |text: &str| asked(text).map(|a| (a.quarter, a.over));
        assert_eq!(
            q("What were Acme's net sales in Q2 of FY2023?"),
            Some((Some(2), Over::Year(2023)))
        );
        assert_eq!(
            q("What was Acme's FY2023Q1 revenue?"),
            Some((Some(1), Over::Year(2023)))
        );
        assert_eq!(
            q("What was JPM's total revenue in 2021 Q1?"),
            Some((Some(1), Over::Year(2021)))
        );
        assert_eq!(
            q("What were the net sales in the second fiscal quarter of 2023?"),
            Some((Some(2), Over::Year(2023)))
        );
        assert_eq!(asked("What were Acme's net sales in the first half of FY2023?"), None);
        assert_eq!(
            asked("What were Acme's net sales for the six months ended FY2023?"),
            None
        );
        assert_eq!(asked("What was Acme's quarterly revenue in FY2023?"), None);
        assert_eq!(
            asked("What was Acme's revenue for the three months ended in FY2023?"),
            None
        );
        // A quarter's columns hold no year before it: no average of two years' ends.
        assert_eq!(asked("What is Acme's inventory turnover ratio in Q2 of FY2023?"), None);
        assert_eq!(asked("What is Acme's FY2023 revenue?").map(|a| a.quarter), Some(None));
        let asked = asked_of("What is Acme's FY2022 net income as a percent of sales?");
        assert_eq!(asked.expr, Expr::op(Expr::item(NetIncome), '/', Expr::item(Revenue)));
    }

    #[test]
    fn questions_without_a_year_or_a_figure_are_not_computed() {
        assert_eq!(asked("What is the capital of France?"), None);
        assert_eq!(asked("How much revenue did Acme make?"), None);
        assert_eq!(asked("Who is the CEO of Acme in FY2022?"), None);
    }
}
