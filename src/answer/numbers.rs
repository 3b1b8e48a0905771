//! Numbers as they are written in text: their value, the precision they are written at, the
//! scale word after them ("million") and whether they are a percent.
//!
//! An answer's number agrees with a gold answer's when it is the gold's at the gold's precision or
//! finer (1.734 and 1.73 are 1.73; 2 and 1.7 are not; 1,560 is not 1,577), with their scale words
//! ("$1,577,000,000" is "$1,577 million", "1,577 thousand" is not; "1,577" is read in the gold's
//! millions), and as a percent or a fraction (65.4% is 0.654). An answer's number quotes a
//! passage's when it is the passage's, perhaps rounded, never made more precise: 2.35 does not
//! quote 2.

/// One number of a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The value as written, negative after a minus sign or inside parentheses.
    pub value: f64,
    /// How many digits follow the decimal point.
    pub decimals: u32,
    /// What the scale word after it multiplies by (1 without one).
    pub scale: f64,
    pub percent: bool,
    /// Directly after or before a letter or an underscore, like the 2 of "Q2", the 2019 of
    /// "FY2019", the 2023 of "2023Q2" or the 10 of "ADOBE_10K" (not a scale's, as in "3bn"): part
    /// of a name.
    pub in_word: bool,
    /// The byte range of its digits in the text.
    pub start: usize,
    pub end: usize,
}

/// Scale words and what they multiply by; a one-letter one must be followed by a non-letter.
const SCALES: [(&str, f64); 9] = [
    ("trillion", 1e12),
    ("billion", 1e9),
    ("million", 1e6),
    ("thousand", 1e3),
    ("bn", 1e9),
    ("mn", 1e6),
    ("m", 1e6),
    ("k", 1e3),
    ("b", 1e9),
];

impl Number {
    /// The value with its scale word applied.
    pub fn scaled(&self) -> f64 {
        self.value * self.scale
    }

    /// The step of the last digit written, scale applied: 0.01e9 for "1.58 billion".
    fn unit(&self) -> f64 {
        step(self.decimals) * self.scale
    }

    /// How many significant digits it is written with: 3 for "1.58" and for "400".
    fn significant(&self) -> i32 {
        if self.value == 0.0 {
            return 1;
        }
        self.value.abs().log10().floor() as i32 + 1 + self.decimals as i32
    }

    /// Whether this number (an answer's) gives `gold`: equal to it ("7" gives "7.0"), or at least
    /// as precise and rounding to it (1.734 gives 1.73; 2 and 1.7 do not). Compared with their
    /// scale words applied ("1,577 thousand" does not give "$1,577 million"), and also as written
    /// where either has none: an answer without one is read in the gold's scale ("1,577" gives
    /// "$1,577 million", as the question asked in millions), a gold without one is taken as
    /// written ("$11,588 million" gives "$11588.00"). An answer written in a larger scale word
    /// than the gold's may be the gold rounded to three significant digits or more ("$1.58
    /// billion" gives "$1,577 million", "$1.6 billion" does not). A percent and a fraction are
    /// the same (65.4% gives 0.654), and so are a number with and without its percent sign.
    pub fn agrees(&self, gold: &Number) -> bool {
        let written = |n: &Number| (n.value, step(n.decimals));
        let scaled = |n: &Number| (n.scaled(), n.unit());
        let mut pairs = vec![(scaled(self), scaled(gold))];
        if self.scale == 1.0 || gold.scale == 1.0 {
            pairs.push((written(self), written(gold)));
        }
        let larger_scale = self.scale > gold.scale && self.significant() >= 3;
        let percent = |(v, u): (f64, f64)| (v / 100.0, u / 100.0);
        pairs.into_iter().any(|(answer, expected)| {
            let mut terms = vec![(answer, expected)];
            if self.percent && !gold.percent {
                terms.push((percent(answer), expected));
            }
            if gold.percent && !self.percent {
                terms.push((answer, percent(expected)));
            }
            terms.into_iter().any(|((a, ua), (b, ub))| {
                let as_precise = ua <= ub * (1.0 + 1e-6);
                same_value(a, b) || (as_precise && equal_at(a, b, ub)) || (larger_scale && equal_at(a, b, ua))
            })
        })
    }

    /// Whether this number (an answer's) is `source` (a passage's), perhaps rounded and scaled:
    /// a scale word of the answer's may stand for the passage's unstated thousands or millions
    /// ("$1.58 billion" from "1,577" in a table in millions). Signs are not compared: a passage's
    /// "(1,508)" is an answer's "a decrease of 1,508".
    pub fn quotes(&self, source: &Number) -> bool {
        let shifts: &[f64] = if self.scale > 1.0 {
            &[1.0, 1e3, 1e6, 1e9]
        } else {
            &[1.0]
        };
        let (a, unit) = (self.scaled().abs(), self.unit());
        shifts.iter().any(|shift| {
            let b = source.scaled().abs() * shift;
            unit >= source.unit() * shift * 0.999 && equal_at(a, b, unit)
        })
    }

    /// Whether `other` is written as this number is: the same value at the same precision.
    pub fn same_as_written(&self, other: &Number) -> bool {
        self.decimals == other.decimals
            && self.percent == other.percent
            && self.scale == other.scale
            && (self.value.abs() - other.value.abs()).abs() < 1e-9 * self.value.abs().max(1.0)
    }

    /// `value` written the way this number is: its decimals (or, for a value with a fraction,
    /// enough for three significant digits), thousands separators if it had them or is large.
    pub fn written_like(&self, value: f64, text: &str) -> String {
        let significant = if value.fract().abs() < 1e-9 {
            0
        } else {
            (2 - value.abs().log10().floor() as i32).max(0) as u32
        };
        let decimals = self.decimals.max(significant).min(4);
        let plain = format!("{:.*}", decimals as usize, value.abs());
        let separated = text[self.start..self.end].contains(',') || value.abs() >= 10_000.0;
        let (whole, fraction) = plain
            .split_once('.')
            .map_or((plain.as_str(), None), |(w, f)| (w, Some(f)));
        let mut out = String::new();
        for (i, digit) in whole.chars().enumerate() {
            if separated && i > 0 && (whole.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(digit);
        }
        if let Some(fraction) = fraction {
            out.push('.');
            out.push_str(fraction);
        }
        if value < 0.0 {
            out.insert(0, '-');
        }
        out
    }
}

/// The step of a number's last digit with `decimals` digits after the point: 0.01 for two.
fn step(decimals: u32) -> f64 {
    10f64.powi(-(decimals as i32))
}

/// Whether `a` and `b` are the same value, but for the last bits of a floating-point sum.
pub(super) fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Whether `a` and `b` round to the same multiple of `unit`.
fn equal_at(a: f64, b: f64, unit: f64) -> bool {
    if unit <= 0.0 || !unit.is_finite() {
        return a == b;
    }
    let (x, y) = ((a / unit).round(), (b / unit).round());
    (x - y).abs() <= 1e-9 * x.abs().max(1.0)
}

/// The numbers of `text`: digits with `,` thousands separators and a `.` decimal part, a minus
/// sign or parentheses making them negative, a scale word or `%` after them. Citation markers
/// (`[2]`, `[^1]`, `[1, 3]`) are not numbers.
pub fn numbers(text: &str) -> Vec<Number> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            if let Some(end) = marker_end(bytes, i) {
                i = end;
                continue;
            }
        }
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let (mut decimals, mut point) = (0, false);
        let mut digits = String::new();
        while i < bytes.len() {
            let c = bytes[i];
            let next_digit = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if c.is_ascii_digit() {
                digits.push(c as char);
                decimals += u32::from(point);
            } else if c == b',' && next_digit && !point && separated_group(bytes, i + 1) {
            } else if c == b'.' && next_digit && !point {
                digits.push('.');
                point = true;
            } else {
                break;
            }
            i += 1;
        }
        let Ok(mut value) = digits.parse::<f64>() else {
            continue;
        };
        let before = &text[..start];
        let word_char = |c: char| c.is_alphabetic() || c == '_';
        let letter_before = before.chars().next_back().is_some_and(word_char);
        // A sign, not a separator: "-3.2" or "(3.2)", but not the hyphens of "2023-01-25".
        let mut back = before.chars().rev().skip_while(|c| matches!(c, '$' | '€' | '£' | ' '));
        let sign = back.next();
        let after_sign = back.next();
        if matches!(sign, Some('('))
            || (matches!(sign, Some('-' | '−')) && !after_sign.is_some_and(char::is_alphanumeric))
        {
            value = -value;
        }
        let rest = text[i..].trim_start_matches([' ', ')']);
        let lower: String = rest.chars().take(10).collect::<String>().to_lowercase();
        let percent = lower.starts_with('%') || lower.starts_with("percent");
        let scale = SCALES
            .iter()
            .find(|(word, _)| lower.starts_with(word) && !lower[word.len()..].starts_with(|c: char| c.is_alphabetic()))
            .map_or(1.0, |(_, s)| *s);
        let letter_after = text[i..].starts_with(word_char);
        out.push(Number {
            value,
            decimals,
            scale,
            percent,
            in_word: letter_before || (letter_after && scale == 1.0),
            start,
            end: i,
        });
    }
    out
}

/// Whether the digits from `at` are a group of three after a thousands separator.
fn separated_group(bytes: &[u8], at: usize) -> bool {
    let group = bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    group == 3
}

/// The byte after a citation marker starting at `open` (`[2]`, `[^1]`, `[1, 3]`), if one does.
fn marker_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut digits = false;
    for (offset, &b) in bytes[open + 1..].iter().enumerate().take(40) {
        match b {
            b']' => return digits.then_some(open + offset + 2),
            b'0'..=b'9' => digits = true,
            b'^' | b',' | b' ' => {}
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Number {
        let found = numbers(text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        found[0]
    }

    #[test]
    fn numbers_are_read_with_their_sign_precision_scale_and_percent() {
        let n = one("a loss of $(1,508.25) million");
        assert_eq!((n.value, n.decimals, n.scale, n.percent), (-1508.25, 2, 1e6, false));
        assert!(one("up 65.4% on the year").percent);
        assert_eq!(one("$3bn").scaled(), 3e9);
        assert_eq!(one("in 2019 moreover").scale, 1.0);
        assert!(one("FY2019").in_word);
        assert!(numbers("2023Q2")[0].in_word);
        assert!(numbers("COCACOLA_2017_10K.pdf").iter().all(|n| n.in_word));
        assert!(!one("$3bn").in_word);
        assert_eq!(
            numbers("released 2023-01-25")
                .iter()
                .map(|n| n.value)
                .collect::<Vec<_>>(),
            [2023.0, 1.0, 25.0]
        );
        assert!(numbers("It grew [1] and fell [^2], [1, 3].").is_empty());
        assert_eq!(numbers("1,2,3").len(), 3, "not thousands");
    }

    #[test]
    fn an_answers_number_agrees_at_the_golds_precision_or_finer() {
        let agree = |answer: &str, gold: &str| one(answer).agrees(&one(gold));
        assert!(agree("1.87", "1.9"));
        assert!(agree("1.734", "1.73"));
        assert!(!agree("2", "1.73"), "less precise than the gold");
        assert!(!agree("1.7", "1.73"));
        assert!(agree("7", "7.0"), "equal");
        assert!(!agree("1,560", "1,577"));
        assert!(agree("$1.58 billion", "$1,577 million"));
        assert!(!agree("$1.6 billion", "$1,577 million"), "two significant digits");
        assert!(agree("1577", "$1,577 million"));
        assert!(agree("$1,577,000,000", "$1,577 million"));
        assert!(!agree("1,577 thousand", "$1,577 million"));
        assert!(agree("$11,588 million", "$11588.00"));
        assert!(!agree("$5.4 billion", "$1,577 million"));
        assert!(agree("65.4%", "0.654"));
        assert!(agree("0.654", "65.4%"));
        assert!(!agree("65%", "0.654"));
        assert!(!agree("3.2%", "-3.2%"));
    }

    #[test]
    fn an_answer_quotes_a_passage_rounded_but_never_more_precise() {
        let quotes = |answer: &str, passage: &str| one(answer).quotes(&one(passage));
        assert!(quotes("$1,611,240", "1,611,240"));
        assert!(quotes("$1.61 billion", "1,611,240"));
        assert!(quotes("$1,577 million", "1,577"));
        assert!(quotes("1,508", "(1,508)"));
        assert!(!quotes("2.35", "2"));
        assert!(!quotes("1,560", "1,577"));
        assert!(!quotes("1.61", "1,611,240"), "no scale word, no shift");
    }

    #[test]
    fn a_computed_value_is_written_like_the_number_it_replaces() {
        let at = |text: &str, value: f64| one(text).written_like(value, text);
        assert_eq!(at("65%", 65.38), "65.4");
        assert_eq!(at("1.65", 1.6538), "1.65");
        assert_eq!(at("3", 0.01234), "0.0123");
        assert_eq!(at("1,000", 590507.0), "590,507");
        assert_eq!(at("12", -3.0), "-3");
    }
}
