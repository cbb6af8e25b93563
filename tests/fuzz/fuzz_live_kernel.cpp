// What a kernel hands back to the live readers (hwpc/live/), from a hostile
// kernel whose every reply comes from the input: for i915, the GETPARAM
// values, the topology, and read() chunks of any bytes; for kbase, the
// version, the GET_GPUPROPS buffer, the enumeration, the setup's sizes, the
// mapped ring and GET_SAMPLE's offsets.
// Invariants: no crash, hang or unbounded memory; a failure is an error
// whose text is printable; i915: what read_ready() appended is exactly what
// read() returned before the first bad chunk, and each record counted is
// inside it; kbase: every sample taken was checked by the capture reader and
// lies inside the bytes appended.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/kbase_session.hpp"

namespace {

namespace live = hwpc::live;

// Every answer from the input; fds 3 (device) and 4 (stream or reader).
class hostile_kernel final : public live::syscalls {
 public:
  explicit hostile_kernel(fuzz::input& in) : in_(in) {}
  std::vector<std::byte> ring;

  live::sys_result open(const char*, int) override { return {3, 0}; }
  live::sys_result close(int) override { return {}; }
  live::sys_result ioctl(int, unsigned long req, void* arg) override {
    if (in_.u8() == 0xff) return {-1, EINVAL};  // any call may fail
    namespace i915 = live::i915;
    namespace kbase = live::kbase;
    if (req == i915::ioctl_getparam) {
      auto& g = *static_cast<i915::getparam*>(arg);
      // A known device id most of the time, so the stream opens.
      const int v = g.param == i915::param::chipset_id && in_.u8() < 200
                        ? 0x0416
                        : static_cast<int>(in_.u32());
      *reinterpret_cast<int*>(static_cast<std::uintptr_t>(g.value_ptr)) = v;
      return {};
    }
    if (req == i915::ioctl_query) {
      auto& q = *static_cast<i915::query*>(arg);
      auto* item = reinterpret_cast<i915::query_item*>(static_cast<std::uintptr_t>(q.items_ptr));
      const std::int32_t want = static_cast<std::int32_t>(in_.u8()) - 16;
      if (item->length == 0) {
        item->length = want;
      } else if (item->length > 0) {
        const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(item->length), 64);
        std::memset(reinterpret_cast<void*>(static_cast<std::uintptr_t>(item->data_ptr)), in_.u8(),
                    n);
        item->length = static_cast<std::int32_t>(in_.u8());
      }
      return {};
    }
    if (req == i915::ioctl_perf_open) return {4, 0};
    if (req == kbase::ioctl_version_check_jm || req == kbase::ioctl_version_check_csf) {
      auto& v = *static_cast<kbase::version_check*>(arg);
      v.major = in_.u8();
      v.minor = in_.u8();
      return {};
    }
    if (req == kbase::ioctl_get_gpuprops) {
      auto& q = *static_cast<kbase::get_gpuprops*>(arg);
      if (q.buffer == 0) return {in_.u8(), 0};
      for (std::uint32_t i = 0; i < q.size; ++i) {
        reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(q.buffer))[i] = in_.u8();
      }
      return {q.size, 0};
    }
    if (req == kbase::ioctl_kinstr_enum_info) {
      auto& e = *static_cast<kbase::kinstr_enum_info*>(arg);
      if (e.info_list_ptr == 0) {
        e.info_item_size = 32 + in_.u8() % 4 * 8;
        e.info_item_count = in_.u8() % 16;
        return {};
      }
      auto* p = reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(e.info_list_ptr));
      for (std::size_t i = 0; i < std::size_t{e.info_item_size} * e.info_item_count; ++i) {
        p[i] = in_.u8();
      }
      return {};
    }
    if (req == kbase::ioctl_kinstr_setup) {
      auto& s = *static_cast<kbase::kinstr_setup*>(arg);
      s.request_item_count = 48 + in_.u8() % 3 * 8;
      s.request_item_size = in_.u8() % 2 == 0 ? 4096 : in_.u32() % 65536;
      return {4, 0};
    }
    if (req == kbase::ioctl_kinstr_get_sample) {
      auto& a = *static_cast<kbase::kinstr_sample_access*>(arg);
      a.sample_offset_bytes = in_.u8() % 4 == 0 ? in_.u32() : in_.u8() * 16u;
      return {};
    }
    return {};
  }
  live::sys_result read(int, void* buf, std::size_t n) override {
    if (in_.n == 0) return {-1, EAGAIN};
    const std::size_t chunk = std::size_t{in_.u8()} * 8 + 1;
    if (in_.n == 0) return {-1, EAGAIN};
    const std::size_t k = std::min({n, in_.n, chunk});
    std::memcpy(buf, in_.p, k);
    returned.insert(returned.end(), reinterpret_cast<const std::byte*>(in_.p),
                    reinterpret_cast<const std::byte*>(in_.p) + k);
    in_.p += k;
    in_.n -= k;
    return {static_cast<long>(k), 0};
  }
  live::sys_result poll(int, short, int, short& revents) override {
    revents = POLLIN;
    return {1, 0};
  }
  live::sys_result mmap(std::size_t len, int, int, int, long) override {
    ring.assign(len, std::byte{0});
    for (auto& b : ring) b = std::byte{in_.u8()};
    return {static_cast<long>(reinterpret_cast<std::intptr_t>(ring.data())), 0};
  }
  live::sys_result munmap(void*, std::size_t) override { return {}; }

  std::vector<std::byte> returned;

 private:
  fuzz::input& in_;
};

void fuzz_i915(fuzz::input& in) {
  hostile_kernel k(in);
  auto dev = live::i915_device::open(k, "/dev/dri/renderD128");
  if (!dev) {
    fuzz::check_error(dev.error_value(), 0);
    return;
  }
  live::i915_stream_options o;
  o.metrics_set = 2;
  o.oa_format = 5;  // A45_B8_C8 on Haswell
  o.exponent = 10;
  auto s = live::i915_stream::open(*dev, o);
  if (!s) return;
  std::vector<std::byte> out;
  for (int i = 0; i < 64 && in.n != 0; ++i) {
    const std::size_t before = k.returned.size();
    auto r = s->read_ready(out);
    if (!r) {
      fuzz::check_error(r.error_value(), k.returned.size());
      FUZZ_CHECK(r.error_value().offset >= before || r.error_value().offset == 0,
                 r.error_value().describe());
      return;
    }
  }
  FUZZ_CHECK(out.size() <= k.returned.size(), "appended more than read() returned");
  FUZZ_CHECK(std::memcmp(out.data(), k.returned.data(), out.size()) == 0, "bytes changed");
  const auto& c = s->counts();
  FUZZ_CHECK((c.samples + c.report_lost + c.buffer_lost) * 8 <= out.size(), "records counted");
}

void fuzz_kbase(fuzz::input& in) {
  hostile_kernel k(in);
  auto s = live::kbase_session::open(k, "/dev/mali0", 1'000'000);
  if (!s) {
    fuzz::check_error(s.error_value(), 0);
    return;
  }
  std::vector<std::byte> payload;
  for (int i = 0; i < 16 && in.n != 0; ++i) {
    const std::size_t before = payload.size();
    auto got = s->take_sample(payload);
    if (!got) return;
    FUZZ_CHECK(*got || payload.size() == before, "no sample, yet bytes");
  }
  FUZZ_CHECK(s->counts().samples * hwpc::live::kbase::metadata_item_bytes <= payload.size(),
             "samples counted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  if (in.u8() % 2 == 0) {
    fuzz_i915(in);
  } else {
    fuzz_kbase(in);
  }
  return 0;
}
