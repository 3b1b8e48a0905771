//! Large PDFs, generated: a long document (thousands of text pages, as a manual or a filing with
//! its exhibits runs to) and a bulky one (pages carrying large images, as a scanned archive
//! does), written as they are made so that a gigabyte is never held in memory.

use std::io::{self, Write};

/// A document of `pages` pages, each a heading and a paragraph of its own words.
pub fn long_document(pages: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pdf = Stream::new(&mut out);
    let contents: Vec<Vec<u8>> = (1..=pages).map(page_text).collect();
    pdf.write_pages(&contents, |_, _| Ok(None)).unwrap_or_default();
    out
}

/// Writes a PDF of at least `bytes` bytes to `out`: pages of one line of text each showing an
/// 8 MB image (raw samples, varied so that nothing compresses them away).
pub fn write_bulky(out: &mut impl Write, bytes: u64) -> io::Result<()> {
    const SIDE: usize = 1672;
    let image = SIDE * SIDE * 3;
    let pages = (bytes as usize).div_ceil(image).max(1);
    let contents: Vec<Vec<u8>> = (1..=pages)
        .map(|n| {
            let mut content = format!("q {SIDE} 0 0 {SIDE} 0 0 cm /Im1 Do Q ").into_bytes();
            content.extend_from_slice(&page_text(n));
            content
        })
        .collect();
    let mut pdf = Stream::new(out);
    pdf.write_pages(&contents, |pdf, n| {
        let mut samples = vec![0u8; image];
        let mut state = n as u32 | 1;
        for byte in &mut samples {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            *byte = state as u8;
        }
        let dict = format!(
            "/Type /XObject /Subtype /Image /Width {SIDE} /Height {SIDE} /ColorSpace /DeviceRGB /BitsPerComponent 8"
        );
        pdf.stream(&dict, &samples).map(Some)
    })
}

/// Page `n`'s text: a heading and a paragraph that no other page repeats word for word.
fn page_text(n: usize) -> Vec<u8> {
    let lines = [
        format!("Section {n}: maintenance of unit {}", n * 7 % 1000),
        format!(
            "Inspect valve {} and record pressure reading {} in the log.",
            n % 97,
            n * 13 % 500
        ),
        format!(
            "If the reading exceeds {} kPa, replace seal kit {} before restart.",
            300 + n % 50,
            n % 31
        ),
    ];
    let mut content = b"BT /F1 11 Tf 72 720 Td 14 TL".to_vec();
    for line in lines {
        content.extend_from_slice(format!(" ({line}) '").as_bytes());
    }
    content.extend_from_slice(b" ET");
    content
}

/// A PDF written object by object straight to its destination, with the offsets for its
/// cross-reference table.
struct Stream<W: Write> {
    out: W,
    written: u64,
    offsets: Vec<u64>,
}

impl<W: Write> Stream<W> {
    fn new(out: W) -> Stream<W> {
        Stream {
            out,
            written: 0,
            offsets: Vec::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn object(&mut self, body: &[u8]) -> io::Result<usize> {
        self.offsets.push(self.written);
        let id = self.offsets.len();
        self.put(format!("{id} 0 obj\n").as_bytes())?;
        self.put(body)?;
        self.put(b"\nendobj\n")?;
        Ok(id)
    }

    fn stream(&mut self, dict: &str, data: &[u8]) -> io::Result<usize> {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.object(&body)
    }

    /// The whole file: objects 1 and 2 are the catalog and the page tree (written last, their
    /// offsets kept in place), then per page its resources from `extra` (an image, or none),
    /// its content and the page.
    fn write_pages(
        &mut self,
        contents: &[Vec<u8>],
        mut extra: impl FnMut(&mut Self, usize) -> io::Result<Option<usize>>,
    ) -> io::Result<()> {
        self.put(b"%PDF-1.5\n")?;
        self.offsets = vec![0, 0];
        let font = self.object(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")?;
        let mut kids = String::new();
        for (i, content) in contents.iter().enumerate() {
            let image = extra(self, i + 1)?;
            let content = self.stream("", content)?;
            let xobject = image
                .map(|id| format!("/XObject << /Im1 {id} 0 R >>"))
                .unwrap_or_default();
            let page = self.object(
                format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} 0 R >> \
                     {xobject} >> /Contents {content} 0 R >>"
                )
                .as_bytes(),
            )?;
            kids.push_str(&format!("{page} 0 R "));
        }
        self.offsets[0] = self.written;
        self.put(b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")?;
        self.offsets[1] = self.written;
        let count = contents.len();
        self.put(format!("2 0 obj\n<< /Type /Pages /Kids [{kids}] /Count {count} >>\nendobj\n").as_bytes())?;
        let xref = self.written;
        let size = self.offsets.len() + 1;
        let mut table = format!("xref\n0 {size}\n0000000000 65535 f \n");
        for offset in &self.offsets {
            table.push_str(&format!("{offset:010} 00000 n \n"));
        }
        table.push_str(&format!(
            "trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
        ));
        self.put(table.as_bytes())?;
        self.out.flush()
    }
}
