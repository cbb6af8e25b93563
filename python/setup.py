"""Builds the hwpc package: the extension hwpc._hwpc over the headers in
../include (and the tool's helpers in ../examples/hwpc), plus the
pure-Python files in hwpc/. Run from a checkout of the repository:

    /usr/bin/python3 -m pip install --no-build-isolation ./python

pugixml (the metric XML loader) and zlib (gzip-compressed Adreno captures)
are used when their headers are installed, as in the CMake build.
"""

import os
from pathlib import Path

from setuptools import Extension, setup

import pybind11

here = Path(__file__).resolve().parent
top = here.parent
if not (top / "include" / "hwpc" / "hwpc.hpp").exists():
    raise SystemExit("setup.py: build from a checkout of hwpc (../include/hwpc is missing)")
version = (top / "VERSION").read_text().strip()  # the one place of the version

macros = [("HWPC_VERSION", '"%s"' % version)]
libraries = []
if os.path.exists("/usr/include/pugixml.hpp"):
    macros.append(("HWPC_HAVE_PUGIXML", "1"))
    libraries.append("pugixml")
if os.path.exists("/usr/include/zlib.h"):
    macros.append(("HWPC_HAVE_ZLIB", "1"))
    libraries.append("z")

ext = Extension(
    "hwpc._hwpc",
    sources=sorted(str(p.relative_to(here)) for p in (here / "src").glob("*.cpp")),
    include_dirs=[pybind11.get_include(), str(top / "include"), str(top / "examples" / "hwpc")],
    define_macros=macros,
    libraries=libraries,
    extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden"],
    language="c++",
)

setup(
    name="hwpc",
    version=version,
    description="GPU performance-counter captures as NumPy/pandas columns, fleets on Dask",
    packages=["hwpc"],
    ext_modules=[ext],
    python_requires=">=3.9",
    install_requires=["numpy", "pandas"],
    extras_require={"dask": ["dask[dataframe]", "distributed"]},
    zip_safe=False,
)
