"""Builds the hwpc package: the extension hwpc._hwpc over the headers in
../include, plus the pure-Python files in hwpc/. Run from a checkout of the
repository:

    /usr/bin/python3 -m pip install --no-build-isolation ./python

The library's optional parts are found as the CMake build finds them and
exports them (hwpc::xml and hwpc::gzip, whose pkg-config modules require
"pugixml" and "zlib"): through pkg-config, with its flags, so no include
path is written here. A part whose module pkg-config does not know is left
out, as CMake leaves it out when find_package fails.
"""

import shlex
import subprocess
from pathlib import Path

from setuptools import Extension, setup

import pybind11

here = Path(__file__).resolve().parent
top = here.parent
if not (top / "include" / "hwpc" / "hwpc.hpp").exists():
    raise SystemExit("setup.py: build from a checkout of hwpc (../include/hwpc is missing)")
version = (top / "VERSION").read_text().strip()  # the one place of the version

macros = [("HWPC_VERSION", '"%s"' % version)]
compile_flags, link_flags = [], []


def _part(module, macro):
    """The optional part `macro` when pkg-config knows `module`: its flags."""
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", module], check=True,
                               capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print("setup.py: %s not found by pkg-config: %s left out" % (module, macro))
        return
    macros.append((macro, "1"))
    for f in shlex.split(flags):
        (link_flags if f.startswith(("-l", "-L")) else compile_flags).append(f)


# The same parts, under the same macros, as CMakeLists.txt's hwpc_add_part().
_part("pugixml", "HWPC_HAVE_PUGIXML")
_part("zlib", "HWPC_HAVE_ZLIB")
# A Python object touched while a decode has released the GIL raises rather
# than racing another thread (python/CMakeLists.txt builds the same way).
macros.append(("PYBIND11_ASSERT_GIL_HELD_INCREF_DECREF", None))

ext = Extension(
    "hwpc._hwpc",
    sources=sorted(str(p.relative_to(here)) for p in (here / "src").glob("*.cpp")),
    include_dirs=[pybind11.get_include(), str(top / "include")],
    define_macros=macros,
    extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden"] + compile_flags,
    extra_link_args=link_flags,
    language="c++",
)

setup(
    name="hwpc",
    version=version,
    description="GPU performance-counter captures as NumPy/pandas columns, fleets on Dask",
    packages=["hwpc"],
    package_data={"hwpc": ["py.typed"]},
    ext_modules=[ext],
    python_requires=">=3.9",
    install_requires=["numpy", "pandas"],
    extras_require={"dask": ["dask[dataframe]", "distributed"]},
    zip_safe=False,
)
