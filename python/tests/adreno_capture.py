"""An Adreno A5xx .rd capture with one query result of every kind, encoded
here from the PM4 and .rd layouts (docs/adreno.md; the same capture as the
C++ tests' tests/adreno_results_capture.hpp, written independently)."""

import struct


def _parity(x):
    return 1 if bin(x).count("1") % 2 == 0 else 0


def pkt7(opcode, count):
    return (7 << 28) | (_parity(opcode) << 23) | (opcode << 16) | (_parity(count) << 15) | count


def pkt4(reg, count):
    return (4 << 28) | (_parity(reg) << 27) | (reg << 8) | (_parity(count) << 7) | count


TE_SLOT, OCC_SLOT, CP1_DST, AON_DST, LOST_DST = 0xC0000000, 0xC0000100, 0xC0000200, 0xC0000300, \
    0xD0000000


def _u64(v):
    return [v & 0xFFFFFFFF, v >> 32]


def stream():
    d = [pkt7(0x46, 4), 0x40000016, *_u64(TE_SLOT), 0]
    d += [pkt4(0xE1D1, 1), 2, pkt4(0xE267, 2), *_u64(OCC_SLOT), pkt7(0x46, 1), 0x15]
    d += [pkt7(0x3D, 4), *_u64(OCC_SLOT + 16), 0xFFFFFFFF, 0xFFFFFFFF, pkt7(0x12, 0),
          pkt4(0xE1D1, 1), 2, pkt4(0xE267, 2), *_u64(OCC_SLOT + 16)]
    d += [pkt7(0x46, 1), 0x15, pkt7(0x3C, 6), 0x14, *_u64(OCC_SLOT + 20)]
    d += [0xFFFFFFFF, 0xFFFFFFFF, 0x10, pkt7(0x73, 9), 0x20000004]
    for a in (OCC_SLOT + 8, OCC_SLOT + 8, OCC_SLOT + 16, OCC_SLOT):
        d += _u64(a)
    d += [pkt7(0x46, 4), 0x40000016, *_u64(TE_SLOT + 16)]
    d += [0, pkt7(0x26, 0), pkt7(0x73, 9), 0x20000004]
    for a in (TE_SLOT + 8, TE_SLOT + 8, TE_SLOT + 16, TE_SLOT):
        d += _u64(a)
    d += [pkt4(0x0BB1, 1), 2, pkt7(0x3E, 3), 0x03A2 | (2 << 18), *_u64(CP1_DST)]
    d += [pkt7(0x3E, 3), 0x04D2 | (2 << 18), *_u64(AON_DST)]
    d += [pkt7(0x3E, 3), 0x03A2 | (2 << 18), *_u64(LOST_DST)]
    return d


def memory():
    m = [0] * 0x100

    def at(addr, v):
        i = (addr - TE_SLOT) // 4
        m[i], m[i + 1] = v & 0xFFFFFFFF, v >> 32

    at(TE_SLOT, 19_200_000)
    at(TE_SLOT + 8, 96_000)
    at(TE_SLOT + 16, 19_296_000)
    at(OCC_SLOT, 100)
    at(OCC_SLOT + 8, 42)
    at(OCC_SLOT + 16, 142)
    at(CP1_DST, 0x1_0000_0005)
    at(AON_DST, 38_400_000)
    return m


def _section(kind, words):
    payload = struct.pack("<%dI" % len(words), *words)
    return struct.pack("<II", kind, len(payload)) + payload


def capture():
    """The .rd bytes: GPU id 530, the stream at 0x10000, the query memory."""
    cmd, mem = stream(), memory()
    out = _section(13, [530])
    out += _section(3, [0x10000, 4 * len(cmd), 0]) + _section(12, cmd)
    out += _section(3, [TE_SLOT & 0xFFFFFFFF, 4 * len(mem), TE_SLOT >> 32]) + _section(12, mem)
    out += _section(6, [0x10000, len(cmd), 0])
    return out
