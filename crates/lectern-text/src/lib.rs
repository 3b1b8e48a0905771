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
use matrix::Matrix;
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
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// Each word of the page and where it is, when the extractor was asked for them
    /// ([`Extractor::with_words`]).
    pub words: Vec<PageWord>,
}

/// A word of a page's text, as laid out (ligatures expanded), and its box: left, top, right and
/// bottom as fractions of the page's width and height as the page is shown (its rotation
/// applied, as PDF viewers show it).
#[derive(Debug, Clone, PartialEq)]
pub struct PageWord {
    pub text: String,
    pub bounds: [f32; 4],
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
    /// Pages come with their words' boxes.
    words: bool,
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
            words: false,
        }
    }

    /// Pages come with each word's box ([`PageText::words`]), for a viewer to highlight them.
    pub fn with_words(mut self) -> Extractor<'a> {
        self.words = true;
        self
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
        let words = if self.words {
            let view = View::of(doc, page, ctm);
            laid.words
                .iter()
                .map(|w| PageWord {
                    text: cleanup::expand_ligatures(&laid.text[w.start..w.end]),
                    bounds: view.fractions(w.bounds),
                })
                .collect()
        } else {
            Vec::new()
        };
        PageText {
            text: cleanup::join_hyphenated(&cleanup::expand_ligatures(&laid.text)),
            headings: laid.headings.iter().map(|h| cleanup::expand_ligatures(h)).collect(),
            has_text_layer: shown.glyph_count > 0,
            has_images: shown.images > 0,
            unmapped_fonts,
            truncated: shown.truncated,
            words,
        }
    }
}

/// The part of a page a viewer shows (its crop box within its media box), in user space as
/// displayed: left, bottom, right, top.
struct View([f32; 4]);

impl View {
    /// The view of `page`, whose content is turned by `ctm` to be displayed.
    fn of(doc: &Document, page: &Dictionary, ctm: Matrix) -> View {
        let media = page_box(doc, page, b"MediaBox").unwrap_or([0.0, 0.0, 612.0, 792.0]);
        let [l, b, r, t] = match page_box(doc, page, b"CropBox") {
            Some(crop) => {
                let cut = [
                    crop[0].max(media[0]),
                    crop[1].max(media[1]),
                    crop[2].min(media[2]),
                    crop[3].min(media[3]),
                ];
                if cut[0] < cut[2] && cut[1] < cut[3] {
                    cut
                } else {
                    media
                }
            }
            None => media,
        };
        let corners = [ctm.apply(l, b), ctm.apply(r, b), ctm.apply(l, t), ctm.apply(r, t)];
        View(corners.iter().fold(
            [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY],
            |[l, b, r, t], &(x, y)| [l.min(x), b.min(y), r.max(x), t.max(y)],
        ))
    }

    /// A box (left, bottom, right, top, in displayed user space) as fractions of the view: left,
    /// top, right and bottom, from the view's top left corner.
    fn fractions(&self, [l, b, r, t]: [f32; 4]) -> [f32; 4] {
        let [vl, vb, vr, vt] = self.0;
        let (width, height) = ((vr - vl).max(1e-3), (vt - vb).max(1e-3));
        let x = |v: f32| ((v - vl) / width).clamp(0.0, 1.0);
        let y = |v: f32| ((vt - v) / height).clamp(0.0, 1.0);
        [x(l), y(t), x(r), y(b)]
    }
}

/// A page's box (`MediaBox`, `CropBox`), inherited from the page tree where the page has none,
/// as left, bottom, right, top.
fn page_box(doc: &Document, page: &Dictionary, key: &[u8]) -> Option<[f32; 4]> {
    let mut node = page;
    for _ in 0..64 {
        if let Some(values) = pdf_object::get_array(doc, node, key) {
            let n: Vec<f32> = values
                .iter()
                .filter_map(|v| pdf_object::number(pdf_object::resolve(doc, v)))
                .collect();
            return match n[..] {
                [x0, y0, x1, y1] => Some([x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)]),
                _ => None,
            };
        }
        node = pdf_object::get_dict(doc, node, b"Parent")?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    fn close(a: [f32; 4], b: [f32; 4]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    #[test]
    fn a_words_box_is_placed_on_the_page_as_it_is_shown_turned_or_not() {
        let doc = Document::with_version("1.5");
        let page = dictionary! { "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()] };
        // Near the top left corner of the page as drawn: 60..120 across, 700..720 up.
        let upright = View::of(&doc, &page, rotation_matrix(0));
        let word = upright.fractions([60.0, 700.0, 120.0, 720.0]);
        assert!(close(word, [0.1, 0.1, 0.2, 0.125]), "{word:?}");
        // A page turned a quarter clockwise shows that corner top right.
        let ctm = rotation_matrix(90);
        let turned = View::of(&doc, &page, ctm);
        let ((x0, y0), (x1, y1)) = (ctm.apply(60.0, 700.0), ctm.apply(120.0, 720.0));
        let word = turned.fractions([x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)]);
        assert!(close(word, [0.875, 0.1, 0.9, 0.2]), "{word:?}");
    }

    #[test]
    fn the_view_is_the_crop_box_within_the_media_box_inherited_from_the_page_tree() {
        let mut doc = Document::with_version("1.5");
        let parent = doc.add_object(dictionary! {
            "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
            "CropBox" => vec![100.into(), 100.into(), 700.into(), 500.into()],
        });
        let page = dictionary! { "Parent" => parent };
        let view = View::of(&doc, &page, rotation_matrix(0));
        assert!(close(view.0, [100.0, 100.0, 600.0, 500.0]), "{:?}", view.0);
    }
}
