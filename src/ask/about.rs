//! Which document a question is about when it does not say. "What is on page 14?", "Who are the
//! authors of this paper?", "How many datasets does Table II list?" are asked of one document;
//! over a folder of many, pages of several documents would answer them at once. Such a question
//! is asked of the document the chat is about: the one open beside it, else the one its last
//! answer cited ([`About`]). When there is none, Lectern does not guess: it fails with the
//! likeliest documents to choose from ([`Error::WhichDocument`]), which the window shows as
//! chips and the command line and the API list.

use crate::catalog::{DocumentStatus, Scope, ScopedDocument};
use crate::error::Error;
use crate::fault::DocumentChoice;
use crate::search::{name_scores, pages_asked, SearchMode, SearchRequest};

use super::request::{About, AskRequest, AskedOf};
use super::Asker;

/// How many documents a question that names none offers to choose from.
pub const CHOICES: usize = 4;

/// How many passages the search for the choices reads.
const SEARCHED: usize = 20;

/// Words that say "the document" without naming one after "this" or "the", a word or two
/// between ("this survey paper", "the user manual").
#[rustfmt::skip]
const DOCUMENT_WORDS: [&str; 19] = [
    "document", "paper", "report", "manual", "guidebook", "handbook", "brochure", "article", "thesis",
    "booklet", "leaflet", "slides", "presentation", "pdf", "prospectus", "newsletter", "whitepaper", "author",
    "authors",
];

/// Words that say "the document" only after "this" ("this case", "this study"): after "the"
/// they are as often plain words ("in the case of a fire").
#[rustfmt::skip]
const THIS_WORDS: [&str; 12] = [
    "case", "file", "study", "survey", "book", "guide", "letter", "memo", "contract", "agreement", "proposal",
    "deck",
];

/// Parts of a document a question names by number or letter ("Table II", "Section 3.4",
/// "Appendix C", "Figure 2").
const PARTS: [&str; 8] = [
    "table", "figure", "fig", "section", "appendix", "chapter", "exhibit", "slide",
];

/// Parts whose label may be the letter "a" ("Appendix A"); after another part "a" is the article.
const LETTERED_PARTS: [&str; 2] = ["appendix", "exhibit"];

/// Whether `question` points at a document without naming one: "this paper", "the manual", a
/// page ("page 14", "the cover page"), or a numbered part ("Table II", "Appendix C"). Whether it
/// names one is [`names_a_document`]'s to say.
pub fn points_at_a_document(question: &str) -> bool {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let pointed = words.iter().enumerate().any(|(i, w)| {
        let before = &words[i.saturating_sub(3)..i];
        (DOCUMENT_WORDS.contains(w) && before.iter().any(|b| matches!(*b, "this" | "the")))
            || (THIS_WORDS.contains(w) && before.contains(&"this"))
    });
    let part = words
        .windows(2)
        .any(|pair| PARTS.contains(&pair[0]) && is_label(pair[0], pair[1]));
    pointed || part || !pages_asked(question).is_empty()
}

/// Whether `word` labels a numbered `part`: "2", "3.4", "ii", "c", "a1".
fn is_label(part: &str, word: &str) -> bool {
    let roman = word.len() <= 5 && word.chars().all(|c| matches!(c, 'i' | 'v' | 'x'));
    let letter = word.len() == 1
        && word.chars().all(|c| c.is_ascii_lowercase())
        && (word != "a" || LETTERED_PARTS.contains(&part));
    let number =
        word.chars().next().is_some_and(|c| c.is_ascii_digit()) && word.chars().all(|c| c.is_ascii_digit() || c == '.');
    let lettered = (2..=3).contains(&word.len())
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().skip(1).all(|c| c.is_ascii_digit());
    roman || letter || number || lettered
}

/// Whether `question` names one of `docs` (a word of its file name or title, other than the
/// words that only say "the document").
pub fn names_a_document(question: &str, docs: &crate::catalog::ScopeDocuments) -> bool {
    let lower = question.to_lowercase();
    let named: String = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !DOCUMENT_WORDS.contains(w) && !THIS_WORDS.contains(w) && !PARTS.contains(w))
        .collect::<Vec<_>>()
        .join(" ");
    name_scores(&named, docs).iter().any(|&s| s > 0.0)
}

impl Asker {
    /// The scope `request`'s question is asked over, and the document it was narrowed to: a
    /// question that points at a document without naming one, over a scope of several, is asked
    /// of the document the chat is about; without one, it fails with the likeliest documents.
    pub(super) async fn narrow(&self, request: &AskRequest, scope: &Scope) -> Result<(Scope, Option<AskedOf>), Error> {
        let question = request.question.as_str();
        if !scope.remotes.is_empty() || !points_at_a_document(question) {
            return Ok((scope.clone(), None));
        }
        let docs = self.engine.catalog().documents_in_scope(scope)?;
        if docs.len() <= 1 || names_a_document(question, &docs) {
            return Ok((scope.clone(), None));
        }
        if let Some(asked_of) = request
            .about
            .as_ref()
            .map(|about| self.asked_of(about))
            .transpose()?
            .flatten()
        {
            let narrowed = Scope {
                documents: vec![asked_of.document],
                ..Scope::default()
            };
            return Ok((narrowed, Some(asked_of)));
        }
        let found = crate::remote::search(
            &self.engine,
            &SearchRequest {
                query: question.to_string(),
                scope: scope.clone(),
                k: SEARCHED,
                mode: SearchMode::Hybrid,
                second_stage: false,
            },
        )
        .await?;
        let mut choices: Vec<DocumentChoice> = Vec::new();
        for hit in &found.hits {
            if choices.len() < CHOICES && !choices.iter().any(|c| c.id == hit.document) {
                if let Some(doc) = docs.iter().find(|d| d.id == hit.document) {
                    choices.push(choice(doc));
                }
            }
        }
        match choices.is_empty() {
            // Nothing found to choose from: the answer says so.
            true => Ok((scope.clone(), None)),
            false => Err(Error::WhichDocument {
                in_scope: docs.len(),
                choices,
            }),
        }
    }

    /// The document `about` names, if it is still there and ready.
    fn asked_of(&self, about: &About) -> Result<Option<AskedOf>, Error> {
        match self.engine.catalog().document(about.document) {
            Ok(doc) if doc.status == DocumentStatus::Ready => Ok(Some(AskedOf {
                document: doc.id,
                name: doc.display_name,
                because: about.because,
            })),
            Ok(_) | Err(crate::catalog::CatalogError::DocumentNotFound(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// A document to choose, as a choice names it.
fn choice(doc: &ScopedDocument) -> DocumentChoice {
    DocumentChoice {
        id: doc.id,
        name: crate::catalog::display_name(&doc.file_name, doc.title.as_deref()),
        folder: doc.folder_path.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_points_at_a_document_by_its_kind_its_pages_or_its_numbered_parts() {
        for question in [
            "Who are the authors of this paper?",
            "What does the user manual say about pairing?",
            "Who is the defendant of this case?",
            "What is on page 14?",
            "What is the title on the cover page?",
            "According to table II, which datasets have exactly three methods?",
            "How many strengths are mentioned in Appendix C?",
            "Does Section 3.3 cite more papers than Section 3.1?",
            "How many website urls does the document have?",
            "What does Appendix A list?",
        ] {
            assert!(points_at_a_document(question), "{question}");
        }
        for question in [
            "What was Adobe's operating income in FY2016?",
            "Which table lists the datasets?",
            "Using the income statement, what is the gross margin?",
            "What is the telephone number of The Limes Residential Home?",
            "How do I reset the headset?",
            "Is this a good year for papers on retrieval?",
            "What should I do in the case of a fire?",
            "Is there a table a reader could use?",
        ] {
            assert!(!points_at_a_document(question), "{question}");
        }
    }
}
