//! Computations an answer writes out, found and evaluated by Lectern: "(1,611,240 - 1,020,530) /
//! 1,020,530 = 57.9%" is an expression over numbers (`+ - * / × ÷`, a lone `x`, parentheses), an
//! equals sign (`=` or `≈`) and a result; the result may come first ("57.9% = ..."), and a chain
//! may give it twice ("... = 0.579 = 57.9%"). Signs and parentheses are read from the
//! expression, not from the numbers: in a computation "(1,020,530)" is a group, not a negative.
//! An operand written as a percent counts as its hundredth; a percent result is the value times
//! 100 unless the expression already multiplies by 100.

use super::numbers::Number;

/// A computation of a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Computation {
    /// The indexes (into the sentence's numbers) of the expression's operands.
    pub operands: Vec<usize>,
    /// The indexes of the numbers the expression is said to equal.
    pub results: Vec<usize>,
    /// The expression's value, exactly as Lectern computes it.
    pub value: f64,
    /// Whether the expression multiplies by 100 itself (its value is already a percent).
    pub in_percent: bool,
}

impl Computation {
    /// What result `number` should read: the value in the result's scale and, for a percent
    /// result of an expression that does not multiply by 100 itself, times 100. Operands
    /// without a scale word (a table's, in thousands or millions) and a result with one are
    /// put in the result's scale by the power of a thousand that brings them nearest to it.
    pub fn value_as(&self, number: &Number, numbers: &[Number]) -> f64 {
        let value = if number.percent && !self.in_percent {
            self.value * 100.0
        } else {
            self.value
        };
        let unscaled = self.operands.iter().all(|&i| numbers[i].scale == 1.0);
        if number.scale == 1.0 || !unscaled || value == 0.0 || number.value == 0.0 {
            return value / number.scale;
        }
        let distance = |v: f64| (v.abs().log10() - number.value.abs().log10()).abs();
        [1.0, 1e3, 1e6, 1e9]
            .iter()
            .map(|shift| value * shift / number.scale)
            .min_by(|a, b| distance(*a).total_cmp(&distance(*b)))
            .unwrap_or(value)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    /// A number, by its index among the sentence's numbers.
    Number(usize),
    Op(char),
    Open,
    Close,
    Equals,
    /// Anything else: words, commas; no computation spans it.
    Break,
}

/// The computations written in `sentence`, whose numbers are `numbers` (from
/// [`super::numbers::numbers`]).
pub fn computations(sentence: &str, numbers: &[Number]) -> Vec<Computation> {
    let tokens = tokens(sentence, numbers);
    let mut found = Vec::new();
    for run in tokens.split(|t| *t == Token::Break) {
        let parts: Vec<&[Token]> = run.split(|t| *t == Token::Equals).collect();
        if parts.len() < 2 {
            continue;
        }
        let single = |part: &[Token]| {
            let inner: Vec<Token> = part
                .iter()
                .copied()
                .filter(|t| !matches!(t, Token::Open | Token::Close))
                .collect();
            match inner.as_slice() {
                [Token::Number(n)] => Some(*n),
                _ => None,
            }
        };
        let Some(expression) = parts.iter().find(|p| p.iter().any(|t| matches!(t, Token::Op(_)))) else {
            continue;
        };
        let Some(value) = evaluate(expression, numbers) else {
            continue;
        };
        let results: Vec<usize> = parts.iter().filter_map(|p| single(p)).collect();
        if results.is_empty() || !value.is_finite() {
            continue;
        }
        let operands: Vec<usize> = expression
            .iter()
            .filter_map(|t| match t {
                Token::Number(n) => Some(*n),
                _ => None,
            })
            .collect();
        let in_percent = expression.windows(2).any(|w| match w {
            [Token::Op('*'), Token::Number(n)] | [Token::Number(n), Token::Op('*')] => numbers[*n].value.abs() == 100.0,
            _ => false,
        });
        found.push(Computation {
            operands,
            results,
            value,
            in_percent,
        });
    }
    found
}

/// The sentence as tokens: numbers (with their `%` and scale word), operators, parentheses,
/// equals signs; spaces and currency signs are skipped; anything else breaks.
fn tokens(sentence: &str, numbers: &[Number]) -> Vec<Token> {
    let mut out = Vec::new();
    let push = |out: &mut Vec<Token>, t: Token| {
        if !(t == Token::Break && out.last() == Some(&Token::Break)) {
            out.push(t);
        }
    };
    let mut next = numbers.iter().enumerate().peekable();
    let mut at = 0;
    while at < sentence.len() {
        if let Some((index, number)) = next.peek().copied().filter(|(_, n)| n.start == at) {
            next.next();
            push(
                &mut out,
                if number.in_word {
                    Token::Break
                } else {
                    Token::Number(index)
                },
            );
            at = past_number(sentence, number);
            continue;
        }
        let Some(c) = sentence[at..].chars().next() else {
            break;
        };
        let before = sentence[..at].chars().next_back();
        let after = sentence[at + c.len_utf8()..].chars().next();
        let token = match c {
            ' ' | '\u{a0}' | '$' | '€' | '£' => None,
            '+' => Some(Token::Op('+')),
            '-' | '−' | '–' => Some(Token::Op('-')),
            '*' | '×' | '·' => Some(Token::Op('*')),
            'x' | 'X' if before.is_some_and(char::is_whitespace) && after.is_some_and(char::is_whitespace) => {
                Some(Token::Op('*'))
            }
            '/' | '÷' => Some(Token::Op('/')),
            '(' => Some(Token::Open),
            ')' => Some(Token::Close),
            '=' | '≈' => Some(Token::Equals),
            _ => Some(Token::Break),
        };
        if let Some(token) = token {
            push(&mut out, token);
        }
        at += c.len_utf8();
    }
    out
}

/// The byte after `number` with the `%` or scale word that belongs to it.
fn past_number(sentence: &str, number: &Number) -> usize {
    let rest = &sentence[number.end..];
    let spaces = rest.len() - rest.trim_start_matches(' ').len();
    let word = &rest[spaces..];
    if word.starts_with('%') {
        return number.end + spaces + 1;
    }
    if number.scale > 1.0 {
        let letters = word
            .chars()
            .take_while(|c| c.is_alphabetic())
            .map(char::len_utf8)
            .sum::<usize>();
        return number.end + spaces + letters;
    }
    number.end
}

/// The value of `tokens` as an arithmetic expression over `numbers` (absolute, scaled, a
/// percent as its hundredth); `None` if they are not one.
fn evaluate(tokens: &[Token], numbers: &[Number]) -> Option<f64> {
    let mut parser = Parser { tokens, numbers, at: 0 };
    let value = parser.sum()?;
    (parser.at == tokens.len()).then_some(value)
}

/// A recursive-descent reader of an expression: sums of products of factors.
struct Parser<'a> {
    tokens: &'a [Token],
    numbers: &'a [Number],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Option<f64> {
        let mut value = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek() {
            self.at += 1;
            let right = self.product()?;
            value = if op == '+' { value + right } else { value - right };
        }
        Some(value)
    }

    fn product(&mut self) -> Option<f64> {
        let mut value = self.factor()?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.peek() {
            self.at += 1;
            let right = self.factor()?;
            value = match op {
                '*' => value * right,
                _ if right != 0.0 => value / right,
                _ => return None,
            };
        }
        Some(value)
    }

    fn factor(&mut self) -> Option<f64> {
        let token = self.peek()?;
        self.at += 1;
        match token {
            Token::Number(n) => {
                let number = &self.numbers[n];
                let percent = if number.percent { 100.0 } else { 1.0 };
                Some(number.scaled().abs() / percent)
            }
            Token::Op('-') => self.factor().map(|v| -v),
            Token::Open => {
                let value = self.sum()?;
                if self.peek() != Some(Token::Close) {
                    return None;
                }
                self.at += 1;
                Some(value)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::numbers::numbers;
    use super::*;

    fn computed(sentence: &str) -> Vec<(Vec<f64>, Vec<f64>, f64)> {
        let found = numbers(sentence);
        computations(sentence, &found)
            .iter()
            .map(|c| {
                let values = |ix: &[usize]| ix.iter().map(|&i| found[i].value.abs()).collect();
                let result = found[c.results[0]];
                (
                    values(&c.operands),
                    values(&c.results),
                    (c.value_as(&result, &found) * 1e4).round() / 1e4,
                )
            })
            .collect()
    }

    #[test]
    fn a_written_computation_is_found_and_evaluated() {
        assert_eq!(
            computed("The change is (1,611,240 - 1,020,530) / 1,020,530 = 57.9% [1]."),
            [(vec![1611240.0, 1020530.0, 1020530.0], vec![57.9], 57.8827)]
        );
        assert_eq!(
            computed("Turnover: 1.52 = $6,489 / $4,269 [2]."),
            [(vec![6489.0, 4269.0], vec![1.52], 1.52)]
        );
        assert_eq!(
            computed("It is 590,710 / 1,020,530 × 100 ≈ 57.88% [1]"),
            [(vec![590710.0, 1020530.0, 100.0], vec![57.88], 57.8827)]
        );
        assert_eq!(
            computed("a chain 3 x 4 = 12 = 12.0"),
            [(vec![3.0, 4.0], vec![12.0, 12.0], 12.0)]
        );
    }

    #[test]
    fn ranges_dates_and_lone_equations_are_not_computations() {
        assert!(computed("Revenue rose from 2015-2016 by 12% [1].").is_empty());
        assert!(computed("The ratio is 6,489 / 4,269 [2].").is_empty());
        assert!(computed("In FY2019 - FY2018 = 5 things").is_empty());
        assert!(computed("Net income = 1,204,460 [1].").is_empty());
        assert!(computed("(3 + ) = 4").is_empty());
        assert!(computed("1 / 0 = 4").is_empty());
    }
}
