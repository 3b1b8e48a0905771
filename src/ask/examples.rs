//! Examples of the three kinds of message the `smart` strategy tells apart, for its nearest
//! neighbour step (`strategy.rs`): small talk, requests about the last answer, and questions to
//! the documents (standalone and follow-ups, over filings, papers, manuals and reports). Written
//! for this purpose; none is taken from the sets that measure the judge (`eval/smart.jsonl` and
//! the question sets).

/// Small talk and questions to the assistant itself.
#[rustfmt::skip]
pub const SMALL_TALK_EXAMPLES: &[&str] = &[
    "thank you very much", "thanks, that was quick", "many thanks!", "much appreciated", "you are a star",
    "great job", "lovely, cheers", "ok thanks bye", "good night", "see you tomorrow", "catch you later",
    "have a nice weekend", "hello again", "hey, how's it going?", "good evening", "hi!", "yo", "sup",
    "ok", "okay then", "alright", "fine by me", "got it, thanks", "makes sense now", "I see",
    "interesting!", "wow", "that's amazing", "ha, funny", "lol ok", "oops, my mistake", "sorry about that",
    "never mind", "forget it", "no worries", "that's all I needed", "nothing else for now", "I'm done",
    "who made you?", "what are you?", "are you an AI?", "which model are you?", "are you human?",
    "what can you help me with?", "do you store my files online?", "is this running locally?",
    "how do I use you?", "can you remember earlier chats?", "you're very helpful", "this is great, thanks a ton",
    "merci beaucoup", "danke schön", "gracias", "perfecto, gracias", "super, merci",
    "long day today", "I'm exhausted", "this is stressful", "haha nice one", "that's hilarious", "ugh, mondays",
    "how do I add a PDF?", "where are my files stored?", "can I change the model?", "does this work offline?",
    "how do I delete a chat?", "is there a dark mode?", "sorry, I typed too fast", "my bad",
    "salut !", "à plus tard", "danke dir", "tschüss", "hola", "adiós, gracias", "grazie mille", "ciao",
    "dank je wel", "tot ziens", "obrigado", "tchau",
];

/// Requests to do something with the last answer, needing no new facts.
#[rustfmt::skip]
pub const ABOUT_ANSWER: &[&str] = &[
    "make it shorter", "shorten this", "can you cut that down?", "too wordy, trim it", "give me the short version",
    "make it longer", "add more detail to that", "expand that answer", "go into more depth on that",
    "put this in a table", "as a table please", "format it as a list", "bullet it", "use numbered points",
    "as JSON", "in markdown", "wrap it in a code block", "as a CSV row", "bold the important part",
    "translate it to Italian", "in German please", "en français", "auf Deutsch bitte", "en español por favor",
    "say it in simpler words", "explain that to a beginner", "less jargon please", "make it easier to read",
    "reword that", "say it another way", "paraphrase your answer", "write it more formally",
    "make it friendlier", "make it sound professional", "make it more casual", "turn it into an email",
    "write it as a tweet", "make it a slide bullet", "turn that into a short summary", "sum that up",
    "summarise your answer", "one line only", "in two sentences", "keep it under 50 words",
    "what did you mean by that?", "I don't understand your answer", "can you clarify?", "why do you say that?",
    "are you certain?", "double-check that", "is that correct?", "that seems wrong, check again",
    "repeat the answer", "say that again", "continue", "go on please", "finish your answer",
    "remove the footnotes", "without the citations please", "drop the last sentence", "round it to billions",
    "write the number in words", "express that as a percentage", "capitalise it", "make a haiku of it",
    "only the number please", "no explanation, just the figure", "as a table with a column per year",
    "as JSON with one key per item", "rewrite it in the past tense", "use British spelling",
    "avoid the word profit", "round it to one decimal", "put the figures in bold", "sort that list",
    "number the steps", "put the most important point first", "make it fit on a slide",
    "plus court s'il te plaît", "tu peux reformuler ?", "kürzer bitte", "fasse das zusammen",
    "resúmelo", "explícalo mejor", "puoi riformularlo?", "più breve per favore", "in het Engels graag",
    "kan het korter?", "mais curto, por favor", "explica de novo",
];

/// Questions to the documents: standalone, and follow-ups that ask for something new.
#[rustfmt::skip]
pub const QUESTIONS: &[&str] = &[
    "What was the net income in 2021?", "How much cash did the company hold at year end?",
    "What is the debt to equity ratio?", "Who is the chief executive officer?", "Who audits the company?",
    "What were the main risk factors?", "How many employees does the company have?",
    "What dividend was paid per share?", "What is the gross margin for the last fiscal year?",
    "How did revenue change compared with the prior year?", "What was capital expenditure in 2019?",
    "List the company's segments", "Which region grew the fastest?", "What is the effective tax rate?",
    "What goodwill impairment was recorded?", "When does the credit facility mature?",
    "What dataset did the authors use?", "Which baseline does the paper compare against?",
    "What accuracy does the proposed model reach?", "How many participants were in the study?",
    "What is the main contribution of the paper?", "Which figure shows the architecture?",
    "How many tables are in the report?", "Who are the authors?", "What learning rate was used?",
    "How do I reset the device to factory settings?", "What is the maximum operating temperature?",
    "Which port does the service listen on?", "What does error code E42 mean?",
    "How often should the filter be replaced?", "What torque is recommended for the bolts?",
    "What is the population of the region in 2010?", "How many arrests were recorded?",
    "What does the brochure say about opening hours?", "What is the ticket price for students?",
    "Summarise the section on liquidity", "Explain the revenue recognition policy",
    "Describe the methodology", "What does the appendix list?", "Give me the table of contents",
    "and in 2020?", "what about operating income?", "and the year before?", "how about Europe?",
    "who signed it?", "why did it fall?", "when was that?", "how does that compare with last year?",
    "what caused the increase?", "which one was larger?", "and the second quarter?", "what about the CFO?",
    "same for the other segment?", "break that down by region", "what were the drivers?",
    "and its competitors?", "how much of that was debt?", "what does note 7 say about it?",
    "where is that mentioned?", "which page says that?", "is there a figure for 2018?",
    "Quel est le chiffre d'affaires?", "Wie hoch war der Gewinn?", "¿Cuál fue el beneficio neto?",
    "what comes after this step?", "and then what do I do?", "what happens next in the procedure?",
    "and the one before it?", "what does the next section cover?", "how long does that take?",
    "Qual foi a receita?", "Quanto è costato il progetto?", "Hoeveel werknemers zijn er?",
];
