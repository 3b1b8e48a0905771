//! PDF page text extraction on lopdf, as good as poppler's `pdftotext`: content streams are
//! interpreted here (text state, matrices, Form XObjects), fonts are decoded to Unicode
//! (simple encodings with Differences, ToUnicode CMaps, Type 0 Identity fonts), glyphs are placed
//! on the page (annotations' appearances, such as filled-in form fields, included) and grouped
//! into lines and words, and the text is cleaned up (ligatures, soft
//! hyphens, hyphenation). [`open`] loads a document, encrypted ones included; [`score`]
//! measures an extraction against a reference text.

mod annotations;
mod cff;
mod cid_collections;
pub mod cleanup;
mod cmap;
mod encodings;
mod font;
mod glyph_list;
mod glyph_names;
mod interpreter;
mod layout;
mod matrix;
mod open;
mod pdf_object;
pub mod score;
mod type1;

use lopdf::{Dictionary, Document, ObjectId};

use annotations::Annotation;
use interpreter::{page_rotation, rotation_matrix, FontCache, Interpreter};
pub use open::{open, OpenError};

/// Bounds on the work one page may cause.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes any one stream (or a page's content) may decode to.
    pub max_decompressed: usize,
    /// Content stream operations run per page, forms included.
    pub max_operations: usize,
    /// Glyphs shown per page.
    pub max_glyphs: usize,
    /// Bytes of text per page.
    pub max_text_bytes: usize,
    /// Form XObjects nested in one another.
    pub max_form_depth: usize,
    /// Bytes the forms of one page may decode to in all (a form drawn again is decoded again).
    pub max_page_forms_decoded: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed: 256 << 20,
            max_operations: 5_000_000,
            max_glyphs: 2_000_000,
            max_text_bytes: 32 << 20,
            max_form_depth: 12,
            max_page_forms_decoded: 512 << 20,
        }
    }
}

/// The text of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageText {
    /// Lines in reading order, separated by newlines.
    pub text: String,
    /// Lines set well above the body size (section headings), in reading order.
    pub headings: Vec<String>,
    /// The page shows glyphs (invisible OCR text included), whether or not they map to text.
    pub has_text_layer: bool,
    /// The page paints images: without a text layer, it is probably a scan.
    pub has_images: bool,
    /// Fonts whose glyphs were shown but none of which maps to Unicode, by base font name.
    pub unmapped_fonts: Vec<String>,
    /// A limit stopped the page before its end.
    pub truncated: bool,
}

/// Extracts pages of one document, keeping decoded fonts between pages.
pub struct Extractor<'a> {
    doc: &'a Document,
    limits: Limits,
    fonts: FontCache,
    /// The interactive form's default resources (`/AcroForm /DR`), for field appearances.
    form_resources: Vec<&'a Dictionary>,
    /// The form leaves its fields' appearances to the viewer (`/AcroForm /NeedAppearances`).
    need_appearances: bool,
}

impl<'a> Extractor<'a> {
    pub fn new(doc: &'a Document, limits: Limits) -> Extractor<'a> {
        let form = doc
            .catalog()
            .ok()
            .and_then(|catalog| pdf_object::get_dict(doc, catalog, b"AcroForm"));
        Extractor {
            doc,
            limits,
            fonts: FontCache::new(),
            form_resources: form
                .and_then(|form| pdf_object::get_dict(doc, form, b"DR"))
                .into_iter()
                .collect(),
            need_appearances: form
                .and_then(|form| pdf_object::get(doc, form, b"NeedAppearances"))
                .and_then(|need| need.as_bool().ok())
                .unwrap_or(false),
        }
    }

    /// The text of the page with object id `page_id`.
    pub fn page(&mut self, page_id: ObjectId) -> PageText {
        let doc = self.doc;
        let Ok(page) = doc.get_dictionary(page_id) else {
            return PageText::default();
        };
        let content = match doc.get_page_content_with_limit(page_id, self.limits.max_decompressed) {
            Ok(content) => content,
            Err(_) => {
                return PageText {
                    truncated: true,
                    ..PageText::default()
                }
            }
        };
        let mut resources: Vec<&'a Dictionary> = Vec::new();
        if let Ok((direct, ids)) = doc.get_page_resources(page_id) {
            resources.extend(direct);
            resources.extend(ids.into_iter().filter_map(|id| doc.get_dictionary(id).ok()));
        }
        let ctm = rotation_matrix(page_rotation(doc, page));
        let mut interpreter = Interpreter::new(doc, &mut self.fonts, self.limits);
        interpreter.run(&content, &resources, ctm, 0);
        // Filled-in form fields and other annotations draw their text over the page.
        for annotation in annotations::annotations(doc, page, self.need_appearances) {
            match annotation {
                Annotation::Drawn(appearance) => interpreter.run_appearance(&appearance, ctm, &self.form_resources),
                Annotation::Value(value) => interpreter.place_text(&value.text, value.x, value.y, value.size, ctm),
            }
        }
        let shown = interpreter.finish();
        let laid = layout::lay_out(&shown.glyphs, &shown.text);
        let mut unmapped_fonts: Vec<String> = shown
            .fonts
            .iter()
            .filter(|(_, &(count, mapped))| count > 0 && mapped == 0)
            .map(|(name, _)| name.clone())
            .collect();
        unmapped_fonts.sort();
        PageText {
            text: cleanup::join_hyphenated(&cleanup::expand_ligatures(&laid.text)),
            headings: laid.headings.iter().map(|h| cleanup::expand_ligatures(h)).collect(),
            has_text_layer: shown.glyph_count > 0,
            has_images: shown.images > 0,
            unmapped_fonts,
            truncated: shown.truncated,
        }
    }
}
