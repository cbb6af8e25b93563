"""hwpc.adreno on Android libwrap's .rd dialect: two 0xffffffff words before
each section, sizes rounded up to 4 (docs/adreno.md, ".rd captures"). The
same capture in both dialects gives the same rows at other offsets."""

import struct

import hwpc
from adreno_capture import capture


def libwrap(plain):
    """Re-frames the kernel dialect's sections in libwrap's."""
    out, pos = b"", 0
    while pos < len(plain):
        kind, size = struct.unpack_from("<II", plain, pos)
        payload = plain[pos + 8:pos + 8 + size]
        padded = payload + b"\0" * (-size % 4)
        out += struct.pack("<IIII", 0xFFFFFFFF, 0xFFFFFFFF, kind, len(padded)) + padded
        pos += 8 + size
    return out


def test_both_dialects_give_the_same_rows(tmp_path):
    plain, wrapped = tmp_path / "plain.rd", tmp_path / "libwrap.rd"
    plain.write_bytes(capture())
    wrapped.write_bytes(libwrap(capture()))
    a, b = hwpc.adreno.queries(str(plain)), hwpc.adreno.queries(str(wrapped))
    assert len(a) == len(b) == 5
    assert b.schema.get("gpu_id") == 530
    for name in a.columns:
        if name == "offset":
            continue
        assert [str(v) for v in a.columns[name]] == [str(v) for v in b.columns[name]], name
    # Offsets are in the file given: libwrap's markers move every section.
    assert list(a.columns["offset"]) != list(b.columns["offset"])
