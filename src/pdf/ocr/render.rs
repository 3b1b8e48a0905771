//! Pages rendered to grey images by PDFium (`pdfium-render`, bound at run time to the
//! `libpdfium.so` the setup installs from the `pypdfium2` wheel) at a resolution chosen per page.
//! Only the worker process renders, under its memory and time limits.

use std::path::Path;

use crate::pdf::PdfError;
use pdfium_render::prelude::{PdfBitmapFormat, PdfPageObjectsCommon, PdfRenderConfig, Pdfium, PdfiumError};

/// The resolution pages are read at, unless their images are sharper: what Tesseract reads best.
const DPI: f32 = 300.0;
/// A page whose sharpest image has at least this resolution (but less than [`DPI`]) is read at
/// the image's own: making more pixels of a scan adds time, not detail.
const MIN_SCAN_DPI: f32 = 200.0;
/// The most pixels a page may have when it is rendered sharper than [`DPI`] to match its images
/// (a letter page at 360 dpi): a small page scanned finely is read at its scan's resolution,
/// where at 300 dpi its letters would be a few pixels high.
const SHARPER_PIXELS: f32 = 12e6;
/// The most pixels a rendered page may have (an A3 page at 300 dpi has 17 million); a larger
/// page is rendered at a lower resolution, so memory stays bounded whatever its size.
const MAX_PIXELS: f32 = 24e6;

/// The resolution a page of `size` (in points) is rendered at for OCR, when the sharpest image
/// it paints has `sharpest` dpi (0 for none).
fn resolution((width, height): (f32, f32), sharpest: f32) -> f32 {
    let pixels_at = |dpi: f32| (width * dpi / 72.0) * (height * dpi / 72.0);
    let at_most = |dpi: f32, pixels: f32| {
        if pixels_at(dpi) > pixels {
            dpi * (pixels / pixels_at(dpi)).sqrt()
        } else {
            dpi
        }
    };
    if sharpest > DPI {
        at_most(sharpest, SHARPER_PIXELS).max(at_most(DPI, MAX_PIXELS))
    } else if sharpest >= MIN_SCAN_DPI {
        at_most(sharpest, MAX_PIXELS)
    } else {
        at_most(DPI, MAX_PIXELS)
    }
}

/// A page rendered in grey, a byte a pixel, row after row (each `stride` bytes, at least
/// `width`), and the resolution it was rendered at.
pub struct Grey {
    pub pixels: Vec<u8>,
    pub width: usize,
    pub height: usize,
    pub stride: usize,
    pub dpi: u32,
}

/// PDFium, bound to the library at `library`; once per process.
pub fn bind_pdfium(library: &Path) -> Result<Pdfium, String> {
    let bindings = Pdfium::bind_to_library(library).map_err(|e| {
        format!(
            "PDFium could not be loaded from {} ({e}); install it from the app's setup or Models settings, or with `lectern model install pdfium`",
            library.display()
        )
    })?;
    Ok(Pdfium::new(bindings))
}

/// PDFium, bound to its library.
pub struct Renderer {
    pdfium: Pdfium,
}

impl Renderer {
    pub fn load(library: &Path) -> Result<Renderer, String> {
        Ok(Renderer {
            pdfium: bind_pdfium(library)?,
        })
    }

    /// Page `number` (1-based) of the PDF at `path`, rendered for OCR. A file that is not there
    /// to be opened (gone with its drive) is [`PdfError::Gone`], not the page's failure.
    pub fn render(&self, path: &Path, password: Option<&str>, number: u32) -> Result<Grey, PdfError> {
        let failed = |reason: String| PdfError::OcrFailed { page: number, reason };
        let document = self.pdfium.load_pdf_from_file(path, password).map_err(|e| match e {
            PdfiumError::IoError(e) if is_gone(&e) => PdfError::Gone(e.to_string()),
            e => failed(describe(e)),
        })?;
        let index = number
            .checked_sub(1)
            .ok_or_else(|| failed("pages are numbered from 1".into()))?;
        let page = document
            .pages()
            .get(index.try_into().map_err(|_| failed("no such page".into()))?)
            .map_err(|e| failed(describe(e)))?;
        let size = (page.width().value.max(1.0), page.height().value.max(1.0));
        let sharpest = page
            .objects()
            .iter()
            .filter_map(|object| object.as_image_object()?.horizontal_dpi().ok())
            .fold(0.0, f32::max);
        let dpi = resolution(size, sharpest);
        let config = PdfRenderConfig::new()
            .scale_page_by_factor(dpi / 72.0)
            .set_format(PdfBitmapFormat::Gray)
            .set_reverse_byte_order(false)
            .render_form_data(true)
            .render_annotations(true);
        let bitmap = page.render_with_config(&config).map_err(|e| failed(describe(e)))?;
        let (width, height) = (bitmap.width().max(0) as usize, bitmap.height().max(0) as usize);
        let grey = bitmap.as_raw_bytes();
        let stride = grey.len() / height.max(1);
        if width == 0 || height == 0 || stride < width {
            return Err(failed(format!(
                "PDFium rendered the page as a {width} x {height} image"
            )));
        }
        Ok(Grey {
            pixels: grey,
            width,
            height,
            stride,
            dpi: dpi.round() as u32,
        })
    }
}

/// Whether opening a file failed because it, or the drive it was on, is not there.
fn is_gone(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
        || matches!(
            e.raw_os_error(),
            Some(libc::ENODEV | libc::ENXIO | libc::ESTALE | libc::EIO)
        )
}

fn describe(e: PdfiumError) -> String {
    format!("PDFium could not render the page: {e}")
}

/// `image` turned clockwise by `degrees` (a multiple of 90).
pub fn rotated(image: &Grey, degrees: u32) -> Grey {
    let (w, h) = (image.width, image.height);
    let turned = degrees % 180 == 90;
    let (width, height) = if turned { (h, w) } else { (w, h) };
    let mut pixels = vec![0u8; width * height];
    for (y, row) in image.pixels.chunks_exact(image.stride.max(1)).enumerate() {
        for (x, &value) in row[..w].iter().enumerate() {
            let (nx, ny) = match degrees % 360 {
                90 => (h - 1 - y, x),
                180 => (w - 1 - x, h - 1 - y),
                270 => (y, w - 1 - x),
                _ => (x, y),
            };
            pixels[ny * width + nx] = value;
        }
    }
    Grey {
        pixels,
        width,
        height,
        stride: width,
        dpi: image.dpi,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_read_at_their_scans_resolution_or_300_dpi_within_bounds() {
        let letter = (612.0, 792.0);
        assert_eq!(resolution(letter, 0.0), 300.0);
        assert_eq!(resolution(letter, 150.0), 300.0);
        // A scan at 200 dpi is read at 200 dpi.
        assert_eq!(resolution(letter, 200.0), 200.0);
        // A fine scan of a letter page: sharper, up to 12 million pixels.
        let fine = resolution(letter, 600.0);
        assert!((350.0..370.0).contains(&fine), "{fine}");
        // A small page scanned at 2400 dpi is read at 2400 dpi.
        assert_eq!(resolution((120.0, 86.0), 2400.0), 2400.0);
        // A huge page is read at less than 300 dpi, within 24 million pixels.
        let huge = resolution((8400.0, 8400.0), 72.0);
        assert!((huge * 8400.0 / 72.0).powi(2) <= 24.01e6, "{huge}");
    }

    #[test]
    fn a_quarter_turn_clockwise_moves_the_top_left_to_the_top_right() {
        // 3 x 2.
        let image = Grey {
            pixels: vec![1, 2, 3, 4, 5, 6],
            width: 3,
            height: 2,
            stride: 3,
            dpi: 300,
        };
        let turned = rotated(&image, 90);
        assert_eq!((turned.width, turned.height), (2, 3));
        assert_eq!(turned.pixels, [4, 1, 5, 2, 6, 3]);
        assert_eq!(rotated(&image, 180).pixels, [6, 5, 4, 3, 2, 1]);
        assert_eq!(rotated(&image, 270).pixels, [3, 6, 2, 5, 1, 4]);
        assert_eq!(rotated(&image, 0).pixels, [1, 2, 3, 4, 5, 6]);
        // Rows padded to four bytes, as PDFium makes them.
        let padded = Grey {
            pixels: vec![1, 2, 3, 0, 4, 5, 6, 0],
            stride: 4,
            ..image
        };
        assert_eq!(rotated(&padded, 90).pixels, [4, 1, 5, 2, 6, 3]);
    }
}
