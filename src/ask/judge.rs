//! When a message needs the documents: the `smart` strategy's judge, which costs no language
//! model time. Small talk ("thanks", "hello") needs no passages; a request about the last answer
//! ("shorter please", "make it a table", "say that in French") needs the passages the chat's last
//! question found, not a search for its own words; anything else is searched. Two steps: word
//! rules that recognise the plain cases, then the message's nearest examples (`examples.rs`) by
//! the embedding model that embeds questions anyway and, where it is installed, by the second
//! stage's stronger one, their nearness averaged. A message the judge is unsure of is
//! searched: a needless search costs milliseconds, a missed one a wrong answer.
//! `lectern eval strategy` measures it (docs/figures.md, "Retrieval strategies").

use std::sync::Arc;

use super::examples::{ABOUT_ANSWER, QUESTIONS, SMALL_TALK_EXAMPLES};
use crate::embed::{EmbedError, Embedder, GgufEmbedder, QUERY_PREFIX};
use crate::llm::{Message, Role};

/// What a message of a chat needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Something the documents may say: search for it.
    Documents,
    /// Something about the last answer: its question's passages.
    LastAnswer,
    /// Small talk: no passages.
    Nothing,
}

/// The `smart` strategy's judge: the word rules, then the nearest examples, by the library's
/// embedder and, where it is installed, by the second stage's model too.
pub struct Judge {
    /// The embedders the examples are compared by, each with its examples' vectors.
    views: Vec<View>,
}

/// One embedder's view of the examples.
struct View {
    embedder: JudgeEmbedder,
    /// Each example's vector and what it needs.
    examples: Vec<(Vec<f32>, Need)>,
}

/// An embedder the judge compares messages by.
#[derive(Clone)]
pub enum JudgeEmbedder {
    /// The library's (MiniLM unless configured otherwise).
    Library(Arc<dyn Embedder>),
    /// nomic-embed-text-v1.5, given the messages as search queries.
    Nomic(Arc<GgufEmbedder>),
}

impl JudgeEmbedder {
    /// One unit-length vector per text.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vectors = match self {
            JudgeEmbedder::Library(embedder) => embedder.embed(texts)?,
            JudgeEmbedder::Nomic(model) => {
                let texts: Vec<String> = texts.iter().map(|t| format!("{QUERY_PREFIX}{t}")).collect();
                model.embed(&texts)?
            }
        };
        Ok(vectors.into_iter().map(normalised).collect())
    }
}

/// How many nearest examples of each kind are averaged.
const NEAREST: usize = 3;

/// How much nearer a message must be to the examples that need no search than to the questions
/// for the judge not to search, by MiniLM alone.
const MARGIN: f32 = 0.12;

/// The same, in the mean of MiniLM's and nomic-embed-text's nearness: just above every
/// question of our own sets and of realqa (docs/figures.md, "Retrieval strategies").
const MARGIN_OF_TWO: f32 = 0.07;

impl Judge {
    /// The judge by `embedders` (the library's first), their examples embedded once.
    pub fn new(embedders: Vec<JudgeEmbedder>) -> Result<Judge, EmbedError> {
        let kinds = [
            (SMALL_TALK_EXAMPLES, Need::Nothing),
            (ABOUT_ANSWER, Need::LastAnswer),
            (QUESTIONS, Need::Documents),
        ];
        let mut views = Vec::with_capacity(embedders.len());
        for embedder in embedders {
            let mut examples = Vec::new();
            for (texts, need) in kinds {
                let vectors = embedder.embed(texts)?;
                examples.extend(vectors.into_iter().map(|v| (v, need)));
            }
            views.push(View { embedder, examples });
        }
        Ok(Judge { views })
    }

    /// What each of `messages` needs, each as the next message after `history` (oldest first).
    /// A request about the last answer needs one to exist; without it, the message is searched.
    pub fn needs(&self, messages: &[&str], history: &[Message]) -> Result<Vec<Need>, EmbedError> {
        let answered = history.iter().any(|m| m.role == Role::Assistant);
        let vectors = self
            .views
            .iter()
            .map(|view| view.embedder.embed(messages))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                let judged = by_rule(message).unwrap_or_else(|| self.nearest(&vectors, i));
                match judged {
                    Need::LastAnswer if !answered => Need::Documents,
                    judged => judged,
                }
            })
            .collect())
    }

    /// What the nearest examples of message `at` (its vectors in `vectors`, a list per view)
    /// need: no search only when those that need none are clearly nearer than the questions,
    /// in the mean of the views.
    fn nearest(&self, vectors: &[Vec<Vec<f32>>], at: usize) -> Need {
        let mut nearness = [0.0f32; 3];
        for (view, vectors) in self.views.iter().zip(vectors) {
            let Some(vector) = vectors.get(at) else {
                return Need::Documents;
            };
            for (slot, need) in [Need::Nothing, Need::LastAnswer, Need::Documents]
                .into_iter()
                .enumerate()
            {
                nearness[slot] += view.closeness(vector, need) / self.views.len() as f32;
            }
        }
        let [chat, about, question] = nearness;
        let margin = if self.views.len() > 1 { MARGIN_OF_TWO } else { MARGIN };
        if chat.max(about) < question + margin {
            Need::Documents
        } else if chat >= about {
            Need::Nothing
        } else {
            Need::LastAnswer
        }
    }
}

impl View {
    /// The mean cosine of `vector`'s [`NEAREST`] examples that need `need`.
    fn closeness(&self, vector: &[f32], need: Need) -> f32 {
        let mut cosines: Vec<f32> = self
            .examples
            .iter()
            .filter(|(_, n)| *n == need)
            .map(|(example, _)| example.iter().zip(vector).map(|(a, b)| a * b).sum())
            .collect();
        cosines.sort_by(|a, b| b.total_cmp(a));
        cosines.iter().take(NEAREST).sum::<f32>() / NEAREST as f32
    }
}

/// `vector` scaled to length 1.
fn normalised(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
    vector
}

/// What the word rules say `message` needs: small talk, a request about the last answer, or
/// nothing they recognise.
fn by_rule(message: &str) -> Option<Need> {
    let words = words(message);
    if words.is_empty() || words.iter().all(|w| SMALL_TALK.contains(&w.as_str())) || has_phrase(&words, ABOUT_LECTERN) {
        return Some(Need::Nothing);
    }
    about_last_answer(&words).then_some(Need::LastAnswer)
}

/// Whether the words ask for something done to the last answer: a request of that kind, and
/// nothing new to look up beside it (no word of content but those pointing back at the answer,
/// at most two with them), and no document named.
fn about_last_answer(words: &[String]) -> bool {
    // Naming a language asks for the answer in it.
    let requests = words
        .iter()
        .any(|w| REQUEST_WORDS.contains(&w.as_str()) || LANGUAGES.contains(&w.as_str()))
        || has_phrase(words, REQUEST_PHRASES);
    if !requests || words.iter().any(|w| DOCUMENT_NOUNS.contains(&w.as_str())) {
        return false;
    }
    let points_back = words.iter().any(|w| POINTING_BACK.contains(&w.as_str()));
    let content = words
        .iter()
        .filter(|w| {
            let w = w.as_str();
            !(REQUEST_WORDS.contains(&w)
                || POINTING_BACK.contains(&w)
                || FUNCTION_WORDS.contains(&w)
                || LANGUAGES.contains(&w)
                || SMALL_TALK.contains(&w)
                || (w.len() <= 2 && w.chars().all(|c| c.is_ascii_digit())))
        })
        .count();
    content == 0 || (points_back && content <= 2)
}

/// The message's words, lower case, apostrophes kept inside words ("that's").
fn words(message: &str) -> Vec<String> {
    message
        .to_lowercase()
        .replace(['’', '‘'], "'")
        .replace("tl;dr", "tldr")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `words` hold one of `phrases` (each a run of whole words).
fn has_phrase(words: &[String], phrases: &[&str]) -> bool {
    phrases.iter().any(|phrase| {
        let wanted: Vec<&str> = phrase.split(' ').collect();
        words
            .windows(wanted.len())
            .any(|window| window.iter().zip(&wanted).all(|(w, p)| w == p))
    })
}

/// Words of which a message of small talk is made entirely.
#[rustfmt::skip]
const SMALL_TALK: &[&str] = &[
    "thanks", "thank", "you", "thx", "ty", "cheers", "great", "good", "nice", "cool", "ok", "okay", "k",
    "perfect", "awesome", "excellent", "wonderful", "brilliant", "fantastic", "amazing", "super", "hi", "hello",
    "hey", "morning", "afternoon", "evening", "night", "bye", "goodbye", "see", "later", "got", "it",
    "understood", "sure", "yes", "yeah", "yep", "no", "nope", "alright", "right", "fine", "wow", "that's",
    "thats", "that", "is", "was", "very", "so", "much", "a", "lot", "really", "helpful", "useful", "appreciate",
    "appreciated", "lol", "haha", "sounds", "makes", "sense", "clear", "noted", "please", "job", "done", "well",
    "again", "for", "the", "help", "all", "i", "see", "interesting", "exactly", "indeed", "agreed", "gotcha",
    "np", "welcome", "there", "to", "be", "will", "do", "have", "day", "bad", "too", "oh", "ah", "hmm", "and",
    "now", "just", "what", "wanted", "need", "needed", "looks", "sweet", "lovely", "neat", "correct", "true",
    "helps", "helped",
];

/// Questions to Lectern itself rather than to the documents.
#[rustfmt::skip]
const ABOUT_LECTERN: &[&str] = &[
    "who are you", "what are you", "what can you do", "how are you", "what is your name", "what's your name",
    "are you there", "how do you work",
];

/// Words that ask for something done to the last answer.
#[rustfmt::skip]
const REQUEST_WORDS: &[&str] = &[
    "shorter", "shorten", "longer", "lengthen", "brief", "briefer", "briefly", "concise", "concisely", "succinct",
    "simpler", "simplify", "simply", "plainer", "rephrase", "reword", "rewrite", "restate", "paraphrase", "table",
    "tabular", "list", "bullet", "bullets", "bulleted", "numbered", "format", "formatted", "markdown", "json",
    "csv", "translate", "summarize", "summarise", "summary", "tldr", "recap", "explain", "elaborate", "expand",
    "clarify", "detail", "details", "detailed", "eli5", "repeat", "continue", "sentence", "sentences",
    "paragraph", "paragraphs", "words", "capitalize", "uppercase", "lowercase", "formal", "informal", "casual",
    "tone", "polite", "friendlier", "technical", "jargon", "mean", "meant", "means", "sure", "verbose", "short",
    "long", "points", "step", "steps", "example", "examples", "again", "condense", "compress", "outline", "plain",
    "formally", "informally",
];

/// Requests said in several words.
#[rustfmt::skip]
const REQUEST_PHRASES: &[&str] = &[
    "go on", "keep going", "in english", "plain english", "plain language", "less technical",
    "more technical", "spell out", "in full", "like i'm five", "like im five", "one word", "fewer words",
    "you said", "your answer", "are you sure",
];

/// Words that point back at the last answer.
#[rustfmt::skip]
const POINTING_BACK: &[&str] = &[
    "it", "that", "this", "those", "these", "them", "above", "answer", "response", "reply", "previous", "last",
    "earlier", "said", "your", "you", "that's", "thats",
];

/// Words that say nothing of what to look up.
#[rustfmt::skip]
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "can", "could", "would", "will", "please", "pls", "me", "in", "as", "to", "of", "for",
    "with", "and", "or", "into", "more", "less", "bit", "little", "much", "very", "do", "just", "now", "same",
    "instead", "but", "so", "only", "use", "using", "is", "are", "be", "was", "were", "what", "how", "make",
    "put", "turn", "write", "say", "give", "show", "i", "want", "need", "like", "it's", "its", "by", "on", "at",
    "one", "two", "three", "four", "five", "few", "some", "form", "way", "terms", "simple", "easier", "easy",
    "understand", "again", "try", "let's", "lets", "then", "also", "too", "there", "than", "possible", "maybe",
    "which", "does", "did", "not", "don't", "dont", "get", "kid", "child", "five-year-old", "year", "old",
    "language", "version",
];

/// Languages an answer may be asked in.
#[rustfmt::skip]
const LANGUAGES: &[&str] = &[
    "english", "french", "german", "spanish", "italian", "portuguese", "dutch", "chinese", "japanese", "korean",
    "russian", "arabic", "hindi", "polish", "swedish", "turkish",
];

/// Words that name a document or a part of one: a request about one of them is searched.
#[rustfmt::skip]
const DOCUMENT_NOUNS: &[&str] = &[
    "document", "documents", "paper", "report", "pdf", "file", "files", "article", "chapter", "section", "page",
    "pages", "manual", "filing", "statement", "appendix", "abstract", "book", "guide",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_know_small_talk_and_requests_about_the_answer_and_leave_questions_alone() {
        for message in ["Thanks!", "thank you so much", "Hello", "ok great", "Who are you?"] {
            assert_eq!(by_rule(message), Some(Need::Nothing), "{message}");
        }
        for message in [
            "Make it a table",
            "shorter please",
            "Can you say that in French?",
            "Explain it simply",
            "tl;dr?",
        ] {
            assert_eq!(by_rule(message), Some(Need::LastAnswer), "{message}");
        }
        for message in [
            "And in 2022?",
            "Who wrote it?",
            "Explain the depreciation policy",
            "Summarize this document",
            "What was the operating margin?",
        ] {
            assert_eq!(by_rule(message), None, "{message}");
        }
    }
}
