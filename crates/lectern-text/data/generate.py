#!/usr/bin/env python3
"""Writes <collection>.u16: the Unicode value (UTF-16 unit, little-endian; 0 = none) of every CID
of an Adobe character collection, from Adobe's <collection>-UCS2 CMaps (BSD-3-Clause, Adobe
cmap-resources; Debian ships them in poppler-data under /usr/share/poppler/cMap).
Run: python3 generate.py [/usr/share/poppler/cMap]"""
import re
import struct
import sys
from pathlib import Path

SOURCE = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/poppler/cMap")
HERE = Path(__file__).parent

for collection in ["Adobe-Japan1", "Adobe-GB1", "Adobe-CNS1", "Adobe-Korea1"]:
    text = (SOURCE / collection / f"{collection}-UCS2").read_text(encoding="latin-1")
    table = {}
    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        for cid, dst in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
            if len(dst) == 4:
                table[int(cid, 16)] = int(dst, 16)
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(r"<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>", block):
            if len(dst) == 4:
                for i in range(int(hi, 16) - int(lo, 16) + 1):
                    table[int(lo, 16) + i] = int(dst, 16) + i
    size = max(table) + 1
    data = b"".join(struct.pack("<H", table.get(cid, 0)) for cid in range(size))
    (HERE / f"{collection}.u16").write_bytes(data)
    print(collection, size, "CIDs", len(table), "mapped")
