//! From glyphs placed on the page to text in reading order. Each glyph's writing direction is
//! taken to the nearest of four (so rotated and vertical text read along their own lines);
//! glyphs are grouped into lines by baseline, lines are cut into segments at wide gaps, and the
//! segments are ordered by recursive XY cuts (a vertical gutter of whitespace separates columns,
//! a horizontal gap separates blocks; the gutters between a table's cells do not, so a row stays
//! one line). Word spaces come from space glyphs and from gaps. Text
//! drawn twice at the same place is read once. Short lines set well above the page's body size
//! are its headings.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// One glyph with text, where the content stream put it (user space as displayed).
#[derive(Debug, Clone, Copy)]
pub struct PlacedGlyph {
    /// The glyph's origin.
    pub x: f32,
    pub y: f32,
    /// Unit vector of the writing direction.
    pub dx: f32,
    pub dy: f32,
    /// The glyph's length along the writing direction.
    pub extent: f32,
    /// The font size as drawn.
    pub size: f32,
    /// The glyph's text, a range of the page's text buffer.
    pub start: u32,
    pub end: u32,
    /// A space glyph came just before this one.
    pub space_before: bool,
}

/// Glyphs of the same text this close (in font sizes) are one glyph drawn twice.
const OVERDRAW: f32 = 0.1;

/// True when the same text was already drawn at (nearly) the same place: the "fake bold" of
/// glyphs drawn two or three times a hair apart, or a form field's label drawn both by the page
/// and by the field's appearance. poppler keeps one copy, and so do we.
fn overdrawn(drawn: &mut HashSet<u64, BuildHasherDefault<CellHasher>>, g: &PlacedGlyph, text: &str) -> bool {
    let Some(glyph_text) = text.get(g.start as usize..g.end as usize) else {
        return false;
    };
    let cell = (g.size * OVERDRAW).max(0.05);
    let (fx, fy) = (g.x / cell, g.y / cell);
    let (cx, cy) = (fx.floor() as i64, fy.floor() as i64);
    // The cell and its neighbours on the sides the glyph is nearer to.
    let (nx, ny) = (
        if fx - fx.floor() < 0.5 { -1 } else { 1 },
        if fy - fy.floor() < 0.5 { -1 } else { 1 },
    );
    let key = |x: i64, y: i64| {
        let mut h = CellHasher::default();
        glyph_text.hash(&mut h);
        (x, y).hash(&mut h);
        h.finish()
    };
    let near = [(0, 0), (nx, 0), (0, ny), (nx, ny)]
        .iter()
        .any(|&(dx, dy)| drawn.contains(&key(cx + dx, cy + dy)));
    drawn.insert(key(cx, cy));
    near
}

/// A fast multiplicative hash (FxHash's) for the overdraw cells: SipHash costs more than the
/// layout of a page.
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A gap wider than this (in font sizes) between glyphs is a word space.
const WORD_GAP: f32 = 0.12;
/// A gap wider than this (in font sizes) splits a line into segments.
const SEGMENT_GAP: f32 = 0.8;
/// Whitespace this wide (in median font sizes) running down a block is a column gutter.
const GUTTER: f32 = 0.8;
/// Whitespace this tall (in median font sizes) between lines separates blocks.
const BLOCK_GAP: f32 = 0.6;
/// Baselines closer than this (in font sizes) are one line.
const SAME_LINE: f32 = 0.4;
/// A table cell is at most this wide (in its font sizes), at the median.
const CELL_WIDTH: f32 = 8.0;
/// The share of a table column's lines that are rows of the columns to its left.
const ROW_SHARE: f32 = 0.8;
/// A row's figures and its label are on one baseline to within this (in font sizes).
const ROW_BASELINE: f32 = 0.1;
/// The same share for columns of figures, whose subtotals often have no label.
const FIGURE_ROW_SHARE: f32 = 0.6;
/// A line whose median glyph is this much larger than the page's median glyph is a heading.
const HEADING_SIZE: f32 = 1.2;
/// A heading has at most this many words (longer large text is a pull quote or a banner).
const HEADING_WORDS: usize = 16;
/// Deepest XY-cut recursion.
const MAX_CUTS: usize = 48;

/// A glyph in the frame of its writing direction: `along` runs with the text, `perp` across
/// it (larger first).
#[derive(Debug, Clone, Copy)]
struct Item {
    along: f32,
    end: f32,
    perp: f32,
    size: f32,
    glyph: usize,
}

/// A run of a line's glyphs without a wide gap.
#[derive(Debug, Clone)]
struct Segment {
    along: f32,
    end: f32,
    perp: f32,
    size: f32,
    /// The line it was cut from, numbered top first.
    line: usize,
    /// It reads as a figure ([`is_figure`]).
    figure: bool,
    items: Vec<Item>,
}

/// A page's text in reading order and the headings found in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Lines in reading order, separated by newlines.
    pub text: String,
    /// Lines set well above the body size, in reading order; the lines of a heading that wraps
    /// are joined.
    pub headings: Vec<String>,
    /// Each word of `text` and where its glyphs are.
    pub words: Vec<LaidWord>,
}

/// A word of a page's laid-out text: bytes `start..end` of it, and the box of its glyphs in user
/// space as the page is displayed (left, bottom, right, top; y grows upwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaidWord {
    pub start: usize,
    pub end: usize,
    pub bounds: [f32; 4],
}

/// How far a glyph reaches above and below its baseline, in font sizes (a typical font's ascent
/// and descent).
const ASCENT: f32 = 0.8;
const DESCENT: f32 = 0.2;

/// The box of a glyph: from its origin along its writing direction by its extent, and across
/// it from below its baseline to above it.
fn glyph_box(g: &PlacedGlyph) -> [f32; 4] {
    let (ux, uy) = (-g.dy, g.dx);
    let (ex, ey) = (g.dx * g.extent, g.dy * g.extent);
    let (low, high) = (-DESCENT * g.size, ASCENT * g.size);
    let corners = [
        (g.x + ux * low, g.y + uy * low),
        (g.x + ex + ux * low, g.y + ey + uy * low),
        (g.x + ux * high, g.y + uy * high),
        (g.x + ex + ux * high, g.y + ey + uy * high),
    ];
    corners.iter().fold(
        [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY],
        |[l, b, r, t], &(x, y)| [l.min(x), b.min(y), r.max(x), t.max(y)],
    )
}

/// The box covering both `a` and `b`.
fn union(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
}

/// The text of a page's glyphs in reading order, lines separated by newlines, and its headings.
pub fn lay_out(glyphs: &[PlacedGlyph], text: &str) -> Layout {
    let mut by_direction: [Vec<Item>; 4] = Default::default();
    let mut drawn: HashSet<u64, BuildHasherDefault<CellHasher>> = HashSet::default();
    for (i, g) in glyphs.iter().enumerate() {
        if !(g.x.is_finite() && g.y.is_finite() && g.size.is_finite() && g.extent.is_finite()) {
            continue;
        }
        if overdrawn(&mut drawn, g, text) {
            continue;
        }
        let direction = if g.dx.abs() >= g.dy.abs() {
            if g.dx >= 0.0 {
                0
            } else {
                2
            }
        } else if g.dy < 0.0 {
            1
        } else {
            3
        };
        let (ux, uy) = [(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)][direction];
        let along = g.x * ux + g.y * uy;
        by_direction[direction].push(Item {
            along,
            end: along + g.extent * (g.dx * ux + g.dy * uy),
            perp: g.x * -uy + g.y * ux,
            size: g.size.max(1e-3),
            glyph: i,
        });
    }
    let mut groups: Vec<Vec<Item>> = by_direction.into_iter().filter(|g| !g.is_empty()).collect();
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let body = median_size(&groups.concat());
    let mut out = Layout::default();
    for (group, items) in groups.into_iter().enumerate() {
        let median = median_size(&items);
        let mut segments = Vec::new();
        for (number, line) in lines(items).into_iter().enumerate() {
            segments.extend(split_line(line, number));
        }
        for segment in &mut segments {
            segment.figure = is_figure(&segment.items, glyphs, text);
        }
        let mut blocks = Vec::new();
        cut(segments, median, 0, &mut blocks);
        for block in blocks {
            // The run of large lines the previous line of the block belongs to: its size, and
            // whether it is still a heading (a run longer than a heading is a paragraph set large).
            let mut run: Option<(f32, bool)> = None;
            for line in block_lines(block) {
                if !out.text.is_empty() {
                    out.text.push('\n');
                }
                let start = out.text.len();
                write_line(&line, glyphs, text, &mut out.text, &mut out.words);
                // Headings come from the page's main writing direction only: a large stamp
                // up the margin is not a section.
                let size = median_size(&line);
                let large = group == 0 && size >= HEADING_SIZE * body && is_heading(&out.text[start..]);
                run = if large {
                    let line_text = &out.text[start..];
                    match run {
                        Some((above, heading)) if (size - above).abs() <= 0.1 * above => {
                            let joined = heading
                                && out
                                    .headings
                                    .last()
                                    .is_some_and(|last| words(last) + words(line_text) <= HEADING_WORDS);
                            match out.headings.last_mut() {
                                Some(last) if joined => {
                                    last.push(' ');
                                    last.push_str(line_text);
                                }
                                _ if heading => {
                                    out.headings.pop();
                                }
                                _ => {}
                            }
                            Some((above, joined))
                        }
                        _ => {
                            out.headings.push(line_text.to_string());
                            Some((size, true))
                        }
                    }
                } else {
                    None
                };
            }
        }
    }
    out
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// True when a large line reads as a heading: a few words with letters in them, not a big
/// number, a roman page number, a drop cap or a table of contents' entry.
fn is_heading(line: &str) -> bool {
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 4 && words(line) <= HEADING_WORDS && !line.contains("....") && !line.contains(". . .")
}

fn median_size(items: &[Item]) -> f32 {
    let mut sizes: Vec<f32> = items.iter().map(|i| i.size).collect();
    sizes.sort_by(f32::total_cmp);
    sizes.get(sizes.len() / 2).copied().unwrap_or(1.0)
}

/// Runs of glyphs drawn one after another along one baseline, in content order.
fn runs(items: Vec<Item>) -> Vec<Vec<Item>> {
    let mut runs: Vec<Vec<Item>> = Vec::new();
    for item in items {
        if let Some(run) = runs.last_mut() {
            if let Some(last) = run.last() {
                let size = last.size.max(item.size);
                let gap = item.along - last.end;
                if (item.perp - last.perp).abs() <= 0.25 * size && gap >= -0.5 * size && gap <= SEGMENT_GAP * size {
                    run.push(item);
                    continue;
                }
            }
        }
        runs.push(vec![item]);
    }
    runs
}

/// A line being built: its baseline (that of its largest glyphs) and its runs.
struct Line {
    perp: f32,
    size: f32,
    runs: Vec<Vec<Item>>,
}

fn extent(run: &[Item]) -> (f32, f32) {
    let start = run.iter().map(|i| i.along).fold(f32::INFINITY, f32::min);
    let end = run.iter().map(|i| i.end.max(i.along)).fold(f32::NEG_INFINITY, f32::max);
    (start, end)
}

/// Groups items into lines: runs whose baselines are close and which do not overlap along the
/// text share a line (a superscript joins its line; a large heading beside small text does
/// not interleave with it). Lines come top first, each sorted along the text.
fn lines(items: Vec<Item>) -> Vec<Vec<Item>> {
    let mut runs = runs(items);
    let perp = |run: &Vec<Item>| run.iter().map(|i| i.perp).fold(f32::NEG_INFINITY, f32::max);
    runs.sort_by(|a, b| perp(b).total_cmp(&perp(a)));
    let mut lines: Vec<Line> = Vec::new();
    for run in runs {
        let (Some(first), (start, end)) = (run.first().copied(), extent(&run)) else {
            continue;
        };
        let size = run.iter().map(|i| i.size).fold(first.size, f32::max);
        let baseline = perp(&run);
        let mut home = None;
        for (index, line) in lines.iter().enumerate().rev().take(8) {
            if line.perp - baseline > SAME_LINE * line.size.max(size) {
                break;
            }
            let overlaps = line.runs.iter().any(|r| {
                let (s, e) = extent(r);
                start < e - 0.3 * size && s < end - 0.3 * size
            });
            if !overlaps {
                home = Some(index);
                break;
            }
        }
        match home.and_then(|i| lines.get_mut(i)) {
            Some(line) => {
                if size > line.size {
                    line.size = size;
                    line.perp = baseline;
                }
                line.runs.push(run);
            }
            None => lines.push(Line {
                perp: baseline,
                size,
                runs: vec![run],
            }),
        }
    }
    lines
        .into_iter()
        .map(|line| {
            let mut items: Vec<Item> = line.runs.into_iter().flatten().collect();
            items.sort_by(|a, b| a.along.total_cmp(&b.along));
            items
        })
        .collect()
}

/// True for the glyphs of a figure: digits, and no word of three letters or more ("(1,577)",
/// "$ 5.3", "12 %", "NY01"; not "1 Dec 2023").
fn is_figure(items: &[Item], glyphs: &[PlacedGlyph], text: &str) -> bool {
    let (mut digits, mut letters) = (false, 0);
    for item in items {
        let Some(glyph_text) = glyphs
            .get(item.glyph)
            .and_then(|g| text.get(g.start as usize..g.end as usize))
        else {
            continue;
        };
        for c in glyph_text.chars() {
            digits |= c.is_ascii_digit();
            letters = if c.is_alphabetic() { letters + 1 } else { 0 };
            if letters >= 3 {
                return false;
            }
        }
    }
    digits
}

/// Cuts a sorted line at wide gaps.
fn split_line(line: Vec<Item>, number: usize) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    for item in line {
        match segments.last_mut() {
            Some(s) if item.along - s.end <= SEGMENT_GAP * s.size.max(item.size) => {
                s.end = s.end.max(item.end);
                if item.size > s.size {
                    s.size = item.size;
                    s.perp = item.perp;
                }
                s.items.push(item);
            }
            _ => segments.push(Segment {
                along: item.along,
                end: item.end.max(item.along),
                perp: item.perp,
                size: item.size,
                line: number,
                figure: false,
                items: vec![item],
            }),
        }
    }
    segments
}

/// Recursive XY cut: columns first (a vertical gutter through every segment), then blocks
/// (horizontal gaps); what cannot be cut is a block in reading order.
fn cut(mut segments: Vec<Segment>, median: f32, depth: usize, blocks: &mut Vec<Vec<Segment>>) {
    if segments.len() <= 1 || depth >= MAX_CUTS {
        blocks.push(segments);
        return;
    }
    segments.sort_by(|a, b| a.along.total_cmp(&b.along));
    let mut reach = segments[0].end;
    for i in 1..segments.len() {
        if segments[i].along - reach >= GUTTER * median && !parts_of_rows(&segments[..i], &segments[i..]) {
            let right = segments.split_off(i);
            cut(segments, median, depth + 1, blocks);
            cut(right, median, depth + 1, blocks);
            return;
        }
        reach = reach.max(segments[i].end);
    }
    segments.sort_by(|a, b| b.perp.total_cmp(&a.perp));
    let mut bottom = segments[0].perp - 0.25 * segments[0].size;
    for i in 1..segments.len() {
        let top = segments[i].perp + 0.8 * segments[i].size;
        if bottom - top >= BLOCK_GAP * median {
            let below = segments.split_off(i);
            cut(segments, median, depth + 1, blocks);
            cut(below, median, depth + 1, blocks);
            return;
        }
        bottom = bottom.min(segments[i].perp - 0.25 * segments[i].size);
    }
    blocks.push(segments);
}

/// True when whitespace between `left` and `right` only separates the cells of rows, so that
/// cutting there would read a table column by column: the segments on the right are short
/// cells (a number, a code, a few words), nearly all of them on lines the left side has too, and
/// they fill at least half of those lines; or they are mostly figures under their columns'
/// headers, most of them on a label's baseline. Such a region is read row by row, as poppler's
/// `-layout` mode does, so that a row keeps its label. Text columns have long segments, and a
/// margin note fills few of the lines beside it.
fn parts_of_rows(left: &[Segment], right: &[Segment]) -> bool {
    let mut widths: Vec<f32> = right.iter().map(|s| (s.end - s.along) / s.size).collect();
    widths.sort_by(f32::total_cmp);
    if widths.get(widths.len() / 2).is_none_or(|w| *w > CELL_WIDTH) {
        return false;
    }
    let lines = |part: &[Segment]| {
        let mut lines: Vec<usize> = part.iter().map(|s| s.line).collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    };
    let (left_lines, right_lines) = (lines(left), lines(right));
    let shared = right_lines
        .iter()
        .filter(|l| left_lines.binary_search(l).is_ok())
        .count();
    if shared as f32 >= ROW_SHARE * right_lines.len() as f32 && 2 * shared >= left_lines.len() {
        return true;
    }
    // Columns of figures are rows' too when the lines above their first row are their headers
    // ("Fiscal", "2016") and, from two rows on, they fill half the lines beside them (a
    // column only some rows have a figure in), each on a label's very baseline (a chart's
    // figures beside a paragraph are on its lines only by chance). Columns of words that wrap
    // stay columns.
    let figures = right.iter().filter(|s| s.figure).count();
    let mut labels: Vec<(usize, f32, f32)> = left.iter().map(|l| (l.line, l.perp, l.size)).collect();
    labels.sort_by_key(|&(line, _, _)| line);
    let mut rows: Vec<usize> = right
        .iter()
        .filter(|r| {
            let from = labels.partition_point(|&(line, _, _)| line < r.line);
            labels[from..]
                .iter()
                .take_while(|&&(line, _, _)| line == r.line)
                .any(|&(_, perp, size)| (perp - r.perp).abs() <= ROW_BASELINE * size.max(r.size))
        })
        .map(|r| r.line)
        .collect();
    rows.sort_unstable();
    rows.dedup();
    let (Some(&first), Some(&last)) = (rows.first(), right_lines.last()) else {
        return false;
    };
    let below_headers = right_lines.iter().filter(|&&l| l >= first).count();
    let beside = left_lines.iter().filter(|&&l| (first..=last).contains(&l)).count();
    2 * figures >= right.len()
        && rows.len() >= 2
        && rows.len() as f32 >= FIGURE_ROW_SHARE * below_headers as f32
        && 2 * rows.len() >= beside
}

/// The lines of a block: its segments back on their lines, each line's items along the text.
fn block_lines(mut block: Vec<Segment>) -> Vec<Vec<Item>> {
    block.sort_by(|a, b| a.line.cmp(&b.line).then(a.along.total_cmp(&b.along)));
    let mut lines: Vec<(usize, Vec<Item>)> = Vec::new();
    for segment in block {
        match lines.last_mut() {
            Some((number, items)) if *number == segment.line => items.extend(segment.items),
            _ => lines.push((segment.line, segment.items)),
        }
    }
    lines.into_iter().map(|(_, items)| items).collect()
}

/// Appends a line's text, with a space wherever a space glyph was or the gap is wide.
/// Writes a line's glyphs to `out`, with a space where one was shown or a gap is wide, and each
/// word written, with its box, to `words`.
fn write_line(line: &[Item], glyphs: &[PlacedGlyph], text: &str, out: &mut String, words: &mut Vec<LaidWord>) {
    let mut previous: Option<&Item> = None;
    let mut word: Option<LaidWord> = None;
    for item in line {
        let Some(glyph) = glyphs.get(item.glyph) else { continue };
        if let Some(prev) = previous {
            let gap = item.along - prev.end;
            let wide = gap > WORD_GAP * prev.size.max(item.size);
            if (glyph.space_before || wide) && !out.ends_with(' ') {
                out.push(' ');
                words.extend(word.take());
            }
        }
        if let Some(s) = text.get(glyph.start as usize..glyph.end as usize) {
            let start = out.len();
            out.push_str(s);
            let bounds = glyph_box(glyph);
            match &mut word {
                Some(w) => {
                    w.end = out.len();
                    w.bounds = union(w.bounds, bounds);
                }
                None => {
                    word = Some(LaidWord {
                        start,
                        end: out.len(),
                        bounds,
                    })
                }
            }
        }
        previous = Some(item);
    }
    words.extend(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs for words written left to right from (x, y), one unit of size 10 per character.
    fn words(text: &mut String, glyphs: &mut Vec<PlacedGlyph>, x: f32, y: f32, line: &str) {
        let mut x = x;
        for c in line.chars() {
            if c == ' ' {
                x += 3.0;
                continue;
            }
            let start = text.len() as u32;
            text.push(c);
            glyphs.push(PlacedGlyph {
                x,
                y,
                dx: 1.0,
                dy: 0.0,
                extent: 5.0,
                size: 10.0,
                start,
                end: text.len() as u32,
                space_before: false,
            });
            x += 5.0;
        }
    }

    /// Like [`words`], at font size `size`.
    fn sized_words(text: &mut String, glyphs: &mut Vec<PlacedGlyph>, x: f32, y: f32, size: f32, line: &str) {
        let first = glyphs.len();
        words(text, glyphs, x, y, line);
        let scale = size / 10.0;
        for g in &mut glyphs[first..] {
            g.x = x + (g.x - x) * scale;
            g.extent *= scale;
            g.size = size;
        }
    }

    #[test]
    fn each_word_written_has_the_box_of_its_glyphs() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 0.0, 100.0, "ab cd");
        words(&mut text, &mut glyphs, 0.0, 80.0, "e");
        let laid = lay_out(&glyphs, &text);
        assert_eq!(laid.text, "ab cd\ne");
        let found: Vec<(&str, [f32; 4])> = laid
            .words
            .iter()
            .map(|w| (&laid.text[w.start..w.end], w.bounds))
            .collect();
        assert_eq!(
            found,
            [
                ("ab", [0.0, 98.0, 10.0, 108.0]),
                ("cd", [13.0, 98.0, 23.0, 108.0]),
                ("e", [0.0, 78.0, 5.0, 88.0])
            ]
        );
    }

    #[test]
    fn large_short_lines_are_headings_and_a_wrapped_heading_is_one() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        sized_words(&mut text, &mut glyphs, 100.0, 760.0, 16.0, "Results of");
        sized_words(&mut text, &mut glyphs, 100.0, 740.0, 16.0, "Operations");
        for (i, line) in [
            "Net sales rose by a tenth",
            "to 4,120 million in the year",
            "on higher volumes abroad",
        ]
        .iter()
        .enumerate()
        {
            words(&mut text, &mut glyphs, 100.0, 720.0 - 12.0 * i as f32, line);
        }
        sized_words(&mut text, &mut glyphs, 100.0, 660.0, 24.0, "42");
        for (i, line) in ["Cash flows were steady", "and debt fell again"].iter().enumerate() {
            words(&mut text, &mut glyphs, 100.0, 636.0 - 12.0 * i as f32, line);
        }
        let laid = lay_out(&glyphs, &text);
        assert!(
            laid.text.starts_with("Results of\nOperations\nNet sales"),
            "{}",
            laid.text
        );
        assert_eq!(laid.headings, ["Results of Operations"]);
    }

    #[test]
    fn a_paragraph_set_large_is_no_heading() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        for (i, line) in [
            "Our products reach customers in many",
            "countries and the year was a good one",
            "for all of our divisions and teams",
        ]
        .iter()
        .enumerate()
        {
            sized_words(&mut text, &mut glyphs, 100.0, 760.0 - 20.0 * i as f32, 16.0, line);
        }
        for (i, line) in [
            "1,204 1,377 2,991",
            "8,110 7,420 6,001",
            "3,310 2,100 1,750",
            "4,400 5,500 6,600",
        ]
        .iter()
        .enumerate()
        {
            words(&mut text, &mut glyphs, 100.0, 680.0 - 12.0 * i as f32, line);
        }
        assert_eq!(lay_out(&glyphs, &text).headings, Vec::<String>::new());
    }

    #[test]
    fn text_drawn_twice_in_place_is_read_once() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 100.0, 700.0, "Bold");
        // Fake bold: the same word again, a third of a point to the right.
        words(&mut text, &mut glyphs, 100.3, 700.0, "Bold");
        words(&mut text, &mut glyphs, 100.0, 680.0, "Bold");
        assert_eq!(lay_out(&glyphs, &text).text, "Bold\nBold");
    }

    #[test]
    fn gaps_make_word_spaces_and_baselines_make_lines() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 0.0, 700.0, "The Crazy");
        words(&mut text, &mut glyphs, 0.0, 688.0, "Ones here");
        assert_eq!(lay_out(&glyphs, &text).text, "The Crazy\nOnes here");
        // Drawn in reverse order, the same text comes out.
        glyphs.reverse();
        assert_eq!(lay_out(&glyphs, &text).text, "The Crazy\nOnes here");
    }

    #[test]
    fn two_columns_read_one_after_the_other() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        let column = |word: &str| [word; 6].join(" ");
        for (i, (left, right)) in [("aaa", "ddd"), ("bbb", "eee"), ("ccc", "fff")].iter().enumerate() {
            let y = 700.0 - 12.0 * i as f32;
            words(&mut text, &mut glyphs, 0.0, y, &column(left));
            words(&mut text, &mut glyphs, 150.0, y, &column(right));
        }
        let read: Vec<String> = ["aaa", "bbb", "ccc", "ddd", "eee", "fff"].map(column).into();
        assert_eq!(lay_out(&glyphs, &text).text, read.join("\n"));
    }

    #[test]
    fn a_table_reads_row_by_row_with_its_labels() {
        // Rows close together (the gutters run down the whole table) and rows far apart (each
        // row is a block of its own): either way a row is one line.
        for spacing in [12.0, 30.0] {
            let (mut text, mut glyphs) = (String::new(), Vec::new());
            let rows = [("Net sales", "32,765", "31,657"), ("Cost of sales", "16,682", "16,083")];
            for (i, (label, this_year, last_year)) in rows.iter().enumerate() {
                let y = 700.0 - spacing * i as f32;
                words(&mut text, &mut glyphs, 0.0, y, label);
                words(&mut text, &mut glyphs, 150.0, y, this_year);
                words(&mut text, &mut glyphs, 220.0, y, last_year);
            }
            assert_eq!(
                lay_out(&glyphs, &text).text,
                "Net sales 32,765 31,657\nCost of sales 16,682 16,083",
                "rows {spacing} apart"
            );
        }
    }

    #[test]
    fn figures_under_their_headers_read_with_their_labels_unlabelled_totals_and_sparse_columns_included() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 150.0, 724.0, "Fiscal");
        words(&mut text, &mut glyphs, 220.0, 724.0, "Fiscal");
        words(&mut text, &mut glyphs, 290.0, 724.0, "% Change");
        words(&mut text, &mut glyphs, 150.0, 712.0, "2016");
        words(&mut text, &mut glyphs, 220.0, 712.0, "2015");
        words(&mut text, &mut glyphs, 290.0, 712.0, "2016-2015");
        let rows = [
            ("Net sales", "32,765", "31,657", "3 %"),
            ("Cost of sales", "16,682", "16,083", ""),
            ("Other", "(1,000)", "900", ""),
            ("", "50,447", "48,640", "4 %"),
        ];
        for (i, (label, this_year, last_year, change)) in rows.iter().enumerate() {
            let y = 700.0 - 12.0 * i as f32;
            for (x, cell) in [(0.0, label), (150.0, this_year), (220.0, last_year), (290.0, change)] {
                words(&mut text, &mut glyphs, x, y, cell);
            }
        }
        assert_eq!(
            lay_out(&glyphs, &text).text,
            "Fiscal Fiscal % Change\n2016 2015 2016-2015\nNet sales 32,765 31,657 3 %\nCost of sales 16,682 16,083\nOther (1,000) 900\n50,447 48,640 4 %"
        );
    }

    #[test]
    fn a_charts_figures_on_a_paragraphs_lines_by_chance_stay_apart() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        let line = ["body"; 8].join(" ");
        for i in 0..6 {
            words(&mut text, &mut glyphs, 0.0, 700.0 - 12.0 * i as f32, &line);
        }
        // Two rows of a chart's figures, a fifth of a font size off the paragraph's baselines.
        words(&mut text, &mut glyphs, 250.0, 698.0, "57 33 24");
        words(&mut text, &mut glyphs, 250.0, 686.0, "66 45 21");
        let out = lay_out(&glyphs, &text).text;
        assert!(
            out.ends_with("\n57 33 24\n66 45 21") || out.starts_with("57 33 24\n66 45 21\n"),
            "{out}"
        );
    }

    #[test]
    fn a_short_note_beside_a_paragraph_stays_apart() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        let line = ["body"; 8].join(" ");
        for i in 0..6 {
            words(&mut text, &mut glyphs, 0.0, 700.0 - 12.0 * i as f32, &line);
        }
        words(&mut text, &mut glyphs, 250.0, 700.0, "note");
        let out = lay_out(&glyphs, &text).text;
        assert!(out.ends_with("\nnote") || out.starts_with("note\n"), "{out}");
    }

    #[test]
    fn vertical_text_reads_top_down_right_to_left() {
        let mut text = String::new();
        let mut glyphs = Vec::new();
        for (column, chars) in ["あい", "うえ"].iter().enumerate() {
            for (row, c) in chars.chars().enumerate() {
                let start = text.len() as u32;
                text.push(c);
                glyphs.push(PlacedGlyph {
                    x: 100.0 - 12.0 * column as f32,
                    y: 700.0 - 10.0 * row as f32,
                    dx: 0.0,
                    dy: -1.0,
                    extent: 10.0,
                    size: 10.0,
                    start,
                    end: text.len() as u32,
                    space_before: false,
                });
            }
        }
        assert_eq!(lay_out(&glyphs, &text).text, "あい\nうえ");
    }

    #[test]
    fn a_large_heading_beside_small_text_does_not_interleave() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 0.0, 700.0, "Dept of it");
        // Big glyphs whose baseline is close to the small text's, over the same stretch.
        let start = glyphs.len();
        words(&mut text, &mut glyphs, 2.0, 703.0, "Form");
        for g in &mut glyphs[start..] {
            g.size = 24.0;
            g.x = 2.0 + (g.x - 2.0) * 2.0;
            g.extent = 10.0;
        }
        let out = lay_out(&glyphs, &text).text;
        assert!(out.contains("Form") && out.contains("Dept of it"), "{out}");
    }

    #[test]
    fn superscripts_stay_on_their_line() {
        let (mut text, mut glyphs) = (String::new(), Vec::new());
        words(&mut text, &mut glyphs, 0.0, 700.0, "x");
        words(&mut text, &mut glyphs, 5.0, 703.5, "2");
        words(&mut text, &mut glyphs, 13.0, 700.0, "is");
        assert_eq!(lay_out(&glyphs, &text).text, "x2 is");
    }

    #[test]
    fn non_finite_positions_are_dropped() {
        let glyph = PlacedGlyph {
            x: f32::NAN,
            y: 0.0,
            dx: 1.0,
            dy: 0.0,
            extent: 1.0,
            size: 1.0,
            start: 0,
            end: 1,
            space_before: false,
        };
        assert_eq!(lay_out(&[glyph], "x").text, "");
    }
}
