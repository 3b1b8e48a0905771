//! Adversarial PDFs, generated: each one attacks a limit of the PDF worker (memory, decoded
//! bytes, operations, nesting, pages) or crashes it outright, and says what the reader must
//! answer. The hostile-file tests import them beside good documents; `lectern-bench hostile`
//! measures them. Each file is small on disk; what it asks of a reader is not.

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::Compression;

/// One adversarial file and what reading it must end in.
pub struct Hostile {
    /// A file name that says what the file does.
    pub name: &'static str,
    /// Writes the file (some take a second: they deflate hundreds of megabytes).
    pub make: fn() -> Vec<u8>,
    pub outcome: Outcome,
}

/// What reading an adversarial file must end in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The reader copes: the document is indexed.
    Read,
    /// The document fails with a reason holding these words.
    Refused(&'static str),
}

/// Every adversarial file.
pub fn all() -> Vec<Hostile> {
    vec![
        Hostile {
            name: "operand-pile.pdf",
            make: operand_pile,
            outcome: Outcome::Refused("memory"),
        },
        Hostile {
            name: "object-stream-pile.pdf",
            make: object_stream_pile,
            outcome: Outcome::Refused("memory"),
        },
        Hostile {
            name: "decompression-bomb.pdf",
            make: decompression_bomb,
            outcome: Outcome::Refused("more work than the limits allow"),
        },
        Hostile {
            name: "form-fan-out.pdf",
            make: form_fan_out,
            outcome: Outcome::Refused("more work than the limits allow"),
        },
        Hostile {
            name: "large-form-drawn-again.pdf",
            make: large_form_drawn_again,
            outcome: Outcome::Refused("more work than the limits allow"),
        },
        Hostile {
            name: "form-recursion.pdf",
            make: form_recursion,
            outcome: Outcome::Refused("more work than the limits allow"),
        },
        Hostile {
            name: "million-text-operations.pdf",
            make: || many_text_operations(6_000_000),
            outcome: Outcome::Refused("more work than the limits allow"),
        },
        Hostile {
            name: "wide-page-tree.pdf",
            make: || wide_page_tree(60_000),
            outcome: Outcome::Refused("pages, more than the limit"),
        },
        Hostile {
            name: "deep-dictionary.pdf",
            make: || deep_dictionary(200_000),
            outcome: Outcome::Read,
        },
    ]
}

/// A page whose content is 100 million numbers and no operator: a parser that keeps operands
/// until their operator comes holds them all (200 MB decoded, 2 MB on disk).
fn operand_pile() -> Vec<u8> {
    let content = deflate_repeated(b"0 ", 100_000_000);
    let mut pdf = Writer::one_page(&content, "/Filter /FlateDecode", "");
    pdf.finish()
}

/// An object stream holding one array of 100 million numbers, which a loader parses eagerly.
fn object_stream_pile() -> Vec<u8> {
    let mut pdf = Writer::one_page(b"BT /F1 12 Tf 72 720 Td (pile) Tj ET", "", "");
    let header = format!("{} 0 ", pdf.next_id() + 1);
    let mut body = header.clone().into_bytes();
    body.push(b'[');
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
    let _ = encoder.write_all(&body);
    write_repeated(&mut encoder, b"0 ", 100_000_000);
    let _ = encoder.write_all(b"]");
    let data = encoder.finish().unwrap_or_default();
    pdf.stream(
        &format!("/Type /ObjStm /N 1 /First {} /Filter /FlateDecode", header.len()),
        &data,
    );
    pdf.finish()
}

/// A page whose content inflates to 1 GiB (10 MB on disk), past any one stream's limit.
fn decompression_bomb() -> Vec<u8> {
    let content = deflate_repeated(b" ", 1 << 30);
    Writer::one_page(&content, "/Filter /FlateDecode", "").finish()
}

/// Twelve levels of forms, each drawing the next ten times: 10^12 drawings from one page.
fn form_fan_out() -> Vec<u8> {
    let mut pdf = Writer::new();
    let levels = 12;
    let first = pdf.next_id() + 4;
    let page_content = "/X0 Do".to_string();
    pdf.page_with(page_content.as_bytes(), "", &format!("/XObject << /X0 {first} 0 R >>"));
    for level in 0..levels {
        let id = first + level;
        let (content, resources) = if level + 1 < levels {
            (
                "/X Do ".repeat(10),
                format!("/Resources << /XObject << /X {} 0 R >> >>", id + 1),
            )
        } else {
            ("BT /F1 12 Tf (leaf) Tj ET".to_string(), font_resources())
        };
        pdf.stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 10 10] {resources}"),
            content.as_bytes(),
        );
    }
    pdf.finish()
}

/// One form of 200 MB (deflated to 2 MB), drawn a thousand times by one page: each drawing
/// decodes it again.
fn large_form_drawn_again() -> Vec<u8> {
    let mut pdf = Writer::new();
    let form = pdf.next_id() + 4;
    let page_content = "/X Do\n".repeat(1000);
    pdf.page_with(page_content.as_bytes(), "", &format!("/XObject << /X {form} 0 R >>"));
    let data = deflate_repeated(b" ", 200 << 20);
    pdf.stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Filter /FlateDecode",
        &data,
    );
    pdf.finish()
}

/// Two forms that draw each other.
fn form_recursion() -> Vec<u8> {
    let mut pdf = Writer::new();
    let a = pdf.next_id() + 4;
    let b = a + 1;
    pdf.page_with(b"/A Do", "", &format!("/XObject << /A {a} 0 R >>"));
    for other in [b, a] {
        pdf.stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /A {other} 0 R >> >>"),
            b"/A Do BT /F1 12 Tf (loop) Tj ET",
        );
    }
    pdf.finish()
}

/// One page of `count` tiny text-showing operations.
fn many_text_operations(count: usize) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
    let _ = encoder.write_all(b"BT /F1 1 Tf ");
    write_repeated(&mut encoder, b"(a) Tj ", count);
    let _ = encoder.write_all(b"ET");
    let content = encoder.finish().unwrap_or_default();
    Writer::one_page(&content, "/Filter /FlateDecode", "").finish()
}

/// A page tree of `pages` empty pages under one node.
fn wide_page_tree(pages: usize) -> Vec<u8> {
    let mut pdf = Writer::new();
    let catalog = pdf.object("<< /Type /Catalog /Pages 2 0 R >>");
    let first = catalog + 2;
    let kids: String = (0..pages).map(|i| format!("{} 0 R ", first + i)).collect();
    pdf.object(&format!("<< /Type /Pages /Kids [{kids}] /Count {pages} >>"));
    for _ in 0..pages {
        pdf.object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>");
    }
    pdf.finish()
}

/// A document whose info dictionary nests `depth` dictionaries deep: the loader gives up on the
/// dictionary, not on the document.
fn deep_dictionary(depth: usize) -> Vec<u8> {
    let mut pdf = Writer::one_page(b"BT /F1 12 Tf 72 720 Td (deep) Tj ET", "", "");
    let mut nested = "<< /A ".repeat(depth);
    nested.push_str(&">> ".repeat(depth));
    let info = pdf.object(&nested);
    pdf.info = Some(info);
    pdf.finish()
}

fn font_resources() -> String {
    "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>".to_string()
}

/// `piece` repeated `count` times, deflated as it is written (the whole is never held).
fn deflate_repeated(piece: &[u8], count: usize) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
    write_repeated(&mut encoder, piece, count);
    encoder.finish().unwrap_or_default()
}

fn write_repeated(out: &mut impl Write, piece: &[u8], count: usize) {
    let per_block = (1 << 20) / piece.len().max(1);
    let block = piece.repeat(per_block);
    let mut left = count;
    while left > 0 {
        let n = left.min(per_block);
        let _ = out.write_all(&block[..n * piece.len()]);
        left -= n;
    }
}

/// A PDF written object by object, with its cross-reference table.
struct Writer {
    objects: Vec<Vec<u8>>,
    info: Option<usize>,
}

impl Writer {
    fn new() -> Writer {
        Writer {
            objects: Vec::new(),
            info: None,
        }
    }

    /// A catalog, its page tree and one page with `content` (its stream dictionary holding
    /// `filter`, its resources Helvetica as /F1 and `resources`).
    fn one_page(content: &[u8], filter: &str, resources: &str) -> Writer {
        let mut pdf = Writer::new();
        pdf.page_with(content, filter, resources);
        pdf
    }

    /// Objects 1 to 4: catalog, pages, page, content; object 5 on is the caller's.
    fn page_with(&mut self, content: &[u8], filter: &str, resources: &str) {
        self.object("<< /Type /Catalog /Pages 2 0 R >>");
        self.object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        self.object(&format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font \
             /Subtype /Type1 /BaseFont /Helvetica >> >> {resources} >> /Contents 4 0 R >>"
        ));
        self.stream(filter, content);
    }

    /// The number the next object gets.
    fn next_id(&self) -> usize {
        self.objects.len() + 1
    }

    fn object(&mut self, body: &str) -> usize {
        self.objects.push(body.as_bytes().to_vec());
        self.objects.len()
    }

    fn stream(&mut self, dict: &str, data: &[u8]) -> usize {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.objects.push(body);
        self.objects.len()
    }

    fn finish(&mut self) -> Vec<u8> {
        let mut pdf = b"%PDF-1.5\n".to_vec();
        let mut offsets = Vec::with_capacity(self.objects.len());
        for (i, body) in self.objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            pdf.extend_from_slice(body);
            pdf.extend_from_slice(b"\nendobj\n");
        }
        let xref = pdf.len();
        let size = self.objects.len() + 1;
        pdf.extend_from_slice(format!("xref\n0 {size}\n0000000000 65535 f \n").as_bytes());
        for offset in offsets {
            pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        let info = self.info.map(|id| format!(" /Info {id} 0 R")).unwrap_or_default();
        pdf.extend_from_slice(
            format!("trailer\n<< /Size {size} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n").as_bytes(),
        );
        pdf
    }
}
