//! Screenshots of the whole X display, read with `xwd` and written as PNG. WebDriver's own
//! screenshot command waits for a rendering update that WebKitGTK under Xvfb does not always
//! deliver, while the display's pixels are always there.

use std::path::Path;
use std::process::Command;

fn be32(bytes: &[u8], field: usize) -> u32 {
    let at = field * 4;
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Saves display `display` (":N") to the PNG `path`.
pub fn save(display: &str, path: &Path) {
    let (width, height, rgb) = pixels(display);
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&rgb).unwrap();
}

/// Display `display`'s width, height and pixels (RGB, a line after another).
pub fn pixels(display: &str) -> (u32, u32, Vec<u8>) {
    let dump = Command::new("xwd")
        .args(["-root", "-silent", "-display", display])
        .output()
        .expect("xwd runs (apt install x11-apps)");
    assert!(
        dump.status.success(),
        "xwd failed: {}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let xwd = dump.stdout;
    // XWD header: 25 big-endian u32 fields, then the window name, then the colour map.
    let (header_size, format, width, height) = (be32(&xwd, 0), be32(&xwd, 2), be32(&xwd, 4), be32(&xwd, 5));
    let (byte_order, bits_per_pixel, bytes_per_line) = (be32(&xwd, 7), be32(&xwd, 11), be32(&xwd, 12));
    let colours = be32(&xwd, 19);
    // Pixels of 24 bits (what xwd writes once the window has been resized) or 32, in lines of
    // `bytes_per_line`.
    let step = bits_per_pixel as usize / 8;
    assert!(
        format == 2 && matches!(bits_per_pixel, 24 | 32),
        "xwd wrote format {format} at {bits_per_pixel} bits a pixel; expected a 24- or 32-bit ZPixmap"
    );
    let pixels = &xwd[header_size as usize + colours as usize * 12..];
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height as usize {
        let line = &pixels[y * bytes_per_line as usize..];
        for x in 0..width as usize {
            let mut p = [0u8; 4];
            p[..step].copy_from_slice(&line[x * step..(x + 1) * step]);
            let value = if byte_order == 0 {
                u32::from_le_bytes(p)
            } else {
                u32::from_be_bytes(p) >> (8 * (4 - step))
            };
            rgb.extend_from_slice(&[(value >> 16) as u8, (value >> 8) as u8, value as u8]);
        }
    }
    (width, height, rgb)
}
