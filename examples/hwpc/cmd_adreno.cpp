// hwpc adreno: disassembles Adreno A5xx, A6xx and A7xx command streams —
// freedreno .rd captures (plain or gzip), hex dword text, or raw
// little-endian dwords — with each generation's names, following indirect
// buffers, and explains the A5xx queries and performance counters in them;
// with --output or --summary, writes the query results as rows through the
// shared writers instead. docs/adreno.md.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adreno_listing.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "hwpc/adreno.hpp"
#include "hwpc/adreno/packet_copies.hpp"
#include "hwpc/adreno/recognise6.hpp"
#include "hwpc/adreno/rows.hpp"
#include "hwpc/adreno/tracks.hpp"
#include "hwpc/output/make_writer.hpp"
#include "hwpc/pipeline/adreno_open.hpp"
#include "hwpc/pipeline/mapped_file.hpp"
#include "output.hpp"
#include "report_facts.hpp"

namespace hwpc::cli {

namespace {

const command_spec adreno_spec{
    "adreno",
    "hwpc adreno [--queries] [--gpu NAME|CHIP_ID] [--format FORMAT]\n"
    "            [--output csv|json|perfetto|chrome-json] [--summary] [--packets] FILE\n"
    "       hwpc adreno emulate --help",
    "Disassembles an Adreno command stream: one line per packet with its byte offset,\n"
    "header, name and payload (indented per indirect-buffer level), and after the packets\n"
    "of each recognised A5xx query sequence or performance-counter select/sample a line\n"
    "'OFFSET: => what it does' (--queries: only those lines, without '=>'); on A6xx and\n"
    "A7xx, counter selects and samples, timestamps, sample counts, pipeline-statistics and\n"
    "stream-out writes with their addresses.\n"
    "Names are the GPU generation's (A5XX, A6XX or A7XX): an .rd capture names its GPU\n"
    "(RD_CHIP_ID, RD_GPU_ID, through the device table); hex and binary input do not, and\n"
    "--gpu (a530, a630, A750, a GPU id like 640, or a chip id like 0x43050a01) gives it.\n"
    "Without a GPU the listing gives numbers only. Query rows: A5XX, and A6XX/A7XX .rd\n"
    "captures (occlusion results, timestamps, counter samples).\n"
    "FILE is a freedreno .rd capture (gzip-compressed too when built with zlib), hex dword\n"
    "text (dwords in stream order, each line with an optional 'OFFSET:' label; lines of\n"
    "prose are skipped), or raw little-endian dwords; --format overrides the detection.\n"
    "Bad data is reported with its byte offset and skipped; the output is then partial and\n"
    "the exit status 2. Zero dwords are padding.\n"
    "--packets --output csv|json writes the packet listing as records instead: offset (in\n"
    "FILE), gpu_address, depth (IB level), group (draw-state group), pass (render mode),\n"
    "type, id (opcode or register) and name, count, payload, event and event_name.\n"
    "--output writes the query results as rows instead (the rows of hwpc decode): report\n"
    "(result index), offset (the .rd section holding the value, else the query's first\n"
    "packet), timestamp (always-on ticks, 19.2 MHz), reason, ctx_id (empty), then\n"
    "samples_passed, time_elapsed (ns), gpu_time (ns) and one column per sampled counter\n"
    "(<GROUP>_<n>), each empty when the row's query does not produce it or the capture does\n"
    "not hold it. --summary: one row of totals. docs/adreno.md, \"Rows\".",
    {{"queries", "", "print only the recognised queries and counters"},
     {"gpu", "NAME|CHIP_ID", "the GPU whose names apply (hex and binary input name none)"},
     {"packets", "", "with --output csv|json: the packet listing as records"},
     {"format", "FORMAT", "auto (default), rd, hex or bin"},
     {"output", "csv|json|perfetto|chrome-json|html",
      "write the query results as rows (html: hwpc report)"},
     {"perfetto-layout", "gpu-counters|track-event",
      "--output perfetto: GPU counter packets (default) or the older generic counter tracks"},
     {"summary", "", "one row: the results' totals"}},
    1,
    1};

constexpr std::size_t max_issues_shown = 50;

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", static_cast<unsigned>(v));
  return b;
}

class printer : public adreno::rd::capture_sink {
 public:
  // `records`: the packet listing as CSV or JSON records instead of text
  // (--packets); recognised events are then not printed.
  printer(out_buffer& out, bool listing, std::string path,
          std::function<std::size_t(std::size_t)> map, adreno::generation gen,
          adreno_listing::writer* records = nullptr)
      : out_(out),
        listing_(listing && records == nullptr),
        path_(std::move(path)),
        map_(std::move(map)),
        gen_(gen),
        records_(records) {}

  void on_packet(const adreno::walked_packet& w) override {
    if (records_ != nullptr) {
      records_->write(adreno_listing::fields_of(w, gen_, map_(w.pkt.offset)));
      return;
    }
    if (listing_) print_packet(w);
    if (gen_ == adreno::generation::a6xx || gen_ == adreno::generation::a7xx) {
      rec6_.push(w.pkt, [this](const adreno::query6_event& e) {
        char at[32];
        std::snprintf(at, sizeof at, listing_ ? "%08zx: => " : "%08zx: ", map_(e.offset));
        out_ << std::string_view(at) << adreno::describe(gen_, e) << "\n";
      });
      return;
    }
    // The A5XX recogniser knows the A5XX sequences and registers only.
    if (gen_ != adreno::generation::a5xx) return;
    rec_.push(copies_.keep(w.pkt));
    rec_.release([this](const adreno::query_event& ev) { print_event(ev); });
  }
  void on_issue(const error& e) override {
    ++issues_;
    if (issues_ <= max_issues_shown) {
      error m = e;
      m.offset = map_(e.offset);
      std::fprintf(stderr, "hwpc adreno: %s: %s\n", path_.c_str(), m.describe().c_str());
    }
  }
  void on_note(const error& e) override {
    ++notes_;
    if (notes_ <= max_issues_shown) {
      error m = e;
      m.offset = map_(e.offset);
      std::fprintf(stderr, "hwpc adreno: %s: note: %s\n", path_.c_str(), m.describe().c_str());
    }
  }
  void on_gpu_id(std::uint32_t id, std::size_t) override {
    if (listing_) out_ << "GPU id " << std::uint64_t{id} << "\n";
  }
  void on_chip_id(std::uint64_t id, std::size_t) override {
    if (listing_) out_ << "chip id " << to_hex(id) << "\n";
  }
  void on_cmdstream(const adreno::rd::address_range& r, std::size_t offset) override {
    if (!listing_) return;
    char line[128];
    std::snprintf(line, sizeof line, "\ncmdstream 0x%llx, %u dwords (RD_CMDSTREAM_ADDR at %08zx)\n",
                  static_cast<unsigned long long>(r.iova), static_cast<unsigned>(r.size),
                  map_(offset));
    out_ << std::string_view(line);
  }

  // Recognises what is left and prints the events not printed yet.
  void finish() {
    rec_.finish();
    rec_.release([this](const adreno::query_event& ev) { print_event(ev); }, true);
  }
  std::size_t issues() const noexcept { return issues_; }

 private:
  // Events are printed as soon as they are final, so nothing but the events
  // behind an unpaired timestamp (at most `hold` of them) is kept. In the
  // listing they follow the packets they explain, marked "=>".
  void print_event(const adreno::query_event& ev) {
    char at[32];
    std::snprintf(at, sizeof at, listing_ ? "%08zx: => " : "%08zx: ", map_(ev.offset));
    out_ << std::string_view(at) << adreno::describe(ev) << "\n";
  }

  void print_packet(const adreno::walked_packet& w) {
    const adreno::packet& p = w.pkt;
    std::string name;
    if (p.hdr.type == adreno::packet_type::type7) {
      const auto n = adreno::opcode_name(gen_, p.hdr.id);
      name = n.empty() ? "opcode 0x" + hex32(p.hdr.id).substr(6) : std::string(n);
    } else {
      const auto n = adreno::register_label(gen_, p.hdr.id);
      name = "write " + (n.empty() ? "0x" + hex32(p.hdr.id).substr(3) : n);
    }
    char line[160];
    std::snprintf(line, sizeof line, "%08zx: %*s%08x  pkt%c %-34s count=%u", map_(p.offset),
                  static_cast<int>(2 * (w.depth < 16 ? w.depth : 16)), "",
                  static_cast<unsigned>(adreno::encode(p.hdr)),
                  p.hdr.type == adreno::packet_type::type7 ? '7' : '4', name.c_str(),
                  static_cast<unsigned>(p.hdr.count));
    out_ << std::string_view(line);
    const std::uint32_t shown = p.hdr.count < 16 ? p.hdr.count : 16;
    for (std::uint32_t i = 0; i < shown; ++i) out_ << (i ? " " : "  ") << hex32(p.dword(i));
    if (shown < p.hdr.count) out_ << " ...";
    if (w.group >= 0) {
      out_ << "  [draw-state group " << std::uint64_t(w.group);
      if (w.pass != 0) out_ << ", " << adreno::pass_name(w.pass);
      out_ << "]";
    }
    if (p.hdr.type == adreno::packet_type::type7) {
      const std::string f = adreno::describe_fields(p, gen_);
      if (!f.empty()) out_ << "  ; " << f;
    }
    out_ << "\n";
  }

  out_buffer& out_;
  bool listing_;
  std::string path_;
  std::function<std::size_t(std::size_t)> map_;
  adreno::generation gen_;
  adreno_listing::writer* records_;
  adreno::recogniser6 rec6_{gen_};
  adreno::recogniser rec_{std::size_t{1} << 16};
  // The recogniser reads a packet up to its window later: it gets copies.
  adreno::packet_copies copies_;
  std::size_t issues_ = 0, notes_ = 0;
};

// --output / --summary: the query results as rows through the shared writers.
int write_rows(const std::string& path, const std::string& kind_text, byte_span data,
               const output::output_choice& choice, output::perfetto::trace_layout layout,
               bool gzip, const adreno::device* gpu) {
  // Rows come from the generation's recogniser: the A5XX one for A5XX input,
  // the A6XX/A7XX one for a capture whose own ids name an A6XX or A7XX. The
  // library decides (pipeline/adreno_open.hpp), as for hwpc.adreno.queries.
  const adreno::input_kind kind = kind_text == "rd"    ? adreno::input_kind::rd
                                  : kind_text == "hex" ? adreno::input_kind::hex
                                                       : adreno::input_kind::bin;
  auto plan = adreno::plan_queries(kind, data, gpu, pipeline::spelling{pipeline::door::tool});
  if (!plan) {
    const error& e = plan.error_value();
    if (is_usage(e)) return fail("adreno", path + ": " + e.message, exit_usage);
    return fail("adreno", path + ": " + e.describe(), exit_bad_input);
  }
  const bool decodable = plan->decodable;
  if (!decodable) {
    std::fprintf(stderr, "hwpc adreno: %s: note: %s\n", path.c_str(), plan->note.c_str());
  }
  const std::vector<adreno::counter_key>* cols = &plan->counters;
  const row_schema& schema = plan->schema;
  output::text_buffer out(stdout);
  adreno::result_totals totals(schema);
  output::writer_parts parts;
  parts.totals_metrics = [&](std::span<const std::uint64_t>, std::uint64_t, std::vector<cell>& c) {
    c = totals.cells();
  };
  parts.title = "hwpc adreno " + std::string(adreno::input_kind_name(kind)) + ": " + path;
  if (choice.kind == output::writer_kind::html) {
    parts.report = adreno_report_facts(path, kind_text, gzip, schema.metrics.size());
  }
  if (choice.kind == output::writer_kind::perfetto) {
    parts.tracks = adreno::track_layout_of(*cols);
    parts.layout = layout;
    parts.vendor = "Qualcomm";
    if (gpu != nullptr) parts.model = std::string(gpu->name);
  }
  const auto made = output::make_writer(choice, out, schema, std::move(parts));
  output::row_writer* w = made.writer.get();
  output::html::report_writer* report = made.report;
  std::size_t shown = 0, notes = 0;
  auto done = !decodable ? result<adreno::rows_done>(adreno::rows_done{})
                         : adreno::for_each_row(
                               kind, data, schema,
                               [&](const row& r) {
                                 totals.add(r);
                                 w->write(r);
                               },
                               [&](const error& e, bool note) {
                                 std::size_t& n = note ? notes : shown;
                                 if (++n <= max_issues_shown) {
                                   std::fprintf(stderr, "hwpc adreno: %s: %s%s\n", path.c_str(),
                                                note ? "note: " : "", e.describe().c_str());
                                 }
                               });
  if (!done) {
    out.flush();
    return fail("adreno", path + ": " + done.error_value().describe(), exit_bad_input);
  }
  if (report) {
    // "Adreno 530 (A530, A5XX; the capture's ids)": the GPU id first when there is one.
    const std::string named = std::string(gpu->name) + ", " + std::string(to_string(gpu->gen));
    const std::string from = done->gpu == gpu ? "; the capture's ids)" : "; --gpu)";
    report->add_fact("GPU", done->gpu_id && *done->gpu_id != 0
                                ? "Adreno " + std::to_string(*done->gpu_id) + " (" + named + from
                                : "Adreno (" + named + from);
  }
  w->end(done->acc);
  out.flush();
  if (done->issues != 0) {
    std::fprintf(stderr,
                 "hwpc adreno: %s: %zu problem%s (%llu bytes skipped); the output above is "
                 "partial\n",
                 path.c_str(), done->issues, done->issues == 1 ? "" : "s",
                 static_cast<unsigned long long>(done->walk.skipped_bytes));
    return exit_bad_input;
  }
  return exit_ok;
}

#ifdef HWPC_HAVE_ZLIB
// gzip input inflated into a temporary file (in TMPDIR, else /tmp), mapped,
// and unlinked at once: the decompressed bytes are file pages, not heap, so
// memory does not grow with them.
result<pipeline::mapped_file> inflate_to_temp(byte_span gz) {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != 0 ? env : "/tmp";
  std::string tmp = dir + "/hwpc-adreno-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    return make_error(errc::io, 0,
                      "cannot create a file in " + dir +
                          " for the decompressed data (TMPDIR names another directory)");
  }
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return make_error(errc::io, 0, "cannot write the decompressed data to " + tmp);
  }
  auto n = adreno::gunzip_to(
      gz, [f](byte_span b) { return std::fwrite(b.data(), 1, b.size(), f) == b.size(); });
  const bool closed = std::fclose(f) == 0;
  if (!n || !closed) {
    ::unlink(tmp.c_str());
    if (!n) return n.error_value();
    return make_error(errc::io, 0, "cannot write the decompressed data to " + tmp);
  }
  auto m = pipeline::mapped_file::open(tmp);
  ::unlink(tmp.c_str());
  return m;
}
#endif

}  // namespace

int cmd_adreno(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "emulate") {
    return cmd_adreno_emulate(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  int status = exit_ok;
  auto parsed = parse(adreno_spec, args, status);
  if (!parsed) return status;
  const std::string& path = parsed->positional.front();
  const std::string format = parsed->get("format").value_or("auto");
  if (format != "auto" && format != "rd" && format != "hex" && format != "bin") {
    return fail("adreno", "--format must be auto, rd, hex or bin, not '" + format + "'",
                exit_usage);
  }
  const std::string output_kind = parsed->get("output").value_or("");
  const bool summary = parsed->has("summary");
  const bool packets = parsed->has("packets");
  if (packets &&
      ((output_kind != "csv" && output_kind != "json") || summary || parsed->has("queries"))) {
    return fail("adreno",
                "--packets writes the packet listing as --output csv or json records; it does "
                "not mix with --summary, --queries or another --output",
                exit_usage);
  }
  const bool rows = !packets && (summary || !output_kind.empty());
  std::optional<output::output_choice> choice;
  if (rows) {
    auto c = output::check_output(output_kind.empty() ? "csv" : output_kind, summary, "result",
                                  ::isatty(STDOUT_FILENO) != 0);
    if (!c) return fail("adreno", c.error_value().message, exit_usage);
    choice = *c;
  }
  auto layout = output::perfetto::trace_layout::gpu_counters;
  if (auto l = parsed->get("perfetto-layout")) {
    if (!choice) {
      return fail("adreno", "--perfetto-layout goes with --output perfetto", exit_usage);
    }
    auto v = output::check_perfetto_layout(*choice, *l);
    if (!v) return fail("adreno", v.error_value().message, exit_usage);
    layout = *v;
  }
  if (rows && parsed->has("queries")) {
    return fail("adreno", "--queries is the listing's; --output and --summary write rows",
                exit_usage);
  }
  const adreno::device* forced = nullptr;
  if (auto g = parsed->get("gpu")) {
    forced = adreno::parse_device(*g);
    if (forced == nullptr) {
      return fail("adreno",
                  "--gpu: '" + *g +
                      "' is no Adreno hwpc knows (a name like a530, a630, a740, X1-85; a GPU "
                      "id like 640; or a chip id like 0x43050a01)",
                  exit_usage);
    }
  }
  auto file = pipeline::mapped_file::open(path);
  if (!file) return fail("adreno", file.error_value().message, exit_bad_input);
  byte_span data = file->bytes();
  if (data.empty()) {
    return fail("adreno", path + ": " + make_error(errc::empty_input, 0, "empty file").describe(),
                exit_bad_input);
  }
  std::optional<pipeline::mapped_file> inflated;
  const bool gzip = adreno::is_gzip(data);
  if (gzip) {
#ifdef HWPC_HAVE_ZLIB
    auto z = inflate_to_temp(data);
    if (!z) return fail("adreno", path + ": " + z.error_value().describe(), exit_bad_input);
    inflated.emplace(std::move(*z));
    data = inflated->bytes();
    if (data.empty()) {
      return fail("adreno",
                  path + ": " + make_error(errc::empty_input, 0, "empty after gunzip").describe(),
                  exit_bad_input);
    }
#else
    return fail("adreno",
                path + ": " +
                    make_error(errc::unknown_format, 0,
                               "gzip-compressed input, and this hwpc was built without zlib "
                               "(HWPC_WITH_ZLIB / -Dzlib); gunzip it first")
                        .describe(),
                exit_bad_input);
#endif
  }
  // The input kind and the GPU whose names apply (--gpu, else the capture's
  // ids; hex and binary input carry none), as the library gives them to every door.
  const auto kind_of = adreno::input_kind_of(data, format, pipeline::spelling{});
  if (!kind_of) return fail("adreno", kind_of.error_value().message, exit_usage);
  const std::string kind(adreno::input_kind_name(*kind_of));
  const adreno::device* gpu = adreno::device_of(*kind_of, data, forced);
  const adreno::generation gen = gpu != nullptr ? gpu->gen : adreno::generation::unknown;

  if (rows) return write_rows(path, kind, data, *choice, layout, gzip, gpu);

  out_buffer out(stdout);
  const bool listing = !parsed->has("queries");
  if (gpu == nullptr && parsed->has("queries")) {
    return fail("adreno",
                path +
                    ": the input names no GPU, and queries need one: give --gpu "
                    "(e.g. --gpu a530)",
                exit_usage);
  }
  std::optional<adreno_listing::writer> records;
  if (packets) {
    records.emplace(
        out, output_kind == "json" ? adreno_listing::format::json : adreno_listing::format::csv);
    if (gpu == nullptr) {
      std::fprintf(stderr,
                   "hwpc adreno: %s: note: the input names no GPU: numbers only (names need "
                   "--gpu NAME|CHIP_ID)\n",
                   path.c_str());
    }
  } else if (listing) {
    if (gpu != nullptr) {
      out << "GPU " << adreno::describe(*gpu) << (forced != nullptr ? " (--gpu)\n" : "\n");
    } else {
      out << "GPU unknown: numbers only (names need a GPU: --gpu NAME|CHIP_ID)\n";
    }
  }

  std::size_t issues = 0;
  adreno::walk_stats stats;
  if (kind == "rd") {
    printer pr(
        out, listing, path, [](std::size_t o) { return o; }, gen, records ? &*records : nullptr);
    adreno::rd::capture_reader reader(pr);
    if (forced != nullptr) reader.force_device(forced);
    (void)reader.read(data);  // a framing error is also an issue, reported by the printer
    pr.finish();
    issues = pr.issues();
    stats = reader.walk();
  } else if (kind == "hex") {
    // Read twice, in constant memory: once to check the text (a syntax error
    // fails before any output) and bookmark it for offsets, once to walk its
    // dwords a piece at a time.
    const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    adreno::hex_offset_index index;
    auto n = index.build(text);
    if (!n) return fail("adreno", path + ": " + n.error_value().describe(), exit_bad_input);
    printer pr(
        out, listing, path, [&index](std::size_t o) { return index.text_offset(o); }, gen,
        records ? &*records : nullptr);
    adreno::walker w(pr, nullptr);
    w.set_generation(gen);
    w.set_input_bytes(4 * *n);
    adreno::hex_reader reader(text);
    constexpr std::size_t piece_bytes = std::size_t{1} << 20;  // > the largest packet (128 KiB)
    std::vector<std::byte> piece;
    std::size_t walked = 0;  // bytes of dwords walked before `piece`
    for (bool end = false; !end;) {
      std::uint32_t v = 0;
      std::size_t at = 0;
      while (piece.size() < piece_bytes) {
        auto more = reader.next(v, at);  // no error: index.build() read it all
        if (!more || !*more) {
          end = true;
          break;
        }
        const std::size_t b = piece.size();
        piece.resize(b + 4);
        store_le32(piece.data() + b, v);
      }
      const std::size_t cut = end ? piece.size() : adreno::flat_walk_prefix(piece);
      w.walk(byte_span(piece).first(cut), walked, walked);
      walked += cut;
      piece.erase(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(cut));
    }
    pr.finish();
    issues = pr.issues();
    stats = w.stats();
  } else {
    printer pr(
        out, listing, path, [](std::size_t o) { return o; }, gen, records ? &*records : nullptr);
    adreno::walker w(pr, nullptr);
    w.set_generation(gen);
    w.walk(data, 0, 0);
    pr.finish();
    issues = pr.issues();
    stats = w.stats();
  }
  if (records) records->end();
  out.flush();
  if (stats.padding_dwords != 0) {
    std::fprintf(stderr, "hwpc adreno: %s: note: %llu zero dwords of padding skipped\n",
                 path.c_str(), static_cast<unsigned long long>(stats.padding_dwords));
  }
  if (issues != 0) {
    std::fprintf(stderr,
                 "hwpc adreno: %s: %zu problem%s (%llu bytes skipped); the output above is "
                 "partial\n",
                 path.c_str(), issues, issues == 1 ? "" : "s",
                 static_cast<unsigned long long>(stats.skipped_bytes));
    return exit_bad_input;
  }
  return exit_ok;
}

}  // namespace hwpc::cli
