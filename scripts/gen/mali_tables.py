#!/usr/bin/env python3
"""Generate the Mali counter tables of include/hwpc/mali/gpus/ from Arm's counter database.

Inputs (read, never copied): <data>/hardwarelayout/*.xml (one hardware layout per database key),
<data>/Mali-ProductInfo.xml (product ids, names, which layout each product uses) and
<data>/Mali-CounterInfo-*.xml (Streamline names of the hardware counters, derived counters).
Outputs: one header per hardware layout (<out>/g72.hpp, ...) and <out>/index.hpp.
Python 3 standard library only; the output depends on the inputs alone (no dates, no paths
outside the data folder), so regenerating and diffing detects drift.

    python3 scripts/gen/mali_tables.py [--data ../shared/data/mali] [--out include/hwpc/mali/gpus]
"""

import argparse
import hashlib
import os
import re
import sys
import xml.etree.ElementTree as ET

# The block types of a layout file and the enumerator each becomes (kbase's order:
# front-end 0, tiler 1, memory 2, shader core 3).
BLOCK_TYPES = {
    "GPU Front-end": (0, "front_end"),
    "Tiler": (1, "tiler"),
    "Memory System": (2, "memory"),
    "Shader Core": (3, "shader_core"),
}
HEADER_VALUES = 4  # values 0..3 of every block are header words (FACTS-mali.md section 3)
LICENSE_NOTE = "Arm libGPUCounters counter database (MIT, LICENSE-libGPUCounters.md)"


class InputError(Exception):
    pass


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stem_of(key):
    """'Mali-G72' -> 'g72', 'Mali G1' -> 'g1': the header and variable name of a layout."""
    m = re.fullmatch(r"Mali[- ]([A-Za-z0-9]+)", key)
    if not m:
        raise InputError(f"database key {key!r} is not of the form 'Mali-Xnn'")
    return m.group(1).lower()


def cxx_string(s):
    # Printable ASCII only; quote and backslash escaped.
    if not re.fullmatch(r"[\x20-\x7e]*", s):
        raise InputError(f"unexpected characters in {s!r}")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_layout(path):
    root = ET.parse(path).getroot()
    if root.tag != "HardwareLayout":
        raise InputError(f"{path}: root element is {root.tag}, not HardwareLayout")
    key = root.get("gpu")
    sizes = set()
    counters = []
    seen_types = set()
    for block in root.findall("CounterBlock"):
        btype = block.get("type")
        if btype not in BLOCK_TYPES:
            raise InputError(f"{path}: unknown block type {btype!r}")
        if btype in seen_types:
            raise InputError(f"{path}: block type {btype!r} listed twice")
        seen_types.add(btype)
        if block.get("bank") != "0":
            raise InputError(f"{path}: {btype} bank {block.get('bank')!r}, expected 0")
        size = int(block.get("size"))
        sizes.add(size)
        order, enum = BLOCK_TYPES[btype]
        indices = set()
        names = set()
        for c in block.findall("Counter"):
            name = c.get("name")
            index = int(c.get("index"))
            if not (HEADER_VALUES <= index < size):
                raise InputError(f"{path}: {btype} {name} index {index} outside {HEADER_VALUES}..{size - 1}")
            if index in indices or name in names:
                raise InputError(f"{path}: {btype} duplicate index {index} or name {name}")
            # Arm's sampler reports value << shift (FACTS-mali section 6); absent = 0.
            shift = int(c.get("shift", "0"))
            if not (0 <= shift < 32):
                raise InputError(f"{path}: {btype} {name} shift {shift} outside 0..31")
            indices.add(index)
            names.add(name)
            counters.append((order, index, enum, name, shift))
    if seen_types != set(BLOCK_TYPES):
        raise InputError(f"{path}: block types {sorted(seen_types)}, expected all four")
    if len(sizes) != 1 or next(iter(sizes)) not in (64, 128):
        raise InputError(f"{path}: block sizes {sorted(sizes)}, expected one of 64 or 128")
    counters.sort()
    return key, next(iter(sizes)), counters


def read_products(path):
    root = ET.parse(path).getroot()
    products = []
    for p in root.findall("ProductInfo"):
        ids = [int(i.text, 16) for i in p.findall("Id")]
        names = [n.text for n in p.findall("Name")]
        if not ids or not names:
            raise InputError(f"{path}: a ProductInfo without <Id> or <Name>")
        products.append({
            "ids": ids,
            "names": names,
            "architecture": p.findtext("Architecture"),
            "key": p.findtext("DatabaseKey"),
            "document": p.findtext("DocumentName"),
        })
    return products


def read_counter_info(paths, layouts):
    """Per database key: (streamline, derived) from the CounterInfo files, in file order.
    streamline: (machine name, hardware name, group, group human name) of every hardware counter
    (SourceName, or SourceAlias where the layout uses that name); derived: (machine name, human
    name, units, equation with white space collapsed)."""
    per_key = {key: ([], []) for key in layouts}
    for path in paths:
        root = ET.parse(path).getroot()
        for ci in root.findall("CounterInfo"):
            name = ci.findtext("MachineName")
            equation = ci.findtext("Equation")
            gpus = [g.text for g in ci.find("SupportedGPUs").findall("GPU")]
            for key in gpus:
                if key not in layouts:
                    raise InputError(f"{path}: {name} supports {key!r}, which has no layout")
                streamline, derived = per_key[key]
                if equation is not None:
                    derived.append((name, ci.findtext("HumanName"), ci.findtext("Units"),
                                    " ".join(equation.split())))
                    continue
                names = layouts[key]
                hw = ci.findtext("SourceName")
                if hw not in names:
                    hw = ci.findtext("SourceAlias")
                if hw not in names:
                    raise InputError(f"{path}: {name} reads {ci.findtext('SourceName')!r}, which "
                                     f"the {key} layout does not have")
                streamline.append((name, hw, ci.findtext("GroupName"),
                                   ci.findtext("GroupHumanName")))
    for key, (streamline, derived) in per_key.items():
        seen = [n for n, *_ in streamline] + [n for n, *_ in derived]
        if len(set(seen)) != len(seen):
            raise InputError(f"{key}: a MachineName is defined twice")
    return per_key


def header_preamble(what, sources):
    lines = [
        "// GENERATED by scripts/gen/mali_tables.py; do not edit (scripts/check-generated.sh",
        "// regenerates and compares).",
        "// " + what,
        "// Source: " + LICENSE_NOTE + ",",
        "// read from ../shared/data/mali/:",
    ]
    for name, digest in sources:
        lines.append(f"//   {name} (sha256 {digest[:16]})")
    # The whole file is exempt from clang-format: its layout is the generator's, and CI's
    # format check must not depend on how a clang-format version would re-wrap tables.
    lines += ["#pragma once", "", "// clang-format off", ""]
    return lines


def write_layout(out_dir, sources, key, size, counters, architecture, info):
    stem = stem_of(key)
    streamline, derived = info
    where = {name: (enum, index) for _, index, enum, name, _ in counters}
    per_block = {enum: 0 for _, (_, enum) in BLOCK_TYPES.items()}
    for _, _, enum, _, _ in counters:
        per_block[enum] += 1
    lines = header_preamble(
        f"The {key} hardware layout: every counter's block and index, its Streamline\n"
        f"// name, and Arm's derived counters.", sources)
    lines += [
        '#include "hwpc/mali/table.hpp"',
        "",
        "namespace hwpc::mali::gpus {",
        "",
        "namespace detail {",
        f"// {len(counters)} counters (" + ", ".join(f"{e} {n}" for e, n in per_block.items()) +
        "),",
        "// sorted by block type, then index; a third field is the counter's shift",
        "// (<Counter shift=\"n\">: Arm reports value << n), given only when not 0.",
        f"inline constexpr hw_counter {stem}_counters[] = {{",
    ]
    for _, index, enum, name, shift in counters:
        tail = f", {shift}" if shift else ""
        lines.append(f"    {{{{block_type::{enum}, {index}}}, {cxx_string(name)}{tail}}},")
    lines += ["};", "",
              f"// Mali-CounterInfo-*.xml entries without <Equation> listing {key}: MachineName,",
              "// hardware counter (SourceName, or SourceAlias where the layout uses it), GroupName,",
              "// GroupHumanName.",
              f"inline constexpr streamline_counter {stem}_streamline[] = {{"]
    for name, hw, group, group_human in streamline:
        enum, index = where[hw]
        lines.append(f"    {{{cxx_string(name)}, {cxx_string(hw)}, {{block_type::{enum}, {index}}}, "
                     f"{cxx_string(group)}, {cxx_string(group_human)}}},")
    lines += ["};", "",
              f"// Mali-CounterInfo-*.xml entries with an <Equation> listing {key}: MachineName,",
              "// HumanName, Units, Equation (white space collapsed).",
              f"inline constexpr derived_counter {stem}_derived[] = {{"]
    for name, human, units, equation in derived:
        lines.append(f"    {{{cxx_string(name)}, {cxx_string(human)}, {cxx_string(units)},")
        lines.append(f"     {cxx_string(equation)}}},")
    lines += [
        "};",
        "}  // namespace detail",
        "",
        f"// <HardwareLayout gpu={cxx_string(key)}>: every <CounterBlock> has size=\"{size}\".",
        f"inline constexpr gpu_table {stem}{{{cxx_string(key)}, {cxx_string(architecture)}, {size}, "
        f"detail::{stem}_counters,",
        f"                               detail::{stem}_streamline, detail::{stem}_derived}};",
        f"static_assert(is_well_formed({stem}), \"{key}: header index, duplicate or order\");",
        "",
        "}  // namespace hwpc::mali::gpus",
        "",
        "// clang-format on",
        "",
    ]
    path = os.path.join(out_dir, stem + ".hpp")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))
    return stem


def key_product(products, key):
    """The product a database key names: the one called so, else the one whose DocumentName is
    the key, else the lowest id that uses the key."""
    users = [p for p in products if p["key"] == key]
    for p in users:
        if key in p["names"]:
            return p
    for p in users:
        if p["document"] == key:
            return p
    return min(users, key=lambda p: min(p["ids"]))


def write_index(out_dir, layouts, products, sources):
    lines = header_preamble(
        "Product id, names and aliases -> counter table.", sources)
    lines += ['#include "hwpc/mali/table.hpp"']
    for stem in sorted(layouts.values()):
        lines.append(f'#include "hwpc/mali/gpus/{stem}.hpp"')
    lines += ["", "namespace hwpc::mali::gpus {", ""]
    lines += ["// Every hardware layout of the database.",
              "inline constexpr const gpu_table* tables[] = {"]
    for key, stem in sorted(layouts.items(), key=lambda kv: kv[1]):
        lines.append(f"    &{stem},")
    lines += ["};", ""]

    rows = []
    for p in products:
        if p["key"] not in layouts:
            raise InputError(f"product {p['names'][0]} uses {p['key']!r}, which has no layout")
        for pid in p["ids"]:
            rows.append((pid, p))
    rows.sort(key=lambda r: r[0])
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):
        raise InputError("a product id appears twice in ProductInfo")
    lines += [
        "// Every product id of Mali-ProductInfo.xml (<Id>, read as (arch_major << 12) |",
        "// product_major), ascending: its first <Name>, <Architecture> and the layout of its",
        "// <DatabaseKey>.",
        "inline constexpr gpu_product products[] = {",
    ]
    for pid, p in rows:
        lines.append(f"    {{{pid:#06x}, {cxx_string(p['names'][0])}, {cxx_string(p['architecture'])}, "
                     f"&{layouts[p['key']]}}},  // DatabaseKey {p['key']}")
    lines += ["};", "", "// Every <Name> of every product, and each <DatabaseKey> (when no product",
              "// carries it as a name: the product whose <DocumentName> it is, else the lowest id).",
              "inline constexpr gpu_alias aliases[] = {"]
    seen = set()
    for pid, p in rows:
        for n in p["names"]:
            if n not in seen:
                seen.add(n)
                lines.append(f"    {{{cxx_string(n)}, {min(p['ids']):#06x}}},")
    for key in sorted(layouts):
        if key not in seen:
            seen.add(key)
            lines.append(f"    {{{cxx_string(key)}, {min(key_product(products, key)['ids']):#06x}}},"
                         "  // database key")
    lines += ["};", "", "}  // namespace hwpc::mali::gpus", "", "// clang-format on", ""]
    with open(os.path.join(out_dir, "index.hpp"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(repo, "..", "shared", "data", "mali"))
    ap.add_argument("--out", default=os.path.join(repo, "include", "hwpc", "mali", "gpus"))
    args = ap.parse_args(argv)
    layout_dir = os.path.join(args.data, "hardwarelayout")
    product_file = os.path.join(args.data, "Mali-ProductInfo.xml")
    try:
        files = sorted(f for f in os.listdir(layout_dir) if f.endswith(".xml"))
        if not files:
            raise InputError(f"no hardware layouts in {layout_dir}")
        products = read_products(product_file)
        arch_of_key = {}
        for p in products:
            arch_of_key.setdefault(p["key"], p["architecture"])
        os.makedirs(args.out, exist_ok=True)
        read = {}
        for name in files:
            path = os.path.join(layout_dir, name)
            key, size, counters = read_layout(path)
            if key in read:
                raise InputError(f"{path}: layout {key!r} defined twice")
            if key not in arch_of_key:
                raise InputError(f"{path}: no product in ProductInfo uses {key!r}")
            read[key] = (name, path, size, counters)
        info_files = sorted(f for f in os.listdir(args.data)
                            if f.startswith("Mali-CounterInfo-") and f.endswith(".xml"))
        if not info_files:
            raise InputError(f"no Mali-CounterInfo-*.xml in {args.data}")
        info_paths = [os.path.join(args.data, f) for f in info_files]
        info = read_counter_info(
            info_paths, {k: {c[3] for c in v[3]} for k, v in read.items()})
        info_sources = [(f, sha256(p)) for f, p in zip(info_files, info_paths)]
        layouts = {}
        for key, (name, path, size, counters) in read.items():
            layouts[key] = write_layout(
                args.out, [("hardwarelayout/" + name, sha256(path))] + info_sources, key, size,
                counters, arch_of_key[key], info[key])
        write_index(args.out, layouts, products,
                    [("Mali-ProductInfo.xml", sha256(product_file))])
    except (InputError, OSError, ET.ParseError, ValueError, TypeError) as e:
        print(f"mali_tables.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
