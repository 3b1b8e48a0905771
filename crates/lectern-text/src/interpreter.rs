//! Runs a page's content stream far enough to know where every glyph lands: the graphics state
//! (`q`/`Q`, `cm`), the text state and operators (`BT`..`ET`, `Tf`, `Td`, `TD`, `Tm`, `T*`,
//! `TL`, `Tc`, `Tw`, `Tz`, `Ts`, `Tr`, `Tj`, `TJ`, `'`, `"`), and Form XObjects through `Do`.
//! Images are skipped without decoding (only counted). Marked content with `/ActualText` (tagged
//! PDFs' emoji, ligatures, hyphenation) replaces the text of the glyphs it covers, as in poppler.
//! Work is bounded: operations, glyphs, text and nesting.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use crate::annotations::Appearance;
use crate::font::Font;
use crate::layout::PlacedGlyph;
use crate::matrix::Matrix;
use crate::pdf_object::{form_matrix, get, get_dict, get_name, number, numbers, resolve, stream_bytes};
use crate::Limits;

/// Deepest `q` nesting kept; deeper saves are counted but not stored.
const MAX_SAVED_STATES: usize = 256;

/// The graphics and text state `q` saves.
#[derive(Clone)]
struct State {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    horizontal_scale: f32,
    leading: f32,
    rise: f32,
}

impl State {
    fn new(ctm: Matrix) -> State {
        State {
            ctm,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            horizontal_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        }
    }
}

/// Fonts decoded so far in a document, by the address of their dictionary.
pub type FontCache = HashMap<usize, Rc<Font>>;

/// What one page's content put on the page.
#[derive(Default)]
pub struct Shown {
    pub glyphs: Vec<PlacedGlyph>,
    /// The text of all glyphs; each glyph holds a range of it.
    pub text: String,
    /// Glyphs shown, whether or not their font maps them to text.
    pub glyph_count: usize,
    /// Per font name: glyphs shown and glyphs that had text.
    pub fonts: HashMap<String, (usize, usize)>,
    /// Images painted (image XObjects and inline images), forms included.
    pub images: usize,
    /// A limit stopped the page early.
    pub truncated: bool,
}

/// The interpreter of one page.
pub struct Interpreter<'a> {
    doc: &'a Document,
    fonts: &'a mut FontCache,
    limits: Limits,
    operations: usize,
    shown: Shown,
    /// Forms being run, to refuse a form that draws itself.
    forms: HashSet<ObjectId>,
    /// Bytes the page's forms decoded to so far.
    forms_decoded: usize,
    /// A space glyph was seen; the next glyph starts a word.
    pending_space: bool,
    /// Open marked-content sequences, each with its `/ActualText` if it has one.
    marked: Vec<Option<ActualText>>,
}

/// The replacement text of a marked-content sequence; it is given to the sequence's first glyph.
struct ActualText {
    text: String,
    given: bool,
}

/// The text matrices of a text object.
struct Text {
    matrix: Matrix,
    line: Matrix,
}

impl<'a> Interpreter<'a> {
    pub fn new(doc: &'a Document, fonts: &'a mut FontCache, limits: Limits) -> Interpreter<'a> {
        Interpreter {
            doc,
            fonts,
            limits,
            operations: 0,
            shown: Shown::default(),
            forms: HashSet::new(),
            forms_decoded: 0,
            pending_space: false,
            marked: Vec::new(),
        }
    }

    pub fn finish(self) -> Shown {
        self.shown
    }

    /// Runs a content stream with its resources (nearest first) and initial matrix.
    pub fn run(&mut self, content: &[u8], resources: &[&'a Dictionary], ctm: Matrix, depth: usize) {
        let mut state = State::new(ctm);
        let marked_outside = self.marked.len();
        let mut saved: Vec<State> = Vec::new();
        let mut unsaved_depth = 0usize;
        let mut text = Text {
            matrix: Matrix::IDENTITY,
            line: Matrix::IDENTITY,
        };
        for operation in Content::decode_iter(content) {
            let Ok(operation) = operation else { break };
            self.operations += 1;
            if self.shown.truncated
                || self.operations > self.limits.max_operations
                || self.shown.glyph_count > self.limits.max_glyphs
            {
                self.shown.truncated = true;
                break;
            }
            let ops = &operation.operands;
            match operation.operator.as_str() {
                "q" => {
                    if saved.len() < MAX_SAVED_STATES {
                        saved.push(state.clone());
                    } else {
                        unsaved_depth += 1;
                    }
                }
                "Q" => {
                    if unsaved_depth > 0 {
                        unsaved_depth -= 1;
                    } else if let Some(previous) = saved.pop() {
                        state = previous;
                    }
                }
                "cm" => {
                    if let Some(m) = Matrix::from_slice(&numbers(ops)) {
                        state.ctm = m.then(&state.ctm);
                    }
                }
                "BT" => {
                    text.matrix = Matrix::IDENTITY;
                    text.line = Matrix::IDENTITY;
                }
                "Tf" => {
                    if let [Object::Name(name), size] = ops.as_slice() {
                        state.font = self.font(resources, name);
                        state.size = number(size).unwrap_or(0.0);
                    }
                }
                "Tc" => state.char_spacing = numbers(ops).first().copied().unwrap_or(0.0),
                "Tw" => state.word_spacing = numbers(ops).first().copied().unwrap_or(0.0),
                "Tz" => state.horizontal_scale = numbers(ops).first().copied().unwrap_or(100.0) / 100.0,
                "TL" => state.leading = numbers(ops).first().copied().unwrap_or(0.0),
                "Ts" => state.rise = numbers(ops).first().copied().unwrap_or(0.0),
                "Td" | "TD" => {
                    if let [x, y] = numbers(ops).as_slice() {
                        if operation.operator == "TD" {
                            state.leading = -y;
                        }
                        text.line = Matrix::translate(*x, *y).then(&text.line);
                        text.matrix = text.line;
                    }
                }
                "Tm" => {
                    if let Some(m) = Matrix::from_slice(&numbers(ops)) {
                        text.line = m;
                        text.matrix = m;
                    }
                }
                "T*" => next_line(&mut text, &state),
                "Tj" => {
                    if let Some(Object::String(bytes, _)) = ops.first() {
                        self.show(bytes, &mut text, &state);
                    }
                }
                "'" => {
                    next_line(&mut text, &state);
                    if let Some(Object::String(bytes, _)) = ops.first() {
                        self.show(bytes, &mut text, &state);
                    }
                }
                "\"" => {
                    if let [word, char, Object::String(bytes, _)] = ops.as_slice() {
                        state.word_spacing = number(word).unwrap_or(0.0);
                        state.char_spacing = number(char).unwrap_or(0.0);
                        next_line(&mut text, &state);
                        self.show(bytes, &mut text, &state);
                    }
                }
                "TJ" => {
                    if let Some(Object::Array(items)) = ops.first() {
                        for item in items {
                            match item {
                                Object::String(bytes, _) => self.show(bytes, &mut text, &state),
                                other => {
                                    if let Some(n) = number(other) {
                                        self.adjust(n, &mut text, &state);
                                    }
                                }
                            }
                        }
                    }
                }
                "Do" => {
                    if let Some(Object::Name(name)) = ops.first() {
                        self.form(resources, name, &state, depth);
                    }
                }
                "BI" => self.shown.images += 1,
                "BMC" => self.begin_marked(None),
                "BDC" => {
                    let actual = ops.get(1).and_then(|props| self.actual_text(resources, props));
                    self.begin_marked(actual);
                }
                "EMC" if self.marked.len() > marked_outside => {
                    self.marked.pop();
                }
                _ => {}
            }
        }
        // Sequences a stream leaves open end with it.
        self.marked.truncate(marked_outside);
    }

    fn begin_marked(&mut self, actual: Option<String>) {
        if self.marked.len() < MAX_SAVED_STATES {
            self.marked.push(actual.map(|text| ActualText { text, given: false }));
        }
    }

    /// The `/ActualText` of a `BDC`'s properties, given inline or named in `/Properties`.
    fn actual_text(&self, resources: &[&'a Dictionary], props: &Object) -> Option<String> {
        let dict = match props {
            Object::Dictionary(dict) => dict,
            Object::Name(name) => resources
                .iter()
                .filter_map(|r| get_dict(self.doc, r, b"Properties"))
                .find_map(|p| get_dict(self.doc, p, name))?,
            _ => return None,
        };
        let text = resolve(self.doc, dict.get(b"ActualText").ok()?);
        lopdf::decode_text_string(text).ok()
    }

    /// The font a `Tf` names, decoded once per document.
    fn font(&mut self, resources: &[&'a Dictionary], name: &[u8]) -> Option<Rc<Font>> {
        let dict = resources
            .iter()
            .filter_map(|r| get_dict(self.doc, r, b"Font"))
            .find_map(|fonts| get_dict(self.doc, fonts, name))?;
        let key = dict as *const Dictionary as usize;
        if let Some(font) = self.fonts.get(&key) {
            return Some(font.clone());
        }
        let font = Rc::new(Font::load(self.doc, dict, self.limits.max_decompressed));
        self.fonts.insert(key, font.clone());
        Some(font)
    }

    /// Runs a Form XObject (images and unknown kinds are skipped).
    fn form(&mut self, resources: &[&'a Dictionary], name: &[u8], state: &State, depth: usize) {
        if depth >= self.limits.max_form_depth {
            self.shown.truncated = true;
            return;
        }
        let Some(reference) = resources
            .iter()
            .filter_map(|r| get_dict(self.doc, r, b"XObject"))
            .find_map(|x| x.get(name).ok())
        else {
            return;
        };
        let id = reference.as_reference().ok();
        let Object::Stream(stream) = resolve(self.doc, reference) else {
            return;
        };
        match get_name(self.doc, &stream.dict, b"Subtype") {
            Some(b"Form") => {}
            Some(b"Image") => {
                self.shown.images += 1;
                return;
            }
            _ => return,
        }
        let matrix = form_matrix(self.doc, &stream.dict);
        self.run_form(id, stream, matrix.then(&state.ctm), resources, depth);
    }

    /// Runs an annotation's appearance over the page whose matrix is `ctm`; `resources` are used
    /// for what the form's own resources do not name (the form's `/DR`).
    pub fn run_appearance(&mut self, appearance: &Appearance<'a>, ctm: Matrix, resources: &[&'a Dictionary]) {
        self.run_form(
            appearance.id,
            appearance.form,
            appearance.matrix.then(&ctm),
            resources,
            0,
        );
    }

    /// Puts `text` on the page as one run, its baseline starting at (`x`, `y`) under `ctm`, in
    /// a font `size` high: a form field's value whose appearance is left to the viewer.
    pub fn place_text(&mut self, text: &str, x: f32, y: f32, size: f32, ctm: Matrix) {
        if text.is_empty() || self.shown.text.len() + text.len() > self.limits.max_text_bytes {
            return;
        }
        let (vx, vy) = ctm.apply_vector(1.0, 0.0);
        let norm = (vx * vx + vy * vy).sqrt();
        if norm.is_nan() || norm <= 1e-6 {
            return;
        }
        let start = self.shown.text.len();
        self.shown.text.push_str(text);
        let (x, y) = ctm.apply(x, y);
        self.shown.glyphs.push(PlacedGlyph {
            x,
            y,
            dx: vx / norm,
            dy: vy / norm,
            // About half an em per character: only the layout's gaps depend on it.
            extent: 0.5 * size * text.chars().count() as f32 * norm,
            size: size * ctm.scale(),
            start: start as u32,
            end: self.shown.text.len() as u32,
            space_before: true,
        });
        self.shown.glyph_count += 1;
    }

    /// Runs a form's content with `matrix` as its initial CTM, its own resources first.
    fn run_form(
        &mut self,
        id: Option<ObjectId>,
        stream: &'a Stream,
        matrix: Matrix,
        resources: &[&'a Dictionary],
        depth: usize,
    ) {
        if self.shown.truncated {
            return;
        }
        // A form that draws itself, however indirectly, never ends.
        if id.is_some_and(|id| self.forms.contains(&id)) {
            self.shown.truncated = true;
            return;
        }
        let Some(content) = stream_bytes(stream, self.limits.max_decompressed) else {
            return;
        };
        self.forms_decoded += content.len();
        if self.forms_decoded > self.limits.max_page_forms_decoded {
            self.shown.truncated = true;
            return;
        }
        let mut inner: Vec<&'a Dictionary> = Vec::with_capacity(resources.len() + 1);
        if let Some(own) = get_dict(self.doc, &stream.dict, b"Resources") {
            inner.push(own);
        }
        inner.extend_from_slice(resources);
        if let Some(id) = id {
            self.forms.insert(id);
        }
        self.run(&content, &inner, matrix, depth + 1);
        if let Some(id) = id {
            self.forms.remove(&id);
        }
    }

    /// A TJ adjustment: thousandths of text space, against the writing direction.
    fn adjust(&mut self, amount: f32, text: &mut Text, state: &State) {
        let shift = -amount / 1000.0 * state.size;
        let vertical = state.font.as_ref().is_some_and(|f| f.vertical);
        let step = if vertical {
            Matrix::translate(0.0, shift)
        } else {
            Matrix::translate(shift * state.horizontal_scale, 0.0)
        };
        text.matrix = step.then(&text.matrix);
        // A wide enough move left or down is a word space without a space glyph; the layout
        // sees it from the positions.
    }

    /// Shows a string: places each glyph and advances the text matrix.
    fn show(&mut self, bytes: &[u8], text: &mut Text, state: &State) {
        let Some(font) = state.font.clone() else {
            return;
        };
        let size = state.size;
        let scale = state.horizontal_scale;
        let mut shown = 0usize;
        let mut mapped = 0usize;
        let mut glyphs = Vec::new();
        font.decode(bytes, |g| glyphs.push(g));
        for glyph in glyphs {
            shown += 1;
            let to_user = text.matrix.then(&state.ctm);
            let start = self.shown.text.len();
            let room = self.shown.text.len() < self.limits.max_text_bytes;
            // The outermost replacement covers its whole sequence, nested ones included.
            let has_text = match self.marked.iter_mut().find_map(Option::as_mut) {
                Some(actual) => {
                    if room && !std::mem::replace(&mut actual.given, true) {
                        self.shown.text.push_str(&actual.text);
                    }
                    // The glyphs after the first are covered by its text: mapped, but silent.
                    mapped += usize::from(self.shown.text.len() == start);
                    self.shown.text.len() > start
                }
                None => room && font.text(glyph.code, &mut self.shown.text),
            };
            let (advance_x, advance_y, visual) = if font.vertical {
                (0.0, -size + state.char_spacing, (0.0, -size))
            } else {
                let spacing = state.char_spacing + if glyph.word_space { state.word_spacing } else { 0.0 };
                (
                    (glyph.width * size + spacing) * scale,
                    0.0,
                    (glyph.width * size * scale, 0.0),
                )
            };
            if has_text {
                mapped += 1;
                if self.shown.text[start..].chars().all(char::is_whitespace) {
                    self.shown.text.truncate(start);
                    self.pending_space = true;
                } else {
                    let (x, y) = Matrix::translate(0.0, state.rise).then(&to_user).apply(0.0, 0.0);
                    let (vx, vy) = to_user.apply_vector(visual.0, visual.1);
                    let extent = (vx * vx + vy * vy).sqrt();
                    let (dx, dy) = if extent > 1e-6 {
                        (vx / extent, vy / extent)
                    } else {
                        // A zero-width glyph: its direction is the text's.
                        let (ux, uy) = to_user.apply_vector(
                            if font.vertical { 0.0 } else { 1.0 },
                            if font.vertical { -1.0 } else { 0.0 },
                        );
                        let norm = (ux * ux + uy * uy).sqrt().max(1e-6);
                        (ux / norm, uy / norm)
                    };
                    self.shown.glyphs.push(PlacedGlyph {
                        x,
                        y,
                        dx,
                        dy,
                        extent,
                        size: size.abs() * font.size_scale * to_user.scale(),
                        start: start as u32,
                        end: self.shown.text.len() as u32,
                        space_before: std::mem::take(&mut self.pending_space),
                    });
                }
            }
            text.matrix = Matrix::translate(advance_x, advance_y).then(&text.matrix);
        }
        self.shown.glyph_count += shown;
        let stats = self.shown.fonts.entry(font.name.clone()).or_insert((0, 0));
        stats.0 += shown;
        stats.1 += mapped;
    }
}

/// `T*`: to the start of the next line, `leading` below.
fn next_line(text: &mut Text, state: &State) {
    text.line = Matrix::translate(0.0, -state.leading).then(&text.line);
    text.matrix = text.line;
}

/// The page's /Rotate, inherited from the page tree where the page has none, in 0..360.
pub fn page_rotation(doc: &Document, page: &Dictionary) -> i64 {
    let mut node = page;
    for _ in 0..64 {
        if let Some(Object::Integer(r)) = get(doc, node, b"Rotate") {
            return r.rem_euclid(360);
        }
        match get_dict(doc, node, b"Parent") {
            Some(parent) => node = parent,
            None => break,
        }
    }
    0
}

/// The matrix that turns user space as the page is displayed, after its rotation.
pub fn rotation_matrix(rotation: i64) -> Matrix {
    match rotation {
        90 => Matrix::from_slice(&[0.0, -1.0, 1.0, 0.0, 0.0, 0.0]),
        180 => Matrix::from_slice(&[-1.0, 0.0, 0.0, -1.0, 0.0, 0.0]),
        270 => Matrix::from_slice(&[0.0, 1.0, -1.0, 0.0, 0.0, 0.0]),
        _ => None,
    }
    .unwrap_or(Matrix::IDENTITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{dictionary, Stream};
    use proptest::prelude::*;

    /// A document with a Helvetica font `F1`, a Type 0 Identity-H font `F2` and a form `X1`
    /// that draws itself; the resources dictionary naming them.
    fn fixture() -> (Document, Dictionary) {
        let mut doc = Document::with_version("1.5");
        let to_unicode = doc.add_object(Stream::new(
            dictionary! {},
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <00FF> <0041> endbfrange"
                .to_vec(),
        ));
        let cid_font = doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "CIDFontType2" });
        let form_id = doc.new_object_id();
        let form = Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "Resources" => dictionary! { "XObject" => dictionary! { "X1" => form_id } },
            },
            b"BT /F1 10 Tf (inner) Tj ET /X1 Do".to_vec(),
        );
        doc.objects.insert(form_id, Object::Stream(form));
        let resources = dictionary! {
            "Font" => dictionary! {
                "F1" => dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" },
                "F2" => dictionary! {
                    "Type" => "Font", "Subtype" => "Type0", "Encoding" => "Identity-H",
                    "DescendantFonts" => vec![cid_font.into()], "ToUnicode" => to_unicode,
                },
            },
            "XObject" => dictionary! { "X1" => form_id },
        };
        (doc, resources)
    }

    fn run(content: &[u8]) -> Shown {
        let (doc, resources) = fixture();
        let mut fonts = FontCache::new();
        let mut interpreter = Interpreter::new(&doc, &mut fonts, Limits::default());
        interpreter.run(content, &[&resources], Matrix::IDENTITY, 0);
        interpreter.finish()
    }

    #[test]
    fn actual_text_replaces_the_glyphs_it_covers() {
        let shown = run(
            b"BT /F1 10 Tf (a) Tj /Span <</ActualText <FEFFD83CDDEED83CDDE9>>> BDC (xy) Tj EMC \
            /P BMC (b) Tj EMC /Span <</ActualText (fl)>> BDC /Span <</ActualText (inner)>> BDC (q) Tj EMC EMC ET",
        );
        // Two glyphs give the flag once (the surrogate pairs decoded); the outer text wins.
        assert_eq!(shown.text, "a\u{1F1EE}\u{1F1E9}bfl");
        assert_eq!(shown.glyphs.len(), 4);
        assert_eq!(shown.fonts["Helvetica"], (5, 5));
    }

    #[test]
    fn images_are_counted_not_decoded() {
        assert_eq!(
            run(b"q 10 0 0 10 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \x00 EI Q").images,
            1
        );
        assert_eq!(run(b"BT /F1 10 Tf (a) Tj ET").images, 0);
    }

    #[test]
    fn text_operators_place_glyphs() {
        let shown =
            run(b"BT /F1 10 Tf 72 700 Td (Hi) Tj 0 -12 TD [(a) -500 (b)] TJ T* <0001> Tj /F2 8 Tf <00000001> Tj ET");
        // `<0001>` in Helvetica is two codes StandardEncoding leaves undefined: shown, no text.
        assert_eq!(shown.text, "HiabAB");
        let first = shown.glyphs[0];
        assert_eq!((first.x, first.y, first.size), (72.0, 700.0, 10.0));
        // `TD` set the leading to 12: the second line is 12 below the first.
        assert_eq!(shown.glyphs[2].y, 688.0);
        // The TJ adjustment of -500 moved `b` half an em right of where `a` ended.
        let (a, b) = (shown.glyphs[2], shown.glyphs[3]);
        assert!((b.x - (a.x + a.extent) - 5.0).abs() < 1e-3);
        assert_eq!(shown.glyph_count, 8);
    }

    #[test]
    fn a_form_that_draws_itself_runs_once() {
        let shown = run(b"/X1 Do");
        assert_eq!(shown.text, "inner");
    }

    #[test]
    fn rotation_is_inherited_and_overridden() {
        let mut doc = Document::with_version("1.5");
        let parent = doc.add_object(dictionary! { "Type" => "Pages", "Rotate" => 270 });
        let own = dictionary! { "Type" => "Page", "Parent" => parent, "Rotate" => 90 };
        let inherited = dictionary! { "Type" => "Page", "Parent" => parent };
        assert_eq!(page_rotation(&doc, &own), 90);
        assert_eq!(page_rotation(&doc, &inherited), 270);
        assert_eq!(rotation_matrix(90).apply(1.0, 0.0), (0.0, -1.0));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn arbitrary_content_never_panics(content in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = run(&content);
        }

        #[test]
        fn arbitrary_operator_sequences_never_panic(
            ops in proptest::collection::vec(
                prop::sample::select(vec![
                    "BT", "ET", "q", "Q", "/F1 12 Tf", "/F2 0 Tf", "/F9 3 Tf", "1 0 0 1 5 5 cm", "0 0 0 0 0 0 cm",
                    "1e30 0 0 1e30 0 0 Tm", "(abc) Tj", "<0000FFFF01> Tj", "[(a) -1e9 (b)] TJ", "2 Tz", "-5 TL",
                    "T*", "(x) '", "1 2 (y) \"", "/X1 Do", "/Nope Do", "3 Tr", "1 2 Td", "1 2 TD", "Tj", "TJ",
                ]),
                0..60,
            )
        ) {
            let content = ops.join(" ");
            let shown = run(content.as_bytes());
            prop_assert!(shown.text.len() <= Limits::default().max_text_bytes + 64);
        }
    }
}
