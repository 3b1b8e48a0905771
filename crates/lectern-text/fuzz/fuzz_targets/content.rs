//! Fuzz target for the content-stream interpreter, fonts and CMaps, below the file parser: the
//! input is split at its first `\n%%\n` into a ToUnicode CMap and a page content stream, and the
//! page (with a simple font, a Type 0 font using that CMap, a Type 3 font and a form) is
//! extracted under the limits the app reads with (`Limits::default()`). Whole-file mutation
//! rarely reaches this deep.
#![no_main]

use lectern_text::{Extractor, Limits};
use libfuzzer_sys::fuzz_target;
use lopdf::{dictionary, Document, Object, Stream};

/// A one-page document whose page shows `content` with fonts F1 (Helvetica, WinAnsi with
/// Differences), F2 (Type 0, Identity-H, ToUnicode `cmap`), F3 (Type 3 with ToUnicode `cmap`)
/// and a form X1 that draws `content` too.
fn document(cmap: &[u8], content: &[u8]) -> (Document, lopdf::ObjectId) {
    let mut doc = Document::with_version("1.7");
    let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.to_vec()));
    let cid_font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "Fuzz",
        "CIDSystemInfo" => dictionary! { "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Japan1"), "Supplement" => 6 },
        "W" => vec![1.into(), vec![Object::Integer(500), Object::Integer(1000)].into()],
    });
    let form = doc.add_object(Stream::new(
        dictionary! { "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()] },
        content.to_vec(),
    ));
    let glyph = doc.add_object(Stream::new(dictionary! {}, b"0 0 d0".to_vec()));
    let resources = doc.add_object(dictionary! {
        "Font" => dictionary! {
            "F1" => dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
                "Encoding" => dictionary! { "BaseEncoding" => "WinAnsiEncoding",
                    "Differences" => vec![65.into(), "fi".into(), "a20".into(), "uni0041".into()] } },
            "F2" => dictionary! { "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "Fuzz",
                "Encoding" => "Identity-H", "DescendantFonts" => vec![cid_font.into()], "ToUnicode" => to_unicode },
            "F3" => dictionary! { "Type" => "Font", "Subtype" => "Type3",
                "FontMatrix" => vec![0.001.into(), 0.into(), 0.into(), 0.001.into(), 0.into(), 0.into()],
                "CharProcs" => dictionary! { "g" => glyph }, "FirstChar" => 0, "LastChar" => 255,
                "Encoding" => dictionary! { "Differences" => vec![0.into(), "g".into()] },
                "ToUnicode" => to_unicode },
        },
        "XObject" => dictionary! { "X1" => form },
        "Properties" => dictionary! { "P1" => dictionary! { "ActualText" => Object::string_literal("A") } },
    });
    let contents = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
    let pages = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages, "Contents" => contents, "Resources" => resources,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()], "Rotate" => 90,
    });
    doc.objects.insert(
        pages,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }),
    );
    (doc, page)
}

fuzz_target!(|data: &[u8]| {
    let split = data.windows(4).position(|w| w == b"\n%%\n");
    let (cmap, content) = match split {
        Some(at) => (&data[..at], &data[at + 4..]),
        None => (&b""[..], data),
    };
    let (doc, page) = document(cmap, content);
    let _ = Extractor::new(&doc, Limits::default()).page(page);
});
