// What reading an input for its Adreno query rows hands back besides the
// rows (rows_done), and how the sink calls the caller per row (row_callback):
// apart from result_rows.hpp so that the pipeline's row store and the doors
// name them without the sink.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "hwpc/adreno/generation.hpp"
#include "hwpc/adreno/walk_sink.hpp"
#include "hwpc/core/row.hpp"

namespace hwpc::adreno {

// What a read of the input produced besides its rows.
struct rows_done {
  accounting acc;
  walk_stats walk;
  std::size_t issues = 0;
  std::optional<std::uint32_t> gpu_id;
  const device* gpu = nullptr;  // what the capture's ids resolve to (generation.hpp)
};

namespace detail {

// What the sink calls per row: a reference to the caller's callable (one
// indirect call, nothing allocated; a std::function per row cost more than
// the row). The callable must outlive the sink's last row.
class row_callback {
 public:
  row_callback() = default;
  template <class F>
  requires(!std::is_same_v<std::remove_cv_t<F>, row_callback>) row_callback(F& f)
  noexcept  // NOLINT: converts like a function reference
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, const row& r) { (*static_cast<F*>(o))(r); }) {}
  void operator()(const row& r) const { call_(obj_, r); }
  explicit operator bool() const noexcept { return call_ != nullptr; }

 private:
  void* obj_ = nullptr;
  void (*call_)(void*, const row&) = nullptr;
};

}  // namespace detail

}  // namespace hwpc::adreno
