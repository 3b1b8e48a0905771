//! Small helpers over lopdf objects: follow references, read numbers, names and streams
//! without failing on the wrong type.

use lopdf::{Dictionary, Document, Object, Stream};

use crate::matrix::Matrix;

/// The object itself, or the object a reference points at (a dangling reference is `Null`).
pub fn resolve<'a>(doc: &'a Document, object: &'a Object) -> &'a Object {
    doc.dereference(object).map_or(&Object::Null, |(_, o)| o)
}

/// A dictionary entry, references followed.
pub fn get<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    dict.get(key).ok().map(|o| resolve(doc, o)).filter(|o| !o.is_null())
}

/// A dictionary entry that is a dictionary (a stream's dictionary counts).
pub fn get_dict<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// A dictionary entry that is a name.
pub fn get_name<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    get(doc, dict, key)?.as_name().ok()
}

/// A dictionary entry that is a number.
pub fn get_number(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<f32> {
    number(get(doc, dict, key)?)
}

/// A dictionary entry that is an array.
pub fn get_array<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Vec<Object>> {
    get(doc, dict, key)?.as_array().ok()
}

/// An integer or real as `f32`; NaN and infinities are refused.
pub fn number(object: &Object) -> Option<f32> {
    object.as_float().ok().filter(|n| n.is_finite())
}

/// The integers and reals of an array or operand list, other objects skipped.
pub fn numbers(objects: &[Object]) -> Vec<f32> {
    objects.iter().filter_map(number).collect()
}

/// A form XObject's `/Matrix`, or the identity.
pub fn form_matrix(doc: &Document, form: &Dictionary) -> Matrix {
    get_array(doc, form, b"Matrix")
        .and_then(|m| Matrix::from_slice(&numbers(m)))
        .unwrap_or(Matrix::IDENTITY)
}

/// A stream's decoded bytes, bounded by `limit`; an undecodable stream yields nothing.
pub fn stream_bytes(stream: &Stream, limit: usize) -> Option<Vec<u8>> {
    stream.decompressed_content_with_limit(limit).ok()
}
