//! Leader dots erased from a page image before Tesseract reads it: the rows of dots between a
//! heading and its page number in a table of contents, and dotted rules. Tesseract's line
//! recogniser reads such a row as letters and garbles the words beside it
//! (tesseract-ocr/tesseract#3748 and #4126), so a table of contents read as it is comes out as
//! "docUMENE .0.. el eee eeteceseceneeeteeeeeeeeneeees".
//!
//! A leader is found as a chain of at least [`MIN_DOTS`] small, solid, roughly square blobs on
//! one line, evenly spaced; an ellipsis (three dots) or a decimal point is left alone.

use super::render::Grey;

/// Darker than this is ink.
const INK: u8 = 128;
/// The fewest dots in a row that make a leader.
const MIN_DOTS: usize = 6;
/// A page with more runs of ink than this is a picture (a photograph, a halftone), not text:
/// it is left as it is, and the memory its runs would take stays bounded.
const MAX_RUNS: usize = 2_000_000;

/// A horizontal run of ink pixels `x0..x1` on row `y`.
struct Run {
    y: u32,
    x0: u32,
    x1: u32,
}

/// A blob of ink: its box (right and bottom exclusive) and how many pixels it has.
#[derive(Clone, Copy)]
struct Blob {
    left: u32,
    top: u32,
    right: u32,
    bottom: u32,
    pixels: u32,
}

impl Blob {
    fn width(&self) -> u32 {
        self.right - self.left
    }

    fn height(&self) -> u32 {
        self.bottom - self.top
    }

    /// Twice the vertical centre, in pixels.
    fn middle2(&self) -> u32 {
        self.top + self.bottom
    }
}

/// Erases the leader dots of `image` (paints them white); returns how many were erased.
pub fn erase_leaders(image: &mut Grey) -> usize {
    let Some(runs) = ink_runs(image) else {
        return 0;
    };
    let blobs = blobs(&runs);
    // A dot is at most a thirtieth of an inch (2.4 points) across: a full stop of 24-point type.
    let largest = (image.dpi / 30).max(3);
    let mut dots: Vec<Blob> = blobs
        .into_iter()
        .filter(|b| {
            let (w, h) = (b.width(), b.height());
            w <= largest && h <= largest && w <= 2 * h + 1 && h <= 2 * w + 1 && 3 * b.pixels >= w * h
        })
        .collect();
    dots.sort_unstable_by_key(|d| (d.left, d.top));
    let mut erased = 0;
    for chain in chains(&dots) {
        for dot in chain {
            paint_white(image, dot);
            erased += 1;
        }
    }
    erased
}

/// The runs of ink of each row, top to bottom and left to right; `None` for a picture.
fn ink_runs(image: &Grey) -> Option<Vec<Run>> {
    let mut runs = Vec::new();
    for (y, row) in image
        .pixels
        .chunks_exact(image.stride.max(1))
        .take(image.height)
        .enumerate()
    {
        let row = &row[..image.width];
        let mut x = 0;
        while x < row.len() {
            // Paper is skipped eight pixels at a time.
            if let Some(eight) = row.get(x..x + 8) {
                let word = u64::from_ne_bytes([
                    eight[0], eight[1], eight[2], eight[3], eight[4], eight[5], eight[6], eight[7],
                ]);
                if word & 0x8080_8080_8080_8080 == 0x8080_8080_8080_8080 {
                    x += 8;
                    continue;
                }
            }
            if row[x] >= INK {
                x += 1;
                continue;
            }
            let start = x;
            while x < row.len() && row[x] < INK {
                x += 1;
            }
            runs.push(Run {
                y: y as u32,
                x0: start as u32,
                x1: x as u32,
            });
            if runs.len() > MAX_RUNS {
                return None;
            }
        }
    }
    Some(runs)
}

/// The blobs the runs make, runs touching (diagonally too) on adjacent rows being one blob.
fn blobs(runs: &[Run]) -> Vec<Blob> {
    let mut parent: Vec<u32> = (0..runs.len() as u32).collect();
    let mut previous = 0..0;
    let mut start = 0;
    while start < runs.len() {
        let y = runs[start].y;
        let end = start + runs[start..].iter().take_while(|r| r.y == y).count();
        if runs.get(previous.start).is_some_and(|r| r.y + 1 == y) {
            // Both rows are sorted by x: walk them together.
            let mut above = previous.start;
            for here in start..end {
                while above < previous.end && runs[above].x1 < runs[here].x0 {
                    above += 1;
                }
                let mut touching = above;
                while touching < previous.end && runs[touching].x0 <= runs[here].x1 {
                    union(&mut parent, here, touching);
                    touching += 1;
                }
            }
        }
        previous = start..end;
        start = end;
    }
    let mut index_of_root = vec![u32::MAX; runs.len()];
    let mut blobs: Vec<Blob> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let root = find(&mut parent, i) as usize;
        if index_of_root[root] == u32::MAX {
            index_of_root[root] = blobs.len() as u32;
            blobs.push(Blob {
                left: run.x0,
                top: run.y,
                right: run.x1,
                bottom: run.y + 1,
                pixels: 0,
            });
        }
        let blob = &mut blobs[index_of_root[root] as usize];
        blob.left = blob.left.min(run.x0);
        blob.right = blob.right.max(run.x1);
        blob.bottom = blob.bottom.max(run.y + 1);
        blob.pixels += run.x1 - run.x0;
    }
    blobs
}

fn find(parent: &mut [u32], mut i: usize) -> u32 {
    while parent[i] as usize != i {
        parent[i] = parent[parent[i] as usize];
        i = parent[i] as usize;
    }
    i as u32
}

fn union(parent: &mut [u32], a: usize, b: usize) {
    let (a, b) = (find(parent, a), find(parent, b));
    parent[a.max(b) as usize] = a.min(b);
}

/// The rows of evenly spaced dots among `dots` (sorted left to right) that are leaders.
fn chains(dots: &[Blob]) -> Vec<Vec<Blob>> {
    let mut open: Vec<Vec<Blob>> = Vec::new();
    let mut leaders = Vec::new();
    for &dot in dots {
        let size = dot.width().max(dot.height());
        // The next dot of a leader is on the same line, no further than a few dots' widths, and
        // as far from the last as the last was from the one before it (give or take the pixel
        // that rounding puts in).
        let reach = |chain: &Vec<Blob>| {
            let Some(last) = chain.last() else {
                return false;
            };
            let gap = dot.left.saturating_sub(last.right);
            let in_step = match chain.len().checked_sub(2).map(|i| last.left - chain[i].left) {
                Some(pitch) => (dot.left - last.left).abs_diff(pitch) <= (pitch / 5).max(2),
                None => true,
            };
            dot.left >= last.right
                && gap <= 4 * size.max(last.width().max(last.height())) + 2
                && in_step
                && dot.middle2().abs_diff(last.middle2()) <= size.max(2)
                && dot.width().abs_diff(last.width()) <= 2
                && dot.height().abs_diff(last.height()) <= 2
        };
        match open.iter_mut().find(|chain| reach(chain)) {
            Some(chain) => chain.push(dot),
            None => open.push(vec![dot]),
        }
        // Chains the sweep has passed for good are closed.
        let mut i = 0;
        while i < open.len() {
            let passed = open[i]
                .last()
                .is_some_and(|last| last.right + 6 * size.max(3) < dot.left);
            if passed {
                let chain = open.swap_remove(i);
                if chain.len() >= MIN_DOTS {
                    leaders.push(chain);
                }
            } else {
                i += 1;
            }
        }
    }
    leaders.extend(open.into_iter().filter(|chain| chain.len() >= MIN_DOTS));
    leaders
}

fn paint_white(image: &mut Grey, blob: Blob) {
    for y in blob.top..blob.bottom {
        let row = y as usize * image.stride;
        if let Some(pixels) = image
            .pixels
            .get_mut(row + blob.left as usize..row + blob.right as usize)
        {
            pixels.fill(255);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white page of `width` x `height` at 300 dpi.
    fn page(width: usize, height: usize) -> Grey {
        Grey {
            pixels: vec![255; width * height],
            width,
            height,
            stride: width,
            dpi: 300,
        }
    }

    fn fill(image: &mut Grey, (left, top): (usize, usize), (w, h): (usize, usize)) {
        for y in top..top + h {
            image.pixels[y * image.stride + left..y * image.stride + left + w].fill(0);
        }
    }

    fn ink_in(image: &Grey, (left, right): (usize, usize)) -> usize {
        image
            .pixels
            .chunks_exact(image.stride)
            .map(|row| row[left..right].iter().filter(|&&v| v < INK).count())
            .sum()
    }

    #[test]
    fn a_row_of_dots_is_erased_and_the_letters_beside_it_stay() {
        let mut image = page(400, 60);
        // A "word": a block 30 high, and its page number.
        fill(&mut image, (10, 10), (60, 30));
        fill(&mut image, (360, 10), (20, 30));
        // Twelve dots of 4 x 4 on the baseline, every 12 pixels.
        for i in 0..12 {
            fill(&mut image, (90 + 12 * i, 36), (4, 4));
        }
        assert_eq!(erase_leaders(&mut image), 12);
        assert_eq!(ink_in(&image, (80, 240)), 0);
        assert_eq!(ink_in(&image, (0, 80)), 60 * 30);
        assert_eq!(ink_in(&image, (350, 400)), 20 * 30);
    }

    #[test]
    fn an_ellipsis_uneven_dots_and_a_skewed_leader() {
        let mut image = page(600, 120);
        // An ellipsis: three dots.
        for i in 0..3 {
            fill(&mut image, (10 + 8 * i, 10), (4, 4));
        }
        // Six dots, but at pitches from 8 to 16 pixels: punctuation in a line of text.
        for x in [100, 108, 122, 134, 150, 160] {
            fill(&mut image, (x, 10), (4, 4));
        }
        // A leader on a scan skewed by a degree or so: it climbs a pixel every few dots.
        for i in 0..20 {
            fill(&mut image, (300 + 12 * i, 100 - i / 4), (4, 4));
        }
        assert_eq!(erase_leaders(&mut image), 20);
        assert_eq!(ink_in(&image, (0, 40)), 3 * 16);
        assert_eq!(ink_in(&image, (95, 200)), 6 * 16);
        assert_eq!(ink_in(&image, (290, 600)), 0);
    }

    #[test]
    fn padded_rows_are_read_within_their_width() {
        let mut image = page(200, 20);
        image.stride = 204;
        image.pixels = vec![255; 204 * 20];
        for i in 0..8 {
            fill(&mut image, (10 + 10 * i, 5), (3, 3));
        }
        // Ink in the padding is not part of the page.
        for y in 0..20 {
            image.pixels[y * 204 + 200..y * 204 + 204].fill(0);
        }
        assert_eq!(erase_leaders(&mut image), 8);
    }
}
