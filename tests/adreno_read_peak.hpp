// How much an Adreno capture file's reading makes a process's peak resident
// memory grow: the read runs in a forked child whose peak is reset first
// (/proc/self/clear_refs 5), so the figure is the read's alone, and the
// child sends it back through a pipe. The read is the query rows
// (open_capture + write_rows into a writer that keeps nothing) or the packet
// listing (capture_input + walk_packets), as the tool reads a path.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <string>

#include "hwpc/pipeline/adreno_capture.hpp"
#include "hwpc/pipeline/adreno_packets.hpp"

namespace hwpc::testing {

struct read_peak {
  bool measured = true;      // false: the kernel cannot reset the peak (no clear_refs)
  bool read = false;         // the child ran the read, it succeeded and found packets
  std::size_t grew_kib = 0;  // VmHWM after the read minus VmRSS before it
};

// The KiB /proc/self/status gives for `key` (VmRSS, VmHWM), or 0.
inline std::size_t status_kib(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line)) {
    if (line.rfind(k, 0) == 0) return std::stoul(line.substr(k.size()));
  }
  return 0;
}

inline read_peak adreno_read_peak(const std::string& path, bool rows) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    ::close(fds[0]);
    read_peak r;
    {
      std::ofstream reset("/proc/self/clear_refs");
      reset << "5";
      reset.flush();
      if (!reset) ::_exit(77);
    }
    const std::size_t before = status_kib("VmRSS");
    if (rows) {
      auto c = adreno::open_capture(capture_source::map(path).value(), {}, {});
      struct : row_writer {
        void write(const row&) override {}
        void end(const accounting&) override {}
      } nothing;
      r.read = c && (*c)->write_rows(nothing);
    } else {
      auto in = adreno::capture_input::open(capture_source::map(path).value(), {}, {});
      struct : adreno::listing_sink {
        std::size_t n = 0;
        void on_packet(const adreno::walked_packet&) override { ++n; }
        void on_issue(const error&) override {}
      } count;
      r.read = in && adreno::walk_packets(*in, count) && count.n != 0;
    }
    r.grew_kib = status_kib("VmHWM") - before;
    const bool sent = ::write(fds[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    ::_exit(sent ? 0 : 3);
  }
  ::close(fds[1]);
  read_peak r;
  const bool got = ::read(fds[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  ::close(fds[0]);
  int st = 0;
  if (::waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return {};
  if (WEXITSTATUS(st) == 77) return read_peak{false, false, 0};
  if (WEXITSTATUS(st) != 0 || !got) return {};
  return r;
}

}  // namespace hwpc::testing
