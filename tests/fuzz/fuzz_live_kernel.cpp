// What a kernel hands back to the live readers (hwpc/live/), from a hostile
// kernel whose every reply comes from the input: for i915, the GETPARAM
// values, the topology, and read() chunks of any bytes; for kbase, the
// version, the GET_GPUPROPS buffer, the enumeration, the setup's sizes, the
// mapped ring and GET_SAMPLE's offsets; for Xe, every DEVICE_QUERY reply
// (CONFIG, OA_UNITS, HWCONFIG, GT_TOPOLOGY, ENGINE_CYCLES), the stream's
// read() chunks and its STATUS, through the whole recorder.
// Invariants: no crash, hang or unbounded memory; a failure is an error
// whose text is printable; i915: what read_ready() appended is exactly what
// read() returned before the first bad chunk, and each record counted is
// inside it; kbase: every sample taken was checked by the capture reader and
// lies inside the bytes appended; Xe: the recording written is whole records
// whose samples are the reports counted.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/kbase_session.hpp"
#include "hwpc/live/xe_record.hpp"

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
    if (req == live::xe::ioctl_device_query)
      return xe_query(*static_cast<live::xe::device_query*>(arg));
    if (req == live::xe::ioctl_observation) return {4, 0};
    if (req == live::xe::ioctl_stream_status) {
      static_cast<live::xe::oa_stream_status*>(arg)->oa_status = in_.u8();
      return {};
    }
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
  // Sizes mostly plausible; a known device id and OA unit 0 most of the
  // time, so the recorder gets past the queries; the rest from the input.
  live::sys_result xe_query(live::xe::device_query& q) {
    namespace xe = live::xe;
    auto* data = reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(q.data));
    if (q.query == xe::query::engine_cycles) {
      auto& c = *reinterpret_cast<xe::engine_cycles*>(data);
      c.engine_cycles = in_.u32();
      c.cpu_timestamp = in_.u32();
      c.cpu_delta = in_.u8();
      return {};
    }
    if (q.size == 0) {
      q.size = in_.u8() == 0xfe ? in_.u32() : std::uint32_t{in_.u8()} * 4;
      return {};
    }
    for (std::uint32_t i = 0; i < q.size; ++i) data[i] = in_.u8();
    if (q.query == xe::query::config && q.size >= 16 && in_.u8() < 200) {
      data[0] = 5;
      data[8] = 0xa0;
      data[9] = 0x64;  // LNL
    }
    if (q.query == xe::query::oa_units && q.size >= 16 + 80 && in_.u8() < 200) {
      std::memset(data, 0, 96);
      data[8] = 1;            // one unit, id 0
      data[16 + 24 + 1] = 1;  // a timestamp frequency
      data[16 + 64] = 1;      // one engine: render 0 of GT 0
    }
    if (in_.u8() == 0xfd) q.size = in_.u8();  // a second answer of another size
    return {};
  }

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

void fuzz_xe(fuzz::input& in) {
  hostile_kernel k(in);
  live::i915_record_options o;
  o.set_id = 1;
  o.exponent = 10;
  o.poll_ms = 0;
  std::vector<std::byte> file;
  int polls = 0;
  auto r = live::record_xe(
      k, o,
      [&](std::span<const std::byte> b) {
        file.insert(file.end(), b.begin(), b.end());
        return true;
      },
      [&] { return ++polls > 64 || in.n == 0; });
  if (!r) {
    fuzz::check_error(r.error_value(), 0);
    return;
  }
  std::size_t samples = 0, at = 0;
  while (at + 8 <= file.size()) {
    const std::size_t size = hwpc::load_le16(file.data() + at + 6);
    FUZZ_CHECK(size >= 8 && at + size <= file.size(), "a torn record");
    samples += hwpc::load_le32(file.data() + at) == hwpc::intel::record_type::sample;
    at += size;
  }
  FUZZ_CHECK(at == file.size(), "the file does not end on a record");
  FUZZ_CHECK(samples == r->samples, "samples counted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in{data, size};
  const std::uint8_t which = in.u8();
  if (which % 2 == 0) {
    fuzz_i915(in);
  } else if (which % 4 == 1) {
    fuzz_kbase(in);
  } else {
    fuzz_xe(in);
  }
  return 0;
}
