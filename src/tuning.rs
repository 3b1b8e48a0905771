//! The constants of the query path that were chosen by measurement, together, so that they can be
//! measured again: a library searches with [`Tuning::FITTED`]; `lectern eval --tune NAME=VALUE,…`
//! measures others, and `scripts/fit-retrieval.py` fits each on one part of a question set and
//! reports it on another (docs/figures.md, "Honest folds").

use std::str::FromStr;

/// The weights of hybrid search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// The weight of the scaled cosine in hybrid fusion; the scaled BM25 gets the rest
    /// (`fusion.rs`).
    pub vector_weight: f32,
    /// The share of the most a question's terms could score at which a keyword match counts in
    /// full in hybrid fusion (`fusion.rs`).
    pub keyword_full: f32,
    /// What a document the question names adds to its passages' fused score, for the best-named
    /// one (`documents.rs`).
    pub name_weight: f32,
    /// What a page under a financial statement the question names adds to its score
    /// (`statements.rs`): more than the fused score (at most 1, and the name's weight) of any
    /// page could exceed another's by, so that it comes first; 0 turns the rule off.
    pub statement_boost: f32,
}

impl Tuning {
    /// What a library searches with: fitted on `../shared/devsets/realqa` and the sets of
    /// `eval/` (docs/figures.md, "Retrieval quality" and "Honest folds").
    pub const FITTED: Tuning = Tuning {
        vector_weight: 0.25,
        keyword_full: 0.3,
        name_weight: 0.2,
        statement_boost: 1.5,
    };

    /// Each constant's name, as `--tune` spells it.
    const NAMES: [&'static str; 4] = ["vector_weight", "keyword_full", "name_weight", "statement_boost"];

    /// The constant named `name`, if there is one.
    fn field(&mut self, name: &str) -> Option<&mut f32> {
        match name {
            "vector_weight" => Some(&mut self.vector_weight),
            "keyword_full" => Some(&mut self.keyword_full),
            "name_weight" => Some(&mut self.name_weight),
            "statement_boost" => Some(&mut self.statement_boost),
            _ => None,
        }
    }
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning::FITTED
    }
}

impl FromStr for Tuning {
    type Err = String;

    /// `NAME=VALUE,…` over [`Tuning::FITTED`]: `vector_weight=0.4,name_weight=0`.
    fn from_str(text: &str) -> Result<Tuning, String> {
        let mut tuning = Tuning::FITTED;
        let names = || Tuning::NAMES.join(", ");
        for setting in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = setting
                .split_once('=')
                .ok_or_else(|| format!("\"{setting}\" is not NAME=VALUE (names: {})", names()))?;
            let value: f32 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f32| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{name}: \"{value}\" is not a number of 0 or more"))?;
            let Some(slot) = tuning.field(name.trim()) else {
                return Err(format!("no constant named \"{name}\" (names: {})", names()));
            };
            *slot = value;
        }
        if tuning.vector_weight > 1.0 {
            return Err("vector_weight is a share: from 0 to 1".into());
        }
        Ok(tuning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_over_the_fitted_tuning_and_mistakes_named() {
        let tuning: Tuning = "vector_weight=0.4, statement_boost=0".parse().unwrap();
        assert_eq!(
            tuning,
            Tuning {
                vector_weight: 0.4,
                statement_boost: 0.0,
                ..Tuning::FITTED
            }
        );
        assert_eq!("".parse::<Tuning>().unwrap(), Tuning::FITTED);
        let err = "vector=0.4".parse::<Tuning>().unwrap_err();
        assert!(err.contains("vector_weight, keyword_full"), "{err}");
        assert!("name_weight=-1".parse::<Tuning>().is_err());
        assert!("vector_weight=1.5".parse::<Tuning>().is_err());
        assert!("name_weight".parse::<Tuning>().is_err());
    }
}
