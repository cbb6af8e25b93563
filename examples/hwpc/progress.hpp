// A progress bar on stderr for long decodes.
//
// It appears only when stderr is a terminal and the work has already taken a
// second, so short runs and redirected or piped output never see it; stdout
// (the data) is never touched.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>

namespace hwpc::cli {

class progress {
 public:
  explicit progress(std::size_t total) noexcept
      : total_(total), enabled_(::isatty(STDERR_FILENO) == 1), start_(clock::now()) {}
  ~progress() { finish(); }
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;

  // Looks at the clock on every call: the library calls it every 4096
  // records (pipeline/intel_capture.hpp).
  void update(std::size_t done) noexcept {
    if (!enabled_) return;
    const auto now = clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100))
      return;
    last_ = now;
    const unsigned pct = total_ == 0 ? 100u : static_cast<unsigned>(done * 100 / total_);
    char bar[41];
    const unsigned fill = pct * 40 / 100;
    for (unsigned i = 0; i < 40; ++i) bar[i] = i < fill ? '#' : ' ';
    bar[40] = '\0';
    std::fprintf(stderr, "\r[%s] %3u%%", bar, pct);
    std::fflush(stderr);
    drawn_ = true;
  }
  void finish() noexcept {
    if (drawn_) std::fprintf(stderr, "\r%50s\r", "");
    drawn_ = false;
  }

 private:
  using clock = std::chrono::steady_clock;
  std::size_t total_;
  bool enabled_;
  clock::time_point start_;
  clock::time_point last_{};
  bool drawn_ = false;
};

}  // namespace hwpc::cli
