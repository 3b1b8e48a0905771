//! A figure a question asks of a filing's statements, computed by Lectern from the rows of the
//! documents the question names or a search found for it ([`crate::answer::figures`]), before
//! any model is asked.

use super::{Asker, Events};
use crate::answer::figures::{self, Asked, Sheet};
use crate::answer::{Answer, AnswerEvent, Stage};
use crate::catalog::{DocumentId, Scope, ScopeDocuments, ScopedDocument};
use crate::engine::Engine;
use crate::error::Error;
use crate::search::{name_scores, Hit};

/// How many documents the question names by their names are read, at most.
const NAMED: usize = 4;

impl Asker {
    /// The answer computing the figure `question` asks for, from the first document whose rows
    /// give every operand, with the rows it cites as hits; `None` when the question asks for no
    /// figure Lectern can compute or no document gives it. Read first are the documents of
    /// `scope` whose names the question names ("PepsiCo's FY2021 capex": the PepsiCo filings,
    /// even where another company's passages ranked higher), those among `hits` in their order
    /// and then the others. Where it names none, only a scope of one document is read: over
    /// several, whichever document gave the operands would be a guess at the company meant
    /// (the model answers then, its passages cited).
    pub(super) async fn computed_figure(
        &self,
        question: &str,
        scope: &Scope,
        hits: &[Hit],
        events: &Events,
    ) -> Result<Option<(Answer, Vec<Hit>)>, Error> {
        let Some(asked) = figures::asked(question) else {
            return Ok(None);
        };
        events.send(AnswerEvent::stage(Stage::Computing));
        let (engine, question, scope, hits, mut send) = (
            self.engine.clone(),
            question.to_string(),
            scope.clone(),
            hits.to_vec(),
            events.sink(),
        );
        tokio::task::spawn_blocking(move || compute(&engine, &asked, &question, &scope, &hits, &mut send))
            .await
            .map_err(Error::stopped("computing a figure"))?
    }
}

/// [`Asker::computed_figure`]'s work, once the question asks for a figure. Blocking: it reads
/// the documents' passages.
fn compute(
    engine: &Engine,
    asked: &Asked,
    question: &str,
    scope: &Scope,
    hits: &[Hit],
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Option<(Answer, Vec<Hit>)>, Error> {
    let local: Vec<&Hit> = hits.iter().filter(|h| h.remote.is_none()).collect();
    let rank = |id: DocumentId| local.iter().position(|h| h.document == id).unwrap_or(usize::MAX);
    // Each candidate with a hit of it (for its name and folder), made for a named
    // document the search did not find.
    let mut candidates: Vec<Hit> = Vec::new();
    let docs = if scope.has_local_part() {
        engine.catalog().documents_in_scope(scope)?
    } else {
        std::sync::Arc::new(ScopeDocuments::new(Vec::new()))
    };
    let scores = name_scores(question, &docs);
    let mut named: Vec<(f32, usize, &ScopedDocument)> = docs
        .iter()
        .zip(&scores)
        .filter(|(_, s)| **s > 0.0)
        .map(|(d, s)| (*s, rank(d.id), d))
        .collect();
    // Those the search found first, in its order (a word of the question may name
    // other documents by the start of their names: "net" names NETFLIX); then the rest
    // by how well the question names them.
    named.sort_by(|a, b| a.1.cmp(&b.1).then(b.0.total_cmp(&a.0)));
    candidates.extend(named.into_iter().take(NAMED).map(|(_, at, d)| match local.get(at) {
        Some(hit) => (*hit).clone(),
        None => hit_of(d),
    }));
    // Only where the question names no document: one it names but whose rows lack the
    // figure is no reason to give another company's (PepsiCo's FY2022 cash ratio is not
    // General Mills').
    if let ([only], true) = (&docs[..], candidates.is_empty()) {
        candidates.push(
            local
                .iter()
                .find(|h| h.document == only.id)
                .map_or_else(|| hit_of(only), |h| (*h).clone()),
        );
    }
    for source in candidates {
        let doc = engine.catalog().document(source.document)?;
        let chunks = engine.stored_chunks(&doc)?;
        if let Some(solved) = figures::solve(asked, &Sheet::of(&chunks), question) {
            return Ok(Some(figures::answer(&solved, &chunks, &source, on_event)));
        }
    }
    Ok(None)
}

/// A hit standing for `doc` as a whole, for a document the search did not find: what a
/// citation of one of its rows takes from it (its id, name and folder).
fn hit_of(doc: &ScopedDocument) -> Hit {
    Hit {
        document: doc.id,
        document_name: doc.file_name.clone(),
        folder: doc.folder,
        folder_path: doc.folder_path.clone(),
        chunk_id: String::new(),
        page: 1,
        char_start: 0,
        char_end: 0,
        text: String::new(),
        score: 0.0,
        components: Default::default(),
        remote: None,
        context: String::new(),
    }
}
