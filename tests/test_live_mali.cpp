// Live Mali capture against the simulated kbase (live/sim/kbase.hpp): a
// kinstr_prfcnt recording made through the seam is the emulator's capture
// file byte for byte (header from the kernel's GPU properties, samples
// copied out of the ring), decodes with the capture reader, loses samples
// visibly when the ring overflows, and refusals say what to change.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/sim/kbase.hpp"
#include "hwpc/mali/capture_file.hpp"
#include "hwpc/mali/emulate.hpp"
#include "hwpc/mali/gpu.hpp"
#include "hwpc/mali/kinstr_prfcnt.hpp"

namespace {

namespace live = hwpc::live;
namespace sim = hwpc::live::sim;
namespace mali = hwpc::mali;

struct recorded {
  hwpc::result<live::kbase_counts> counts;
  std::vector<std::byte> bytes;
};

// Records until `ms` have passed, or sooner once `want_bytes` (when not 0)
// have been written: the simulated kernel releases samples in real time, and
// a slow build (sanitizers) or a loaded machine must not lose any.
recorded record(sim::kernel& k, std::uint64_t period_ns, int ms, int poll_ms = 2,
                std::size_t want_bytes = 0) {
  recorded r{live::live_error("not run"), {}};
  live::mali_record_options o;
  o.period_ns = period_ns;
  o.poll_ms = poll_ms;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  r.counts = live::record_mali(
      k, o,
      [&](std::span<const std::byte> b) {
        r.bytes.insert(r.bytes.end(), b.begin(), b.end());
        return true;
      },
      [&] {
        return (want_bytes != 0 && r.bytes.size() >= want_bytes) ||
               std::chrono::steady_clock::now() >= until;
      });
  return r;
}

const mali::gpu_product* gpu(const char* name) {
  auto g = mali::find_gpu(name);
  EXPECT_TRUE(g) << name;
  return g ? *g : nullptr;
}

void same_as_emulator(const char* name, std::uint32_t slices, std::uint64_t mask) {
  SCOPED_TRACE(name);
  sim::kernel k;
  sim::kbase_config cfg;
  cfg.gpu = gpu(name);
  ASSERT_NE(cfg.gpu, nullptr);
  cfg.l2_slices = slices;
  cfg.core_mask = mask;
  cfg.samples = 12;
  cfg.seed = 5;
  cfg.ring_slots = 32;  // room for a consumer the machine holds up for a while
  sim::add_kbase(k, live::kbase::default_node, cfg);
  const std::uint64_t period = 2'000'000;
  mali::emulate_options o;
  o.gpu_id = mali::gpu_id_of_product(cfg.gpu->product_id);
  o.csf = mali::is_csf_product(cfg.gpu->product_id);
  o.values_per_block = cfg.gpu->table->values_per_block;
  o.table = cfg.gpu->table;
  o.kinstr = true;
  o.l2_slices = slices;
  o.core_mask = mask;
  o.samples = 12;
  o.seed = 5;
  o.period_ns = period;
  const mali::emulation e = mali::emulate(o);
  // 12 samples take 24 ms; the deadline is far beyond that, for slow builds.
  const recorded r = record(k, period, 10'000, 2, e.file.size());
  ASSERT_TRUE(r.counts) << r.counts.error_value().describe();
  EXPECT_EQ(r.counts->samples, 12u);
  EXPECT_EQ(r.counts->overflow, 0u);
  ASSERT_EQ(r.bytes.size(), e.file.size());
  EXPECT_TRUE(r.bytes == e.file) << "the recording differs from the emulator's file";

  // Decodes to the emulator's truth.
  auto h = mali::capture_header::parse(r.bytes);
  ASSERT_TRUE(h) << h.error_value().describe();
  EXPECT_EQ(h->reader, mali::reader_kind::kinstr_prfcnt);
  auto reader = mali::kinstr_reader::make(*cfg.gpu->table, h->layout, h->payload(r.bytes),
                                          mali::capture_header_bytes);
  ASSERT_TRUE(reader) << reader.error_value().describe();
  for (std::size_t i = 0; i < 12; ++i) {
    auto s = reader->next();
    ASSERT_TRUE(s) << s.error_value().describe();
    ASSERT_TRUE(*s);
    EXPECT_EQ((*s)->meta.timestamp_end, e.end_ns[i]);
    EXPECT_EQ((*s)->sums().values, e.truth[i].values) << "sample " << i;
  }
}

TEST(LiveMali, RecordingEqualsTheEmulatorsFile) {
  same_as_emulator("Mali-G78", 2, 0xf);
  same_as_emulator("Mali-G720", 2, 0x3b);  // CSF, 128-value blocks, a core gap
}

TEST(LiveMali, RingOverflowIsFlaggedNotSilent) {
  sim::kernel k;
  sim::kbase_config cfg;
  cfg.gpu = gpu("Mali-G78");
  cfg.samples = 60;
  cfg.ring_slots = 2;
  sim::add_kbase(k, live::kbase::default_node, cfg);
  auto session = live::kbase_session::open(k, live::kbase::default_node, 1'000'000);
  ASSERT_TRUE(session) << session.error_value().describe();
  ASSERT_TRUE(session->start());
  // A consumer that looks only after 30 ms at 1 ms samples: the two slots
  // fill and the samples after them are lost; the next one says so.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  std::vector<std::byte> payload;
  for (int round = 0; round < 2; ++round) {
    for (;;) {
      auto got = session->take_sample(payload);
      ASSERT_TRUE(got) << got.error_value().describe();
      if (!*got) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(session->counts().overflow, 0u);
  EXPECT_LT(session->counts().samples, 60u);
}

std::string refusal(const sim::kbase_config& cfg, const char* node = live::kbase::default_node) {
  sim::kernel k;
  sim::add_kbase(k, node, cfg);
  const recorded r = record(k, 1'000'000, 0);
  EXPECT_FALSE(r.counts);
  return r.counts ? std::string() : r.counts.error_value().message;
}

TEST(LiveMali, RefusalsSayWhatToChange) {
  sim::kbase_config cfg;
  cfg.gpu = gpu("Mali-G78");
  std::string m = refusal(cfg, "/dev/mali1");
  EXPECT_NE(m.find("no such device: /dev/mali0"), std::string::npos) << m;
  EXPECT_NE(m.find("Panfrost"), std::string::npos) << m;
  sim::kbase_config refused = cfg;
  refused.node_refused = true;
  m = refusal(refused);
  EXPECT_NE(m.find("permission refused opening /dev/mali0"), std::string::npos) << m;
  EXPECT_NE(m.find("SELinux"), std::string::npos) << m;
  sim::kbase_config old = cfg;
  old.major = 11;
  old.minor = 20;
  m = refusal(old);
  EXPECT_NE(m.find("too old for kinstr_prfcnt"), std::string::npos) << m;
  EXPECT_NE(m.find("vinstr"), std::string::npos) << m;
}

TEST(LiveMali, TwoSessionsAreBusy) {
  sim::kernel k;
  sim::kbase_config cfg;
  cfg.gpu = gpu("Mali-G78");
  sim::add_kbase(k, live::kbase::default_node, cfg);
  auto a = live::kbase_session::open(k, live::kbase::default_node, 1'000'000);
  ASSERT_TRUE(a) << a.error_value().describe();
  auto b = live::kbase_session::open(k, live::kbase::default_node, 1'000'000);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error_value().message.find("EBUSY"), std::string::npos);
}

}  // namespace

namespace {

// The seam with every call passed to the simulated kernel, and munmap counted.
class counting_kernel final : public hwpc::live::syscalls {
 public:
  explicit counting_kernel(sim::kernel& k) : k_(k) {}
  int munmaps = 0;
  live::sys_result open(const char* p, int f) override { return k_.open(p, f); }
  live::sys_result close(int fd) override { return k_.close(fd); }
  live::sys_result ioctl(int fd, unsigned long r, void* a) override { return k_.ioctl(fd, r, a); }
  live::sys_result read(int fd, void* b, std::size_t n) override { return k_.read(fd, b, n); }
  live::sys_result poll(int fd, short e, int t, short& r) override { return k_.poll(fd, e, t, r); }
  live::sys_result mmap(std::size_t l, int p, int f, int fd, long o) override {
    return k_.mmap(l, p, f, fd, o);
  }
  live::sys_result munmap(void* a, std::size_t l) override {
    ++munmaps;
    return k_.munmap(a, l);
  }

 private:
  sim::kernel& k_;
};

TEST(LiveMali, AMovedSessionUnmapsItsRingOnce) {
  sim::kernel k;
  sim::kbase_config cfg;
  cfg.gpu = gpu("Mali-G78");
  sim::add_kbase(k, live::kbase::default_node, cfg);
  counting_kernel c(k);
  {
    auto a = live::kbase_session::open(c, live::kbase::default_node, 1'000'000);
    ASSERT_TRUE(a) << a.error_value().describe();
    live::kbase_session b(std::move(*a));
  }
  EXPECT_EQ(c.munmaps, 1);
}

}  // namespace
