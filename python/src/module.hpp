// The extension module hwpc._hwpc: one bind_* per part of the library.
#pragma once

#include <pybind11/pybind11.h>

namespace hwpc::py {

void bind_open(pybind11::module_& m);
void bind_adreno(pybind11::module_& m);
void bind_perfetto(pybind11::module_& m);
void bind_record(pybind11::module_& m);

}  // namespace hwpc::py
