"""hwpc.mali.decode against `hwpc mali` on the Mali emulator's captures."""

import numpy as np
import pytest

import hwpc
from conftest import assert_rows_equal_csv, run_tool, tool_csv, tool_json_accounting

# (gpu, reader, l2 slices, core mask): a Bifrost GPU on vinstr (the counter
# guide's derived counters) and a 5th-generation one on kinstr_prfcnt (Arm's
# database's).
CASES = {
    "g72-vinstr": ("mali-g72", "vinstr", 2, 0xB),
    "g720-kinstr": ("Mali-G720", "kinstr", 2, 0x3F),
}


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    d = tmp_path_factory.mktemp("mali")
    out = {}
    for name, (gpu, reader, l2, mask) in CASES.items():
        path = d / (name + ".hwpcmali")
        run_tool("mali", "emulate", "--gpu", gpu, "--reader", reader, "--l2-slices", l2,
                 "--core-mask", hex(mask), "--samples", "40", "--seed", "3", "--out", path)
        out[name] = str(path)
    return out


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("per_instance", [False, True])
def test_every_column_equals_the_tools_csv(captures, name, per_instance):
    gpu, reader, l2, mask = CASES[name]
    path = captures[name]
    rows = hwpc.mali.decode(path, gpu=gpu, bus_width_bits=128, per_instance=per_instance)
    flags = ["--gpu", gpu, "--bus-width-bits", "128"] + (["--per-instance"] if per_instance
                                                           else [])
    header, table = tool_csv("mali", *flags, path)
    assert len(rows) == 40
    assert any(c["kind"] == "metric" for c in rows.schema["columns"].values())
    assert_rows_equal_csv(rows, header, table)
    assert rows.schema["clock"] == "cpu_ns"
    trailer = tool_json_accounting("mali", *flags, path)
    if trailer is not None:
        assert rows.accounting == trailer
    else:
        assert rows.accounting["intervals"] == len(rows) == rows.accounting["reports"]


def test_the_header_supplies_the_layout_and_options_must_agree(captures):
    path = captures["g72-vinstr"]
    a = hwpc.mali.decode(path)  # GPU_ID, reader, slices and mask from the header
    b = hwpc.mali.decode(path, gpu="G72", reader="vinstr", l2_slices=2, core_mask=0xB)
    np.testing.assert_array_equal(a.columns["GPU_ACTIVE"], b.columns["GPU_ACTIVE"])
    with pytest.raises(ValueError, match="contradicts"):
        hwpc.mali.decode(path, core_mask=0x3)
    with pytest.raises(ValueError, match="contradicts"):
        hwpc.mali.decode(path, gpu="mali-g78")


def test_summary_equals_the_tools_summary(captures):
    path = captures["g720-kinstr"]
    t = hwpc.mali.decode(path, bus_width_bits=128, summary=True)
    header, table = tool_csv("mali", "--bus-width-bits", "128", "--summary", path)
    assert list(t.columns) == header
    for name, text in zip(header, table[0]):
        v = t.first(name)
        if t.schema["columns"][name]["kind"] == "metric":
            assert (v is None and text == "") or v == float(text), name
        else:
            assert int(v) == int(text), name


def test_a_truncated_capture_fails_with_the_tools_offset(captures, tmp_path):
    data = open(captures["g720-kinstr"], "rb").read()
    cut = tmp_path / "cut.hwpcmali"
    cut.write_bytes(data[: len(data) - 100])
    r = run_tool("mali", cut, check=False)
    assert r.returncode == 2
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.mali.decode(str(cut))
    assert r.stderr.strip() == "hwpc mali: " + str(e.value)
    assert e.value.offset is not None and ("byte offset %d" % e.value.offset) in r.stderr


@pytest.mark.parametrize("name", list(CASES))
def test_streamline_names_equal_the_tools_csv(captures, name):
    path = captures[name]
    rows = hwpc.mali.decode(path, bus_width_bits=128, names="streamline")
    header, table = tool_csv("mali", "--bus-width-bits", "128", "--names", "streamline", path)
    assert "MaliGPUActiveCy" in rows.columns and "GPU_ACTIVE" not in rows.columns
    assert_rows_equal_csv(rows, header, table)
    hardware = hwpc.mali.decode(path, bus_width_bits=128)
    np.testing.assert_array_equal(rows.columns["MaliGPUActiveCy"], hardware.columns["GPU_ACTIVE"])
    with pytest.raises(ValueError, match="hardware or streamline"):
        hwpc.mali.decode(path, names="driver")


def test_plausibility_warnings_are_the_tools(captures):
    path = captures["g720-kinstr"]
    # A 1 MHz clock: GPU_ACTIVE beyond duration x 1 MHz on the emulator's samples.
    r = run_tool("mali", "--max-clock-mhz", "1", path)
    said = [line[len("hwpc mali: warning: "):] for line in r.stderr.splitlines()]
    rows = hwpc.mali.decode(path, max_clock_mhz=1)
    assert rows.warnings_total > 0 and len(rows.warnings) == rows.warnings_total
    shown = min(20, len(rows.warnings))
    assert said[:shown] == rows.warnings[:shown]
    assert ("%d value(s) break physical bounds" % rows.warnings_total) in said[-1]
    assert hwpc.mali.decode(path).warnings == [] or rows.warnings_total > len(
        hwpc.mali.decode(path).warnings)
    with pytest.raises(ValueError, match="1..4000"):
        hwpc.mali.decode(path, max_clock_mhz=0)


def test_an_unknown_gpu_id_in_the_header_fails_as_the_tool_does(captures, tmp_path):
    data = bytearray(open(captures["g72-vinstr"], "rb").read())
    data[16:24] = (0xE00E0000).to_bytes(8, "little")  # GPU_ID (capture header, byte 16)
    odd = tmp_path / "odd.hwpcmali"
    odd.write_bytes(bytes(data))
    r = run_tool("mali", odd, check=False)
    assert r.returncode == 2 and ": header: " in r.stderr
    with pytest.raises(hwpc.DecodeError) as e:
        hwpc.mali.decode(str(odd))
    assert r.stderr.strip() == "hwpc mali: " + str(e.value)


@pytest.mark.parametrize("option,value,choices", [
    ("reader", "perf", "vinstr or kinstr"),
    ("core_index", "diagonal", "dense or sparse"),
    ("names", "driver", "hardware or streamline"),
    ("derived", "exact", "guide or database"),
])
def test_a_value_outside_the_choices_is_refused_alike(captures, option, value, choices):
    # The tool's option parser and the library (Python's check) say the same, each in its own
    # spelling of the option.
    path = captures["g72-vinstr"]
    flag = "--" + option.replace("_", "-")
    extra = ["--bus-width-bits", "128"] if option == "derived" else []
    r = run_tool("mali", flag, value, *extra, path, check=False)
    assert r.returncode == 1
    said = "%s: expected %s, not '%s'" % (option, choices, value)
    assert r.stderr.strip() == "hwpc mali: " + said.replace(option, flag, 1)
    kwargs = {"bus_width_bits": 128} if option == "derived" else {}
    with pytest.raises(ValueError) as e:
        hwpc.mali.decode(path, **{option: value}, **kwargs)
    assert not isinstance(e.value, hwpc.DecodeError)
    assert str(e.value) == said
    # The tool's usage shows the choices.
    assert ("%s %s" % (flag, choices.replace(" or ", "|"))) in run_tool("mali", "--help").stdout
