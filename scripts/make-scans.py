#!/usr/bin/env python3
"""Scanned copies of PDFs with a text layer, for measuring OCR against the text they hold.

Each page of each PDF is rendered in grey (PDFium, through pypdfium2) and wrapped back into a
PDF that holds only the images, as a scanner would write it, in three variants: at 300 dpi, at
200 dpi, and at 300 dpi turned 3 degrees (a page fed askew). Each variant's page images are kept
beside its PDF as PNG files, so that another OCR program can read the same images.

    pip install pypdfium2==5.15.2 pillow
    scripts/make-scans.py OUT_DIR [--pages N] PDF...

writes OUT_DIR/<name>.<variant>.pdf and OUT_DIR/<name>.<variant>/page-NNN.png, and
OUT_DIR/scans.json, which lists each scanned copy with its original and its pages.
`lectern-bench ocr OUT_DIR` reads them.
"""

import argparse
import json
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

# (name, dpi, degrees turned counter-clockwise)
VARIANTS = [("300dpi", 300, 0.0), ("200dpi", 200, 0.0), ("skewed", 300, 3.0)]


def page_images(pdf: Path, pages: int, dpi: int, skew: float) -> list[Image.Image]:
    document = pdfium.PdfDocument(str(pdf))
    images = []
    for index in range(min(pages, len(document))):
        bitmap = document[index].render(scale=dpi / 72, grayscale=True)
        image = bitmap.to_pil().convert("L")
        if skew:
            image = image.rotate(skew, resample=Image.BICUBIC, expand=True, fillcolor=255)
        images.append(image)
    document.close()
    return images


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("pdfs", type=Path, nargs="+")
    parser.add_argument("--pages", type=int, default=3, help="pages of each PDF (default 3)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    scans = []
    for pdf in args.pdfs:
        for variant, dpi, skew in VARIANTS:
            images = page_images(pdf, args.pages, dpi, skew)
            name = f"{pdf.stem}.{variant}"
            pages_dir = args.out / name
            pages_dir.mkdir(exist_ok=True)
            for number, image in enumerate(images, start=1):
                image.save(pages_dir / f"page-{number:03}.png", dpi=(dpi, dpi))
            images[0].save(
                args.out / f"{name}.pdf", save_all=True, append_images=images[1:], resolution=float(dpi)
            )
            scans.append(
                {
                    "original": str(pdf.resolve()),
                    "scan": f"{name}.pdf",
                    "images": name,
                    "variant": variant,
                    "dpi": dpi,
                    "pages": len(images),
                }
            )
            print(f"{name}.pdf: {len(images)} pages at {dpi} dpi" + (f", turned {skew} degrees" if skew else ""))
    (args.out / "scans.json").write_text(json.dumps(scans, indent=2) + "\n")


if __name__ == "__main__":
    main()
