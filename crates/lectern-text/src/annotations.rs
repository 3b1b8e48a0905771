//! The appearances of a page's annotations: filled-in form fields, free-text notes and stamps
//! show their text through an appearance stream, drawn over the page as poppler draws it. When the
//! form says its appearances must be made anew (`/NeedAppearances`, left to the viewer by
//! LibreOffice and hyperref), a form field shows its value instead, as poppler does.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use crate::matrix::Matrix;
use crate::pdf_object::{form_matrix, get, get_array, get_dict, get_name, numbers, resolve};

/// At most this many annotations of one page are drawn.
const MAX_ANNOTATIONS: usize = 10_000;
/// Annotation flags (ISO 32000-1, 12.5.3) that keep an annotation off the screen.
const HIDDEN: i64 = 1 << 1;
const NO_VIEW: i64 = 1 << 5;

/// Fields inherit their type and value from at most this many ancestors.
const MAX_FIELD_DEPTH: usize = 16;

/// What a visible annotation puts on its page.
pub enum Annotation<'a> {
    /// Its normal appearance, drawn.
    Drawn(Appearance<'a>),
    /// A text field's value, written in the field (its appearance left to the viewer).
    Value(FieldValue),
}

/// A text field's value and where it is written: from (`x`, `y`), in a font `size` high.
pub struct FieldValue {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub size: f32,
}

/// One annotation's normal appearance: a form XObject, and where it goes on the page.
pub struct Appearance<'a> {
    pub id: Option<ObjectId>,
    pub form: &'a Stream,
    /// The form's own matrix mapped so that its bounding box fills the annotation's rectangle.
    pub matrix: Matrix,
}

/// The visible annotations of `page`, in drawing order. `need_appearances` is the document's
/// `/AcroForm /NeedAppearances`.
pub fn annotations<'a>(doc: &'a Document, page: &'a Dictionary, need_appearances: bool) -> Vec<Annotation<'a>> {
    let Some(annots) = get_array(doc, page, b"Annots") else {
        return Vec::new();
    };
    annots
        .iter()
        .take(MAX_ANNOTATIONS)
        .filter_map(|annot| match resolve(doc, annot) {
            Object::Dictionary(dict) => annotation(doc, dict, need_appearances),
            _ => None,
        })
        .collect()
}

fn annotation<'a>(doc: &'a Document, annot: &'a Dictionary, need_appearances: bool) -> Option<Annotation<'a>> {
    let flags = get(doc, annot, b"F").and_then(|f| f.as_i64().ok()).unwrap_or(0);
    let subtype = get_name(doc, annot, b"Subtype");
    if flags & (HIDDEN | NO_VIEW) != 0 || subtype == Some(b"Popup".as_slice()) {
        return None;
    }
    let rect = rectangle(get_array(doc, annot, b"Rect")?)?;
    if need_appearances && subtype == Some(b"Widget".as_slice()) {
        text_field_value(doc, annot, rect).map(Annotation::Value)
    } else {
        appearance(doc, annot, rect).map(Annotation::Drawn)
    }
}

/// A field's entry, looked up on the widget and then up its `/Parent` chain.
fn inherited<'a>(doc: &'a Document, mut dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    for _ in 0..MAX_FIELD_DEPTH {
        if let Some(value) = get(doc, dict, key) {
            return Some(value);
        }
        dict = get_dict(doc, dict, b"Parent")?;
    }
    None
}

/// The value of a text field widget, written at the left of its rectangle `rect`, vertically
/// centred, in the font size of its `/DA` (`/F1 11 Tf`; 0 or none: fitted to the field).
fn text_field_value(doc: &Document, widget: &Dictionary, rect: [f32; 4]) -> Option<FieldValue> {
    if inherited(doc, widget, b"FT")?.as_name().ok()? != b"Tx" {
        return None;
    }
    let value = lopdf::decode_text_string(inherited(doc, widget, b"V")?).ok()?;
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
    if value.is_empty() {
        return None;
    }
    let size = inherited(doc, widget, b"DA")
        .and_then(|da| da.as_str().ok())
        .and_then(|da| {
            let words: Vec<&[u8]> = da.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty()).collect();
            let tf = words.iter().position(|w| *w == b"Tf")?;
            std::str::from_utf8(words.get(tf.checked_sub(1)?)?)
                .ok()?
                .parse::<f32>()
                .ok()
        })
        .filter(|s| s.is_finite() && *s > 0.0);
    let [x0, y0, _, y1] = rect;
    let size = size.unwrap_or(((y1 - y0) * 0.7).clamp(4.0, 12.0));
    Some(FieldValue {
        text: value,
        x: x0 + 2.0,
        y: y0 + ((y1 - y0 - size) / 2.0).max(0.0) + size * 0.2,
        size,
    })
}

fn appearance<'a>(doc: &'a Document, annot: &'a Dictionary, rect: [f32; 4]) -> Option<Appearance<'a>> {
    let normal = get_dict(doc, annot, b"AP")?.get(b"N").ok()?;
    // `/N` is the form itself, or a dictionary of forms by state (check boxes) chosen by `/AS`.
    let (id, form) = match (normal, resolve(doc, normal)) {
        (Object::Reference(id), Object::Stream(form)) => (Some(*id), form),
        (_, Object::Stream(form)) => (None, form),
        (_, Object::Dictionary(states)) => {
            let state = states.get(get_name(doc, annot, b"AS")?).ok()?;
            match resolve(doc, state) {
                Object::Stream(form) => (state.as_reference().ok(), form),
                _ => return None,
            }
        }
        _ => return None,
    };
    let own = form_matrix(doc, &form.dict);
    let bbox = get_array(doc, &form.dict, b"BBox").and_then(|b| rectangle(b))?;
    Some(Appearance {
        id,
        form,
        matrix: own.then(&fit(&own, bbox, rect)),
    })
}

/// `[x0 y0 x1 y1]` with the corners in order.
fn rectangle(values: &[Object]) -> Option<[f32; 4]> {
    let n = numbers(values);
    let [a, b, c, d] = n.as_slice() else {
        return None;
    };
    Some([a.min(*c), b.min(*d), a.max(*c), b.max(*d)])
}

/// The matrix that maps the box `bbox`, transformed by `own`, onto `rect` (ISO 32000-1, 12.5.5).
fn fit(own: &Matrix, bbox: [f32; 4], rect: [f32; 4]) -> Matrix {
    let corners = [
        own.apply(bbox[0], bbox[1]),
        own.apply(bbox[2], bbox[1]),
        own.apply(bbox[0], bbox[3]),
        own.apply(bbox[2], bbox[3]),
    ];
    let x0 = corners.iter().map(|c| c.0).fold(f32::INFINITY, f32::min);
    let y0 = corners.iter().map(|c| c.1).fold(f32::INFINITY, f32::min);
    let x1 = corners.iter().map(|c| c.0).fold(f32::NEG_INFINITY, f32::max);
    let y1 = corners.iter().map(|c| c.1).fold(f32::NEG_INFINITY, f32::max);
    let scale = |to: f32, from: f32| if from.abs() > 1e-6 { to / from } else { 1.0 };
    let sx = scale(rect[2] - rect[0], x1 - x0);
    let sy = scale(rect[3] - rect[1], y1 - y0);
    Matrix::from_slice(&[sx, 0.0, 0.0, sy, rect[0] - x0 * sx, rect[1] - y0 * sy]).unwrap_or(Matrix::IDENTITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounding_box_is_fitted_to_the_rectangle() {
        let m = fit(&Matrix::IDENTITY, [0.0, 0.0, 100.0, 20.0], [200.0, 500.0, 300.0, 520.0]);
        assert_eq!(m.apply(0.0, 0.0), (200.0, 500.0));
        assert_eq!(m.apply(100.0, 20.0), (300.0, 520.0));
        let doubled = fit(&Matrix::IDENTITY, [10.0, 10.0, 60.0, 20.0], [0.0, 0.0, 100.0, 20.0]);
        assert_eq!(doubled.apply(10.0, 10.0), (0.0, 0.0));
        assert_eq!(doubled.apply(60.0, 20.0), (100.0, 20.0));
    }

    #[test]
    fn rectangles_are_normalised_and_checked() {
        let r = [
            Object::Integer(10),
            Object::Real(5.0),
            Object::Integer(0),
            Object::Integer(8),
        ];
        assert_eq!(rectangle(&r), Some([0.0, 5.0, 10.0, 8.0]));
        assert_eq!(rectangle(&r[..3]), None);
    }
}
