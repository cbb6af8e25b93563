"""hwpc.formats, hwpc.eval, hwpc.__version__ against the tool."""

import json

import pytest

import hwpc
from conftest import run_tool


def test_formats_lists_what_the_tool_lists():
    df = hwpc.formats()
    tool = json.loads(run_tool("formats", "--json").stdout)
    assert len(df) == len(tool)
    assert list(df["name"]) == [f["name"] for f in tool]
    assert list(df["size"]) == [f["size"] for f in tool]
    assert [list(p) for p in df["platforms"]] == [f["platforms"] for f in tool]


@pytest.mark.parametrize("expr,vars,syntax", [
    ("$A 3 UMUL 2 UADD", {"A": 5}, "rpn"),
    ("$A 2 FDIV", {"A": 3}, "rpn"),
    ("A * 1.5 + B", {"A": 4, "B": 0.25}, "infix"),
])
def test_eval_equals_the_tool(expr, vars, syntax):
    args = ["eval", "--syntax", syntax, "--expr", expr]
    for k, v in vars.items():
        args += ["--var", "%s=%r" % (k, v)]
    want = run_tool(*args).stdout.strip()
    got = hwpc.eval(expr, vars, syntax=syntax)
    assert isinstance(got, int) == ("." not in want and "e" not in want)
    assert got == (int(want) if isinstance(got, int) else float(want))


def test_eval_errors_name_the_column():
    r = run_tool("eval", "--syntax", "rpn", "--expr", "1 2 +", check=False)
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.eval("1 2 +")
    assert e.value.column == 5 and e.value.offset is None
    assert r.stderr.startswith("hwpc eval: " + str(e.value).splitlines()[0])


def test_eval_syntax_is_refused_as_the_tool_refuses_it():
    r = run_tool("eval", "--syntax", "lisp", "--expr", "1", check=False)
    assert r.returncode == 1
    with pytest.raises(ValueError) as e:
        hwpc.eval("1", syntax="lisp")
    # The same words, in each door's spelling of the option.
    assert r.stderr.strip() == "hwpc eval: --" + str(e.value)
    assert str(e.value) == "syntax: expected rpn or infix, not 'lisp'"


def test_version_is_the_projects():
    from pathlib import Path
    version = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert hwpc.__version__ == version


def test_decode_follows_the_librarys_vendor_rule():
    # The rule of include/hwpc/pipeline/open.hpp, as hwpc decode and hwpc report follow it.
    vendor_of = hwpc._hwpc.vendor_of
    raw = b"\x01\x02\x03\x00" * 64  # no header hwpc knows
    assert vendor_of(b"HWPCMALI", {}) == "mali"  # the magic
    assert vendor_of(raw, {"format": "hex"}) == "adreno"  # an Adreno format name
    assert vendor_of(raw, {"l2_slices": 1}) == "mali"  # a Mali option
    assert vendor_of(raw, {"platform": "hsw", "format": "A45_B8_C8"}) == "intel"
    assert vendor_of(b"HWPCMALI", {"vendor": "adreno"}) == "adreno"  # the caller's word
    with pytest.raises(ValueError, match="context is not an option for Mali captures"):
        hwpc.decode(b"HWPCMALI", context=1)
    with pytest.raises(ValueError, match="cannot tell what the capture is: platform and format"):
        hwpc.decode(raw)


def test_decode_refuses_what_no_vendor_takes_and_a_mali_option_elsewhere(tmp_path):
    # hwpc.decode takes the keywords of every vendor's call, as hwpc::open's options.
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        hwpc.decode(b"HWPCMALI", colour="red")
    rd = tmp_path / "a530.rd"
    run_tool("adreno", "emulate", "--gpu", "a530", "--rounds", "2", "--out", rd)
    # Mali's keywords that pick no vendor are still Mali's alone.
    with pytest.raises(ValueError, match="names is not an option for Adreno captures"):
        hwpc.decode(str(rd), names="streamline")
    with pytest.raises(ValueError, match="per_instance is not an option for Adreno captures"):
        hwpc.decode(str(rd), per_instance=True)
    # The vendor's call checks its options before the input is read; hwpc.decode
    # reads the input first (the vendor comes from it).
    with pytest.raises(ValueError, match="reader: expected vinstr or kinstr, not 'perf'"):
        hwpc.mali.decode(str(tmp_path / "absent"), reader="perf")
    with pytest.raises(hwpc.DecodeError, match="cannot open"):
        hwpc.decode(str(tmp_path / "absent"), reader="perf")
    assert len(hwpc.decode(str(rd))) == len(hwpc.adreno.queries(str(rd))) > 0
