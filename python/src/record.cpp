// hwpc.intel.record / hwpc.mali.record: the library's live::recording (the
// object `hwpc record` drives too) run on a thread of its own, its rows into
// the columns hwpc.intel.decode / hwpc.mali.decode fill (columns.hpp). Python
// takes the rows gathered so far as one batch at a time; stopping (the
// duration, or leaving the `with` block) ends the recording as Ctrl-C ends
// the tool's: the reports still in the kernel's buffer are read, the file
// (when asked for) is complete.
//
// The recording's thread touches no Python object: it writes C++ columns
// under the mutex; the batches become Python objects on the caller's thread.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "columns.hpp"
#include "hwpc/live/recording.hpp"
#include "module.hpp"
#include "source.hpp"

namespace hwpc::py {

namespace {

const pipeline::spelling python_spelling{pipeline::door::python};

std::optional<std::uint64_t> seconds_to_ns(const options& o, const char* what) {
  const auto s = o.get<double>(what);
  if (!s) return std::nullopt;
  if (!(*s > 0) || *s > 1e7)
    throw usage_failure(std::string(what) + ": a positive number of seconds");
  return static_cast<std::uint64_t>(*s * 1e9 + 0.5);
}

live::recording_options read_options(bool intel, const options& o) {
  live::recording_options r;
  r.vendor = intel ? live::record_vendor::intel : live::record_vendor::mali;
  r.device = o.get<std::string>("device");
  r.out = o.get<std::string>("out");
  r.duration_ns = seconds_to_ns(o, "duration");
  r.period_ns = seconds_to_ns(o, "period");
  r.poll_ms = 20;  // a stop() or a batch is seen within 20 ms
  if (intel) {
    r.format = o.get<std::string>("format");
    r.metrics = o.get<std::string>("metrics");
    r.set = o.get<std::string>("set");
    r.set_id = o.get<std::uint64_t>("set_id");
    r.exponent = o.get<std::uint64_t>("exponent");
    r.ctx = o.get<std::uint64_t>("ctx");
  } else {
    r.per_instance = o.flag("per_instance");
    r.names = o.get<std::string>("names");
  }
  return r;
}

class session final : live::recording_rows, row_writer {
 public:
  session(bool intel, const pyb::dict& d) {
    auto r = live::recording::make(read_options(intel, options(d)), python_spelling);
    if (!r) throw usage_failure(r.error_value().message);
    rec_ = std::move(*r);
  }
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  ~session() override {
    rec_->stop();
    if (thread_.joinable()) {
      pyb::gil_scoped_release unlocked;
      thread_.join();
    }
  }

  // Opens the device and starts; returns once the first bytes are written
  // (the stream or session is open) or raises the refusal.
  void begin() {
    if (thread_.joinable()) throw usage_failure("a recording starts once");
    thread_ = std::thread([this] { run(); });
    bool failed = false;
    {
      pyb::gil_scoped_release unlocked;
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return opened_ || done_; });
      failed = done_ && failure_.has_value();
      if (failed) {
        lock.unlock();
        thread_.join();
      }
    }
    if (failed) raise(*failure_);
  }

  // Asks the recording to end (it reads what the kernel still holds).
  void stop() { rec_->stop(); }

  // The rows since the last batch; blocks until there are some or the
  // recording has ended. None once everything has been handed out.
  pyb::object next_batch() {
    std::unique_ptr<column_sink> taken;
    std::optional<row_schema> schema;
    accounting acc;
    for (;;) {
      bool ready = false;
      {
        pyb::gil_scoped_release unlocked;
        std::unique_lock lock(m_);
        // Wakes every 100 ms so that Ctrl-C reaches Python.
        ready = cv_.wait_for(lock, std::chrono::milliseconds(100),
                             [&] { return pending_ != 0 || done_; });
        if (ready && (pending_ != 0 || (done_ && !final_given_ && schema_ && !failure_))) {
          taken = std::move(sink_);
          sink_ = std::make_unique<column_sink>(*schema_);
          pending_ = 0;
          schema = schema_;
          acc = done_ ? final_ : so_far_;
          if (done_) final_given_ = true;
        }
      }
      if (PyErr_CheckSignals() != 0) throw pyb::error_already_set();
      if (ready) break;
    }
    if (!taken) {
      if (failure_) raise(*failure_);
      return pyb::none();
    }
    taken->end(acc);
    pyb::dict out = taken->to_python();
    out["schema"] = schema_to_python(*schema);
    out["dropped"] = pyb::list();
    return out;
  }

  // What the kernel handed out (after the end): reports or samples, losses,
  // and the lines `hwpc record` prints for them.
  pyb::dict counts() const {
    std::lock_guard lock(m_);
    pyb::dict d;
    d["samples"] = summary_.samples;
    d["report_lost"] = summary_.report_lost;
    d["buffer_lost"] = summary_.buffer_lost;
    d["overflow"] = summary_.overflow;
    d["bytes"] = bytes_;
    d["done"] = done_;
    d["summary"] = done_ && !failure_ ? summary_.lines(rec_->out().value_or(""), python_spelling)
                                      : std::vector<std::string>{};
    return d;
  }

 private:
  // A usage error raises ValueError; a refusal of the device or the kernel
  // OSError with the message that says what to change (the tool's exit 2).
  [[noreturn]] static void raise(const error& e) {
    if (is_usage(e)) throw usage_failure(e.message);
    PyErr_SetString(PyExc_OSError, e.message.c_str());
    throw pyb::error_already_set();
  }

  // On the recording's thread, from here down.
  void run() {
    auto s = rec_->run(this);
    std::lock_guard lock(m_);
    if (s) {
      summary_ = *s;
      if (s->rows) final_ = *s->rows;
    } else {
      failure_ = s.error_value();
    }
    done_ = true;
    cv_.notify_all();
  }
  row_writer& start(const row_schema& s, const capture*) override {
    std::lock_guard lock(m_);
    schema_ = s;
    sink_ = std::make_unique<column_sink>(s);
    return *this;
  }
  void write(const row& r) override {
    std::lock_guard lock(m_);
    sink_->write(r);
    ++pending_;
  }
  void end(const accounting&) override {}  // each batch is ended with its accounting
  void progress(const accounting& so_far, std::size_t bytes) override {
    std::lock_guard lock(m_);
    so_far_ = so_far;
    bytes_ = bytes;
    opened_ = true;
    cv_.notify_all();
  }

  std::unique_ptr<live::recording> rec_;
  std::thread thread_;

  mutable std::mutex m_;
  std::condition_variable cv_;
  std::optional<row_schema> schema_;
  std::unique_ptr<column_sink> sink_;
  std::size_t pending_ = 0;
  accounting so_far_, final_;
  bool opened_ = false, done_ = false, final_given_ = false;
  std::optional<error> failure_;
  live::recording_summary summary_;
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
      .def("start", &session::begin)
      .def("stop", &session::stop)
      .def("next_batch", &session::next_batch)
      .def("counts", &session::counts);
}

}  // namespace hwpc::py
