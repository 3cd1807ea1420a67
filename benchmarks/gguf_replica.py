"""Carry a GGUF model's shape without its weights: header now, zero-filled replica later.

The lent GPU machine takes at most 64 MiB of carried files, so the 1.1 GB embedded model
cannot travel. Its header (metadata, tokenizer, tensor table) is a few MB; the replica
rebuilt from it has the same tensors, quantisation types and sizes with every weight
zero, so llama.cpp does exactly the same work per token as with the real model. Speeds
measured on it are real; its outputs are meaningless (all logits equal).

    python benchmarks/gguf_replica.py header MODEL.gguf OUT.ggufhdr
    python benchmarks/gguf_replica.py expand OUT.ggufhdr REPLICA.gguf
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path
from typing import BinaryIO

MAGIC = b"GGUF"
TRAILER = struct.Struct("<Q")  # the full file size, appended after the header bytes
# Fixed-size value types (GGUF spec): uint8 int8 uint16 int16 uint32 int32 float32 bool
# string(8) array(9) uint64 int64 float64.
SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY, UINT32 = 8, 9, 4


class GGUFFormatError(ValueError):
    """Not a GGUF file this reader understands."""


def _read(fh: BinaryIO, fmt: str) -> int:
    size = struct.calcsize(fmt)
    raw = fh.read(size)
    if len(raw) != size:
        raise GGUFFormatError("file ends inside the header")
    return int(struct.unpack(fmt, raw)[0])


def _string(fh: BinaryIO) -> bytes:
    return fh.read(_read(fh, "<Q"))


def _skip_value(fh: BinaryIO, kind: int) -> None:
    if kind == STRING:
        _string(fh)
    elif kind == ARRAY:
        item, count = _read(fh, "<I"), _read(fh, "<Q")
        if item in SCALAR_SIZES:
            fh.seek(SCALAR_SIZES[item] * count, 1)
        else:
            for _ in range(count):
                _skip_value(fh, item)
    elif kind in SCALAR_SIZES:
        fh.seek(SCALAR_SIZES[kind], 1)
    else:
        raise GGUFFormatError(f"unknown GGUF value type {kind}")


def data_offset(path: Path) -> int:
    """Byte offset where tensor data starts (end of header, aligned)."""
    with open(path, "rb") as fh:
        if fh.read(4) != MAGIC:
            raise GGUFFormatError(f"{path} is not a GGUF file")
        version = _read(fh, "<I")
        if version < 2:
            raise GGUFFormatError(f"GGUF version {version} is not supported")
        n_tensors, n_kv = _read(fh, "<Q"), _read(fh, "<Q")
        alignment = 32
        for _ in range(n_kv):
            key, kind = _string(fh), _read(fh, "<I")
            if key == b"general.alignment" and kind == UINT32:
                alignment = _read(fh, "<I")
            else:
                _skip_value(fh, kind)
        for _ in range(n_tensors):
            _string(fh)
            fh.seek(8 * _read(fh, "<I") + 4 + 8, 1)  # dims, type, offset
        end = fh.tell()
    return (end + alignment - 1) // alignment * alignment


def write_header(model: Path, out: Path) -> dict[str, int]:
    offset = data_offset(model)
    total = model.stat().st_size
    with open(model, "rb") as src, open(out, "wb") as dst:
        dst.write(src.read(offset))
        dst.write(TRAILER.pack(total))
    return {"header_bytes": offset, "model_bytes": total}


def expand(header: Path, out: Path) -> dict[str, int]:
    raw = header.read_bytes()
    if len(raw) < TRAILER.size + 4 or not raw.startswith(MAGIC):
        raise GGUFFormatError(f"{header} is not a header written by this tool")
    (total,) = TRAILER.unpack(raw[-TRAILER.size :])
    body = raw[: -TRAILER.size]
    with open(out, "wb") as fh:
        fh.write(body)
        fh.truncate(total)  # sparse zeros: instant, no disk used until read
    return {"header_bytes": len(body), "model_bytes": total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    for action, first, second in (("header", "model", "out"), ("expand", "header", "out")):
        cmd = sub.add_parser(action)
        cmd.add_argument(first, type=Path)
        cmd.add_argument(second, type=Path)
    args = parser.parse_args(argv)
    try:
        if args.action == "header":
            info = write_header(args.model, args.out)
        else:
            info = expand(args.header, args.out)
    except (OSError, GGUFFormatError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"out": str(args.out), **info}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
