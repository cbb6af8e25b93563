// hwpc.intel.record / hwpc.mali.record: a live session (the library's
// live::record_i915 / live::record_mali, the tool's `hwpc record`) run on a
// thread of its own, its rows made as the bytes arrive by the library's
// live row producers (live/intel_capture_rows.hpp: the rows, columns and
// metric columns of the capture hwpc.intel.decode opens; live/mali_rows.hpp)
// into the columns hwpc.intel.decode / hwpc.mali.decode fill (columns.hpp). Python takes the
// rows gathered so far as one batch at a time; stopping (the duration, or
// leaving the `with` block) ends the session as Ctrl-C ends the tool's:
// the reports still in the kernel's buffer are read, the file (when asked
// for) is complete.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "columns.hpp"
#include "hwpc/live/i915_record.hpp"
#include "hwpc/live/intel_capture_rows.hpp"
#include "hwpc/live/kbase_record.hpp"
#include "hwpc/live/mali_rows.hpp"
#include "hwpc/live/record_set.hpp"
#include "hwpc/pipeline/metric_columns.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

// A refusal of the device or the kernel: OSError with the message that says
// what to change (the tool's exit status 2).
[[noreturn]] void refuse(const std::string& message) {
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw pyb::error_already_set();
}

std::uint64_t seconds_to_ns(double s, const char* what) {
  if (!(s > 0) || s > 1e7)
    throw usage_failure(std::string(what) + ": a positive number of seconds");
  return static_cast<std::uint64_t>(s * 1e9 + 0.5);
}

class session {
 public:
  session(bool intel, const pyb::dict& d) : intel_(intel) {
    const options o(d);
    if (auto out = o.get<std::string>("out")) out_path_ = *out;
    if (auto dur = o.get<double>("duration")) duration_ns_ = seconds_to_ns(*dur, "duration");
    if (intel_) {
      read_intel(o);
    } else {
      read_mali(o);
    }
  }
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  ~session() {
    stop_ = true;
    if (thread_.joinable()) {
      pyb::gil_scoped_release unlocked;
      thread_.join();
    }
    if (file_ != nullptr) std::fclose(file_);
  }

  // Opens the device and starts; returns once the first bytes are written
  // (the stream or session is open) or raises the refusal.
  void start() {
    if (started_) throw usage_failure("a recording starts once");
    started_ = true;
    if (!out_path_.empty()) {
      file_ = std::fopen(out_path_.c_str(), "wb");
      if (file_ == nullptr) refuse("cannot write " + out_path_);
    }
    if (duration_ns_) deadline_ = live::monotonic_ns() + *duration_ns_;
    thread_ = std::thread([this] { run(); });
    std::optional<std::string> failed;
    {
      pyb::gil_scoped_release unlocked;
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return opened_ || done_; });
      if (done_) failed = failure_;
    }
    if (failed) {
      if (thread_.joinable()) {
        pyb::gil_scoped_release unlocked;
        thread_.join();
      }
      refuse(*failed);
    }
  }

  // Asks the session to end (it reads what the kernel still holds).
  void stop() { stop_ = true; }

  // The rows since the last batch; blocks until there are some or the
  // session has ended. None once everything has been handed out.
  pyb::object next_batch() {
    std::unique_ptr<column_sink> taken;
    std::optional<row_schema> schema;
    std::optional<std::string> failed;
    accounting acc;
    for (;;) {
      bool ready = false;
      {
        pyb::gil_scoped_release unlocked;
        std::unique_lock lock(m_);
        // Wakes every 100 ms so that Ctrl-C reaches Python.
        ready = cv_.wait_for(lock, std::chrono::milliseconds(100),
                             [&] { return pending_ != 0 || done_; });
        if (ready) {
          if (pending_ != 0 || (done_ && !final_given_ && schema_)) {
            taken = std::move(sink_);
            if (schema_) sink_ = std::make_unique<column_sink>(*schema_);
            pending_ = 0;
            schema = schema_;
            acc = done_ ? final_ : so_far_;
            if (done_) final_given_ = true;
          } else {
            failed = failure_;
          }
        }
      }
      if (PyErr_CheckSignals() != 0) throw pyb::error_already_set();
      if (ready) break;
    }
    if (!taken) {
      if (failed) refuse(*failed);
      return pyb::none();
    }
    taken->end(acc);
    pyb::dict out = taken->to_python();
    out["schema"] = schema_to_python(*schema);
    out["dropped"] = pyb::list();
    return out;
  }

  // What the kernel handed out (after the end): reports or samples, losses.
  pyb::dict counts() const {
    std::lock_guard lock(m_);
    pyb::dict d;
    d["samples"] = counts_[0];
    d["report_lost"] = counts_[1];
    d["buffer_lost"] = counts_[2];
    d["overflow"] = counts_[3];
    d["bytes"] = bytes_;
    d["done"] = done_;
    return d;
  }

 private:
  void read_intel(const options& o) {
    if (auto dev = o.get<std::string>("device")) io_.device = *dev;
    if (auto f = o.get<std::string>("format")) io_.format = *f;
    const auto metrics = o.get<std::string>("metrics");
    const auto set = o.get<std::string>("set");
    const auto set_id = o.get<std::uint64_t>("set_id");
    if (metrics && set_id) throw usage_failure("metrics and set_id both name the set: give one");
    if (set_id) {
      if (*set_id == 0) throw usage_failure("set_id: the kernel's config id (1 or more)");
      io_.set_id = *set_id;
      io_.set_name = set.value_or("");
    } else if (metrics) {
      if (!set) throw usage_failure("metrics needs set (the set's symbol name)");
      metrics_ = *metrics;
      set_ = *set;
      if (auto ok = live::set_from_metrics(io_, *metrics, *set); !ok) {
        error e = ok.error_value();
        pipeline::say_where_metric_files_come_from(e);
        throw usage_failure("metrics: " + e.describe() + (is_usage(e) ? " (set_id)" : ""));
      }
    } else {
      throw usage_failure(
          "name the metric set: metrics='oa-<platform>.xml' with set='SYMBOL', or set_id=N");
    }
    const auto period = o.get<double>("period");
    const auto exponent = o.get<std::uint64_t>("exponent");
    if (period && exponent) {
      throw usage_failure("period and exponent both set the sampling period: give one");
    }
    if (exponent) {
      if (*exponent > 31) throw usage_failure("exponent: 0..31 (the kernel's range)");
      io_.exponent = static_cast<unsigned>(*exponent);
    } else {
      io_.period_ns = period ? seconds_to_ns(*period, "period") : 1'000'000;
    }
    if (auto c = o.get<std::uint64_t>("ctx")) {
      if (*c > 0xffffffffu) throw usage_failure("ctx: a GEM context handle (32 bits)");
      io_.ctx = static_cast<std::uint32_t>(*c);
    }
    io_.poll_ms = 20;
  }

  void read_mali(const options& o) {
    if (auto dev = o.get<std::string>("device")) mo_.device = *dev;
    if (auto p = o.get<double>("period")) mo_.period_ns = seconds_to_ns(*p, "period");
    mo_.poll_ms = 20;
    mro_.per_instance = o.flag("per_instance");
    if (auto n = o.get<std::string>("names")) {
      if (*n != "hardware" && *n != "streamline") {
        throw usage_failure("names: expected hardware or streamline");
      }
      mro_.names =
          *n == "streamline" ? mali::counter_naming::streamline : mali::counter_naming::hardware;
    }
  }

  // On the session's thread: every row into the current batch.
  void run() {
    auto on_row = [this](const row& r) {
      std::lock_guard lock(m_);
      sink_->write(r);
      ++pending_;
    };
    auto stop = [this] {
      return stop_.load() || (deadline_ && live::monotonic_ns() >= *deadline_);
    };
    std::optional<error> rows_error;
    std::string failure;
    accounting acc;
    if (intel_) {
      // The rows reach the current batch through `to_batch`; the capture
      // opened on the recording's head gives their columns (metric columns
      // too with metrics=/set=), as hwpc.intel.decode's of the file.
      struct forward final : row_writer {
        std::function<void(const row&)> to;
        void write(const row& r) override { to(r); }
        void end(const accounting&) override {}
      } to_batch;
      to_batch.to = on_row;
      intel::open_options opened;
      if (metrics_) {
        opened.metrics = metrics_;
        opened.set = set_;
      }
      live::intel_capture_rows rows(
          opened, out_path_.empty() ? std::string("(live recording)") : out_path_,
          [&](const intel::oa_capture& c) -> row_writer& {
            set_schema(c.schema());
            return to_batch;
          },
          pipeline::spelling{pipeline::door::python});
      auto write = [&](std::span<const std::byte> b) { return take(b, rows); };
      auto c = live::record_i915(live::real_kernel(), io_, write, stop);
      if (!c) {
        failure = c.error_value().message;
      } else {
        std::lock_guard lock(m_);
        counts_[0] = c->samples;
        counts_[1] = c->report_lost;
        counts_[2] = c->buffer_lost;
      }
      if (failure.empty()) {
        auto a = rows.finish();
        if (!a) failure = "the recording's rows: " + a.error_value().message;
        if (a) acc = *a;
        if (a && rows.metrics_error()) {
          failure = rows.metrics_error()->message + " (the rows have no metrics)";
        }
      }
    } else {
      live::mali_rows rows(
          mro_, [this](const row_schema& s, const mali::gpu_product&) { set_schema(s); },
          [&](const row& r) { on_row(r); });
      auto write = [&](std::span<const std::byte> b) { return take(b, rows); };
      auto c = live::record_mali(live::real_kernel(), mo_, write, stop);
      if (!c) {
        failure = c.error_value().message;
      } else {
        std::lock_guard lock(m_);
        counts_[0] = c->samples;
        counts_[3] = c->overflow;
      }
      if (failure.empty()) {
        auto a = rows.finish();
        if (!a) failure = "the recording's rows: " + a.error_value().describe();
        if (a) acc = *a;
      }
    }
    if (file_ != nullptr && std::fflush(file_) != 0 && failure.empty()) {
      failure = "cannot write " + out_path_;
    }
    std::lock_guard lock(m_);
    if (!failure.empty()) failure_ = failure;
    final_ = acc;
    done_ = true;
    cv_.notify_all();
  }

  template <class Rows>
  bool take(std::span<const std::byte> b, Rows& rows) {
    if (file_ != nullptr && std::fwrite(b.data(), 1, b.size(), file_) != b.size()) return false;
    rows(b);
    if constexpr (requires { rows.flush(); }) rows.flush();  // rows held for their metrics
    std::lock_guard lock(m_);
    bytes_ += b.size();
    so_far_ = rows.totals();
    opened_ = true;
    cv_.notify_all();
    return true;
  }

  void set_schema(const row_schema& s) {
    std::lock_guard lock(m_);
    schema_ = s;
    sink_ = std::make_unique<column_sink>(*schema_);
  }

  bool intel_;
  live::i915_record_options io_;
  std::optional<std::string> metrics_;  // metrics=: the rows' metric columns
  std::string set_;
  live::mali_record_options mo_;
  live::mali_rows_options mro_;
  std::string out_path_;
  std::FILE* file_ = nullptr;
  std::optional<std::uint64_t> duration_ns_, deadline_;
  bool started_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;

  mutable std::mutex m_;
  std::condition_variable cv_;
  std::optional<row_schema> schema_;
  std::unique_ptr<column_sink> sink_;
  std::size_t pending_ = 0;
  accounting so_far_, final_;
  bool opened_ = false, done_ = false, final_given_ = false;
  std::optional<std::string> failure_;
  std::size_t counts_[4] = {};
  std::size_t bytes_ = 0;
};

}  // namespace

void bind_record(pyb::module_& m) {
  pyb::class_<session>(m, "LiveSession",
                       "A live recording (hwpc.intel.record / hwpc.mali.record wrap it).")
      .def(pyb::init([](const std::string& vendor, const pyb::dict& options) {
             if (vendor != "intel" && vendor != "mali") {
               throw usage_failure("vendor must be intel or mali");
             }
             return std::make_unique<session>(vendor == "intel", options);
           }),
           pyb::arg("vendor"), pyb::arg("options"))
      .def("start", &session::start)
      .def("stop", &session::stop)
      .def("next_batch", &session::next_batch)
      .def("counts", &session::counts);
}

}  // namespace hwpc::py
