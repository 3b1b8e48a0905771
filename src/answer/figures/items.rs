//! The line items of a company's statements that analysts ask about: the words a question uses
//! for each ("capex", "cash from operations") and the labels filings give its row ("Purchases of
//! property and equipment", "Net cash provided by operating activities"), best first, with the
//! statement it is read from.

use crate::chunk::Statement;

/// One line item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Revenue,
    CostOfSales,
    GrossProfit,
    OperatingIncome,
    NetIncome,
    PretaxIncome,
    IncomeTax,
    InterestExpense,
    DepreciationAmortization,
    OperatingCashFlow,
    CapitalExpenditure,
    DividendsPaid,
    TotalCurrentAssets,
    TotalCurrentLiabilities,
    TotalAssets,
    TotalLiabilities,
    ShareholdersEquity,
    Inventory,
    AccountsPayable,
    AccountsReceivable,
    PropertyPlantEquipment,
    SellingGeneralAdministrative,
    ResearchDevelopment,
    Cash,
    LongTermDebt,
    NoncurrentLiabilities,
    /// Equity with noncontrolling interests, what the balance sheet adds to its liabilities.
    TotalEquity,
    LiabilitiesAndEquity,
}

/// What is known of an item.
pub struct Spec {
    pub item: Item,
    /// How an answer names it where it states a computation ("operating income + depreciation
    /// and amortization").
    pub name: &'static str,
    pub statement: Statement,
    /// How questions name it, normalised ([`normalise`]), longest first within the table.
    pub phrases: &'static [&'static str],
    /// Its row's labels in filings, normalised, best first; a label ending in `*` matches any
    /// label it begins.
    pub labels: &'static [&'static str],
    /// A cash flow shown as an outflow "(1,577)", or an expense some statements show in
    /// parentheses: read as its size.
    pub outflow: bool,
}

use Item::*;
use Statement::{Balance, CashFlows, Income};

pub const SPECS: &[Spec] = &[
    Spec {
        item: Revenue,
        name: "revenue",
        statement: Income,
        phrases: &[
            "total net revenues",
            "total net revenue",
            "total revenues",
            "total revenue",
            "net revenues",
            "net revenue",
            "total net sales",
            "net sales",
            "revenues",
            "revenue",
            "sales",
        ],
        labels: &[
            "total revenues",
            "total revenue",
            "total net revenues",
            "total net revenue",
            "total net sales",
            "net revenues",
            "net revenue",
            "net sales",
            "revenues",
            "revenue",
            "total sales",
            "sales",
            "net operating revenues",
            "total operating revenues",
            "operating revenues",
            "sales to customers",
            "net sales and revenues",
        ],
        outflow: false,
    },
    Spec {
        item: CostOfSales,
        name: "cost of sales",
        statement: Income,
        phrases: &[
            "cost of goods sold",
            "cost of revenues",
            "cost of revenue",
            "cost of sales",
            "cogs",
        ],
        labels: &[
            "total cost of revenues",
            "total cost of revenue",
            "total cost of sales",
            "cost of revenues",
            "cost of revenue",
            "cost of sales",
            "costs of sales",
            "cost of goods sold",
            "cost of products sold",
            "cost of merchandise sold",
            "cost of sales excluding depreciation and amortization",
            "cost of sales buying and occupancy",
        ],
        outflow: false,
    },
    Spec {
        item: GrossProfit,
        name: "gross profit",
        statement: Income,
        phrases: &["gross profit"],
        labels: &["gross profit", "gross margin"],
        outflow: false,
    },
    Spec {
        item: OperatingIncome,
        name: "operating income",
        statement: Income,
        phrases: &[
            "operating income",
            "operating profit",
            "income from operations",
            "operating earnings",
        ],
        labels: &[
            "operating income",
            "income from operations",
            "operating profit",
            "total operating income",
            "operating earnings",
            "earnings from operations",
        ],
        outflow: false,
    },
    Spec {
        item: NetIncome,
        name: "net income",
        statement: Income,
        phrases: &[
            "net income attributable to shareholders",
            "net income",
            "net earnings",
            "net profit",
        ],
        labels: &[
            "net income",
            "net earnings",
            "net income attributable to*",
            "net earnings attributable to*",
        ],
        outflow: false,
    },
    Spec {
        item: PretaxIncome,
        name: "income before income taxes",
        statement: Income,
        phrases: &[
            "income before income taxes",
            "income before taxes",
            "pretax income",
            "pre tax income",
            "earnings before income taxes",
        ],
        labels: &[
            "income before income taxes*",
            "earnings before income taxes*",
            "income before taxes*",
            "income before provision for income taxes*",
            "income from continuing operations before income taxes*",
        ],
        outflow: false,
    },
    Spec {
        item: IncomeTax,
        name: "income tax expense",
        statement: Income,
        phrases: &[
            "income tax expense",
            "provision for income taxes",
            "income taxes",
            "tax expense",
        ],
        labels: &[
            "provision for income taxes",
            "income tax expense",
            "income taxes",
            "provision for taxes on income",
            "income tax provision",
        ],
        outflow: true,
    },
    Spec {
        item: InterestExpense,
        name: "interest expense",
        statement: Income,
        phrases: &["interest expense"],
        labels: &["interest expense", "interest expense net"],
        outflow: false,
    },
    Spec {
        item: DepreciationAmortization,
        name: "depreciation and amortization",
        statement: CashFlows,
        phrases: &["depreciation and amortization", "depreciation amortization", "d and a"],
        labels: &[
            "depreciation and amortization",
            "depreciation amortization and other",
            "depreciation depletion and amortization",
            "depreciation and amortization expense",
            "depreciation amortization",
            "depreciation",
        ],
        outflow: false,
    },
    Spec {
        item: OperatingCashFlow,
        name: "cash from operations",
        statement: CashFlows,
        phrases: &[
            "cash flows from operating activities",
            "cash flow from operating activities",
            "cash from operating activities",
            "cash provided by operating activities",
            "net cash from operations",
            "cash from operations",
            "operating cash flows",
            "operating cash flow",
        ],
        labels: &[
            "net cash provided by operating activities*",
            "net cash provided by used in operating activities*",
            "net cash from operating activities*",
            "cash provided by operating activities*",
            "net cash provided by operations*",
            "cash provided by operations*",
            "net cash generated from operating activities*",
            "cash generated by operating activities*",
            "net cash flows from operating activities*",
            "net cash flow from operating activities*",
            "net cash provided from operating activities*",
            "cash flows from operating activities",
            "net cash from operations*",
        ],
        outflow: false,
    },
    Spec {
        item: CapitalExpenditure,
        name: "capital expenditure",
        statement: CashFlows,
        phrases: &[
            "capital expenditures",
            "capital expenditure",
            "capital spending",
            "capex",
        ],
        labels: &[
            "capital expenditures*",
            "purchases of property*",
            "purchase of property*",
            "payments for property*",
            "payments for acquisition of property*",
            "additions to property*",
            "acquisitions of property*",
            "capital spending*",
            "expenditures for property*",
            "property additions*",
            "investments in property*",
        ],
        outflow: true,
    },
    Spec {
        item: DividendsPaid,
        name: "dividends paid",
        statement: CashFlows,
        phrases: &[
            "total cash dividends paid",
            "cash dividends paid",
            "dividends paid",
            "cash dividends",
            "dividends",
        ],
        labels: &[
            "dividends paid*",
            "cash dividends paid*",
            "payments of dividends*",
            "payment of dividends*",
            "cash dividends*",
            "dividends paid to*",
            "dividends to shareholders*",
            "dividends*",
        ],
        outflow: true,
    },
    Spec {
        item: TotalCurrentAssets,
        name: "total current assets",
        statement: Balance,
        phrases: &["total current assets", "current assets"],
        labels: &["total current assets", "current assets"],
        outflow: false,
    },
    Spec {
        item: TotalCurrentLiabilities,
        name: "total current liabilities",
        statement: Balance,
        phrases: &["total current liabilities", "current liabilities"],
        labels: &["total current liabilities", "current liabilities"],
        outflow: false,
    },
    Spec {
        item: TotalAssets,
        name: "total assets",
        statement: Balance,
        phrases: &["total assets"],
        labels: &["total assets"],
        outflow: false,
    },
    Spec {
        item: TotalLiabilities,
        name: "total liabilities",
        statement: Balance,
        phrases: &["total liabilities"],
        labels: &["total liabilities"],
        outflow: false,
    },
    Spec {
        item: ShareholdersEquity,
        name: "shareholders' equity",
        statement: Balance,
        phrases: &[
            "total shareholders equity",
            "total stockholders equity",
            "shareholders equity",
            "stockholders equity",
            "total equity",
        ],
        labels: &[
            "total shareholders equity*",
            "total stockholders equity*",
            "total shareowners equity*",
            "total equity",
            "total shareholders equity",
            "shareholders equity",
            "stockholders equity",
        ],
        outflow: false,
    },
    Spec {
        item: Inventory,
        name: "inventories",
        statement: Balance,
        phrases: &["total inventories", "inventories", "inventory"],
        labels: &[
            "inventories",
            "merchandise inventories",
            "inventory",
            "merchandise inventory",
            "total inventories",
            "inventories net",
        ],
        outflow: false,
    },
    Spec {
        item: AccountsPayable,
        name: "accounts payable",
        statement: Balance,
        phrases: &["accounts payable", "trade payables", "payables"],
        labels: &[
            "accounts payable",
            "trade accounts payable",
            "accounts payable trade",
            "trade payables",
        ],
        outflow: false,
    },
    Spec {
        item: AccountsReceivable,
        name: "accounts receivable",
        statement: Balance,
        phrases: &["accounts receivable", "trade receivables", "receivables"],
        labels: &[
            "accounts receivable",
            "receivables",
            "trade receivables",
            "trade accounts receivable",
            "accounts receivable less allowance*",
            "accounts receivable net of allowance*",
            "receivables less allowance*",
            "accounts and notes receivable*",
            "trade and other receivables",
        ],
        outflow: false,
    },
    Spec {
        item: PropertyPlantEquipment,
        name: "net PP&E",
        statement: Balance,
        phrases: &[
            "net property plant and equipment",
            "property plant and equipment",
            "property and equipment",
            "fixed assets",
            "net ppe",
            "ppe",
            "pp and e",
        ],
        labels: &[
            "property and equipment",
            "property plant and equipment",
            "net property plant and equipment",
            "total property and equipment",
            "property plant and equipment at cost less accumulated depreciation*",
            "property and equipment less accumulated depreciation*",
            "property plant and equipment less accumulated*",
            "land buildings and equipment",
            "property",
            "property and equipment at cost less accumulated*",
        ],
        outflow: false,
    },
    Spec {
        item: SellingGeneralAdministrative,
        name: "SG&A",
        statement: Income,
        phrases: &[
            "selling general and administrative expenses",
            "selling general and administrative expense",
            "selling general and administrative",
            "sg and a",
        ],
        labels: &["selling general and administrative*", "selling general administrative*"],
        outflow: false,
    },
    Spec {
        item: ResearchDevelopment,
        name: "research and development",
        statement: Income,
        phrases: &[
            "research and development expenses",
            "research and development expense",
            "research and development",
            "r and d",
        ],
        labels: &["research and development*", "research development and related*"],
        outflow: false,
    },
    Spec {
        item: Cash,
        name: "cash and cash equivalents",
        statement: Balance,
        phrases: &["cash and cash equivalents", "cash and equivalents"],
        labels: &[
            "cash and cash equivalents",
            "cash and equivalents",
            "total cash and cash equivalents",
        ],
        outflow: false,
    },
    Spec {
        item: LongTermDebt,
        name: "long-term debt without its current portion",
        statement: Balance,
        phrases: &["long term debt", "long term borrowings"],
        labels: &[
            "long term debt",
            "long term debt excluding current portion",
            "long term debt less current portion",
            "long term debt net of current portion",
            "long term debt less current maturities",
            "long term debt due after one year",
            "long term debt noncurrent",
            "long term debt obligations",
            "long term borrowings",
        ],
        outflow: false,
    },
    Spec {
        item: NoncurrentLiabilities,
        name: "noncurrent liabilities",
        statement: Balance,
        phrases: &[
            "total long term liabilities",
            "long term liabilities",
            "total noncurrent liabilities",
            "noncurrent liabilities",
            "total non current liabilities",
            "non current liabilities",
        ],
        labels: &[
            "total noncurrent liabilities",
            "total non current liabilities",
            "total long term liabilities",
        ],
        outflow: false,
    },
    Spec {
        item: TotalEquity,
        name: "total equity",
        statement: Balance,
        phrases: &[],
        labels: &[
            "total equity",
            "total shareholders equity",
            "total stockholders equity",
            "total shareowners equity",
        ],
        outflow: false,
    },
    Spec {
        item: LiabilitiesAndEquity,
        name: "total liabilities and equity",
        statement: Balance,
        phrases: &[],
        labels: &[
            "total liabilities and equity",
            "total liabilities and shareholders equity",
            "total liabilities and stockholders equity",
            "total liabilities and shareowners equity",
        ],
        outflow: false,
    },
];

/// How an item a balance sheet may not write on a line of its own is computed from those it
/// writes: total liabilities as liabilities and equity less equity, noncurrent liabilities as
/// total liabilities less current ones.
pub fn derived(item: Item) -> Option<(Item, Item)> {
    match item {
        TotalLiabilities => Some((LiabilitiesAndEquity, TotalEquity)),
        NoncurrentLiabilities => Some((TotalLiabilities, TotalCurrentLiabilities)),
        _ => None,
    }
}

/// What is known of `item`.
pub fn spec(item: Item) -> &'static Spec {
    SPECS.iter().find(|s| s.item == item).unwrap_or(&SPECS[0])
}

/// Lower case, "&" as "and", apostrophes dropped ("shareholders'" is "shareholders"), what stands
/// in parentheses dropped ("Net income (loss)", "(Note 5)"), any other character but a letter or
/// digit a space, one space between words.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            '&' => out.push_str(" and "),
            '\'' | '’' => {}
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => out.push(' '),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How well a row's normalised `label` names `item`: the index of the first of its labels it
/// matches (lower is better), with a trailing or leading "net" of the label ignored ("Property and
/// equipment, net"); `None` when it does not name it. Rows of a part ("noncontrolling", "per
/// share") never do.
pub fn label_rank(item: Item, label: &str) -> Option<usize> {
    if [
        "noncontrolling",
        "non controlling",
        "per share",
        "per common share",
        "per diluted",
        "per basic",
    ]
    .iter()
    .any(|w| label.contains(w))
    {
        return None;
    }
    let trimmed = label
        .strip_suffix(" net")
        .or_else(|| label.strip_prefix("net "))
        .unwrap_or(label);
    spec(item).labels.iter().position(|pattern| {
        let matches = |l: &str| match pattern.strip_suffix('*') {
            Some(prefix) => l == prefix || l.starts_with(&format!("{prefix} ")),
            None => l == *pattern,
        };
        matches(label) || matches(trimmed)
    })
}

/// The item a normalised phrase of a question names at its start, and how many of its words
/// the name takes: the longest name wins.
pub fn named_at(words: &[&str]) -> Option<(Item, usize)> {
    let mut best: Option<(Item, usize)> = None;
    for spec in SPECS {
        for phrase in spec.phrases {
            let n = phrase.split(' ').count();
            if words.len() >= n && phrase.split(' ').zip(words).all(|(p, w)| p == *w) && best.is_none_or(|(_, m)| n > m)
            {
                best = Some((spec.item, n));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_compared_without_case_punctuation_or_what_stands_in_parentheses() {
        assert_eq!(normalise("Net income (loss)"), "net income");
        assert_eq!(
            normalise("Property, plant & equipment, net"),
            "property plant and equipment net"
        );
        assert_eq!(normalise("Total shareholders’ equity"), "total shareholders equity");
    }

    #[test]
    fn a_row_names_an_item_by_one_of_its_labels() {
        let rank = |item, label: &str| label_rank(item, &normalise(label));
        assert_eq!(rank(PropertyPlantEquipment, "Property and equipment, net"), Some(0));
        assert_eq!(rank(CapitalExpenditure, "Purchases of property and equipment"), Some(1));
        assert_eq!(rank(CapitalExpenditure, "Purchases of investments"), None);
        assert_eq!(
            rank(OperatingCashFlow, "Net cash provided by (used in) operating activities"),
            Some(0)
        );
        assert!(rank(NetIncome, "Net income attributable to noncontrolling interests").is_none());
        assert_eq!(rank(NetIncome, "Net income attributable to Coca-Cola"), Some(2));
        assert_eq!(rank(Revenue, "Net sales"), Some(7));
        assert_eq!(rank(TotalCurrentLiabilities, "Total current liabilities"), Some(0));
        assert_eq!(rank(Inventory, "Merchandise inventories"), Some(1));
    }

    #[test]
    fn a_question_names_the_longest_item_it_can() {
        let words: Vec<&str> = "cost of goods sold as a".split(' ').collect();
        assert_eq!(named_at(&words), Some((CostOfSales, 4)));
        let words: Vec<&str> = "total current liabilities".split(' ').collect();
        assert_eq!(named_at(&words), Some((TotalCurrentLiabilities, 3)));
        assert_eq!(named_at(&["the", "revenue"]), None);
        let words: Vec<&str> = "total long term liabilities".split(' ').collect();
        assert_eq!(named_at(&words), Some((NoncurrentLiabilities, 4)));
    }

    #[test]
    fn a_part_or_a_neighbour_of_an_item_is_not_its_row() {
        let rank = |item, label: &str| label_rank(item, &normalise(label));
        assert_eq!(rank(LongTermDebt, "Long-term debt, net of current portion"), Some(3));
        assert_eq!(rank(LongTermDebt, "Current portion of long-term debt"), None);
        assert_eq!(rank(LongTermDebt, "Long-term debt due within one year"), None);
        assert_eq!(rank(NoncurrentLiabilities, "Other noncurrent liabilities"), None);
        assert_eq!(rank(TotalLiabilities, "Total liabilities and equity"), None);
        assert_eq!(
            rank(LiabilitiesAndEquity, "Total liabilities and shareholders' equity"),
            Some(1)
        );
        assert_eq!(
            rank(
                SellingGeneralAdministrative,
                "Selling, general and administrative expenses"
            ),
            Some(0)
        );
    }
}
