#!/usr/bin/env python3
"""Scans in the shapes users upload, for the service tests (standard library only).

  make_scans.py tiff-slices RAW NX NY NZ DIR   uint8 raw -> DIR/slice_0000.tif ... (baseline TIFF, one strip)
  make_scans.py tiff-bomb OUT WIDTH HEIGHT     one page declaring WIDTH x HEIGHT, a few bytes of data
  make_scans.py zip OUT FILE...                a zip (deflate) of FILE... under their base names
  make_scans.py zip-bomb OUT MB                a zip holding MB megabytes of zeros (a few kB on disk)
"""
import os
import struct
import sys
import zipfile


def tiff(width, height, data, strip_bytes=None):
    """Little-endian baseline grayscale TIFF, 8 bits, one uncompressed strip."""
    entries = [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1),
               (273, 4, 0), (277, 3, 1), (278, 4, height), (279, 4, strip_bytes or len(data))]
    ifd_offset = 8
    data_offset = ifd_offset + 2 + 12 * len(entries) + 4
    out = bytearray(b"II*\x00" + struct.pack("<I", ifd_offset) + struct.pack("<H", len(entries)))
    for tag, typ, value in entries:
        if tag == 273:
            value = data_offset
        out += struct.pack("<HHI", tag, typ, 1) + (struct.pack("<HH", value, 0) if typ == 3 else struct.pack("<I", value))
    out += struct.pack("<I", 0)
    return bytes(out) + data


def main(argv):
    cmd = argv[1]
    if cmd == "tiff-slices":
        raw, nx, ny, nz, out = argv[2], int(argv[3]), int(argv[4]), int(argv[5]), argv[6]
        os.makedirs(out, exist_ok=True)
        data = open(raw, "rb").read()
        for z in range(nz):
            with open(os.path.join(out, "slice_%04d.tif" % z), "wb") as f:
                f.write(tiff(nx, ny, data[z * nx * ny:(z + 1) * nx * ny]))
    elif cmd == "tiff-bomb":
        with open(argv[2], "wb") as f:
            f.write(tiff(int(argv[3]), int(argv[4]), b"\x00" * 16, strip_bytes=16))
    elif cmd == "zip":
        with zipfile.ZipFile(argv[2], "w", zipfile.ZIP_DEFLATED) as z:
            for path in argv[3:]:
                z.write(path, os.path.basename(path))
    elif cmd == "zip-bomb":
        with zipfile.ZipFile(argv[2], "w", zipfile.ZIP_DEFLATED) as z:
            with z.open("zeros.tif", "w", force_zip64=True) as f:
                block = b"\x00" * (1 << 20)
                for _ in range(int(argv[3])):
                    f.write(block)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
