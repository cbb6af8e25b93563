// The HTML report rendered by a real browser: headless Chromium (Debian's
// `chromium`, scripts/install-deps.sh) loads reports of an emulated Intel
// recording with a metric set, an emulated Mali kinstr capture and a
// hand-built Adreno .rd capture. From the DOM the browser built
// (--dump-dom), every chart and table the report must hold is counted
// against the decoder's own CSV columns; a hostile metric name must stay
// text, never an element. A screenshot (--screenshot) must not be blank:
// with zlib the PNG is decoded (IHDR, IDAT inflated, scanlines unfiltered)
// and the band's blue must cover part of it beside the white page; without
// zlib, its compressed image data must be several times that of a blank page
// rendered the same way (a single colour compresses to almost nothing).
//
// Chromium runs as root in CI, so --no-sandbox; every run goes through
// coreutils `timeout` (90 s, then SIGKILL), so a hung browser fails the test
// instead of the suite. Skips with a message when chromium is absent.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#ifdef HWPC_HAVE_ZLIB
#include <zlib.h>
#endif

#include "adreno_results_capture.hpp"
#include "report_test_util.hpp"
#include "tool_runner.hpp"

#ifndef HWPC_SHARED_DIR
#define HWPC_SHARED_DIR "../shared"
#endif

namespace {

using hwpc::testing::count_of;
using hwpc::testing::read_text;
using hwpc::testing::run_command;
using hwpc::testing::run_tool;

constexpr int window_w = 1200, window_h = 900;

// A PNG's header and image data (PNG specification, sections 5 and 11).
struct png {
  std::uint32_t width = 0, height = 0;
  std::uint8_t depth = 0, colour = 0, interlace = 0;
  std::string idat;  // the IDAT chunks' data, concatenated
  std::string error;
};

std::uint32_t be32(const std::string& s, std::size_t at) {
  return std::uint32_t{static_cast<std::uint8_t>(s[at])} << 24 |
         std::uint32_t{static_cast<std::uint8_t>(s[at + 1])} << 16 |
         std::uint32_t{static_cast<std::uint8_t>(s[at + 2])} << 8 |
         std::uint32_t{static_cast<std::uint8_t>(s[at + 3])};
}

png read_png(const std::string& b) {
  png p;
  if (b.size() < 8 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    p.error = "no PNG signature";
    return p;
  }
  for (std::size_t at = 8; at + 12 <= b.size();) {
    const std::uint32_t len = be32(b, at);
    const std::string type = b.substr(at + 4, 4);
    if (at + 12 + len > b.size()) {
      p.error = "chunk " + type + " runs past the end";
      return p;
    }
    if (type == "IHDR" && len == 13) {
      p.width = be32(b, at + 8);
      p.height = be32(b, at + 12);
      p.depth = static_cast<std::uint8_t>(b[at + 16]);
      p.colour = static_cast<std::uint8_t>(b[at + 17]);
      p.interlace = static_cast<std::uint8_t>(b[at + 20]);
    } else if (type == "IDAT") {
      p.idat += b.substr(at + 8, len);
    } else if (type == "IEND") {
      return p;
    }
    at += 12 + len;
  }
  p.error = "no IEND chunk";
  return p;
}

#ifdef HWPC_HAVE_ZLIB
constexpr std::uint32_t band_rgb = 0x9dbbe0;  // .band's stroke in html/report_writer.hpp

// Pixel counts by RGB colour: IDAT inflated and every scanline unfiltered
// (filter types 0-4, section 9). 8-bit RGB or RGBA, not interlaced.
std::map<std::uint32_t, std::uint64_t> colours(const png& p, std::string& error) {
  std::map<std::uint32_t, std::uint64_t> out;
  const std::size_t bpp = p.colour == 6 ? 4 : p.colour == 2 ? 3 : 0;
  if (bpp == 0 || p.depth != 8 || p.interlace != 0) {
    error = "not 8-bit non-interlaced RGB(A)";
    return out;
  }
  const std::size_t stride = p.width * bpp;
  std::vector<unsigned char> raw((stride + 1) * p.height);
  uLongf size = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(p.idat.data()),
                 static_cast<uLong>(p.idat.size())) != Z_OK ||
      size != raw.size()) {
    error = "IDAT does not inflate to the image size";
    return out;
  }
  std::vector<unsigned char> prev(stride, 0), cur(stride);
  for (std::size_t y = 0; y < p.height; ++y) {
    const unsigned char* line = &raw[y * (stride + 1)];
    const unsigned filter = line[0];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          error = "unknown filter type " + std::to_string(filter);
          return out;
      }
      cur[i] = static_cast<unsigned char>(line[1 + i] + pred);
    }
    for (std::size_t x = 0; x < p.width; ++x) {
      const unsigned char* px = &cur[x * bpp];
      ++out[std::uint32_t{px[0]} << 16 | std::uint32_t{px[1]} << 8 | px[2]];
    }
    std::swap(prev, cur);
  }
  return out;
}
#endif

class ReportBrowser : public hwpc::testing::tool_test {
 protected:
  void SetUp() override {
    tool_test::SetUp();
    if (IsSkipped()) return;
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "chromium is not installed (Debian: chromium; scripts/install-deps.sh)";
    }
    if (std::system("command -v timeout >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "coreutils timeout is missing: chromium cannot be bounded";
    }
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // One headless run; fails the test (with chromium's stderr) when it does.
  bool chromium(const std::string& args, const std::string& html, const std::string& stdout_to) {
    const std::string log = path("chromium.log");
    const std::string cmd =
        "timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu "
        "--disable-dev-shm-usage --no-first-run --hide-scrollbars "
        "--user-data-dir=" +
        path("profile") + " " + args + " 'file://" + html + "' > '" + stdout_to + "' 2> '" + log +
        "'";
    const auto r = run_command(cmd);
    EXPECT_EQ(r.status, 0) << cmd << "\n" << read_text(log);
    return r.status == 0;
  }
  std::string dom(const std::string& html) {
    const std::string out = path("dom.html");
    if (!chromium("--dump-dom", html, out)) return {};
    return read_text(out);
  }
  png screenshot(const std::string& html, const std::string& name) {
    const std::string shot = path(name);
    chromium("--screenshot=" + shot + " --window-size=" + std::to_string(window_w) + "," +
                 std::to_string(window_h),
             html, path("shot.out"));
    return read_png(read_text(shot));
  }

  // The screenshot shows a page with charts, not one colour.
  void not_blank(const std::string& html, const std::string& name) {
    const png p = screenshot(html, name + ".png");
    ASSERT_EQ(p.error, "") << name;
    EXPECT_EQ(p.width, std::uint32_t{window_w});
    EXPECT_EQ(p.height, std::uint32_t{window_h});
#ifdef HWPC_HAVE_ZLIB
    std::string error;
    const auto hist = colours(p, error);
    ASSERT_EQ(error, "") << name;
    const double total = double{window_w} * window_h;
    const auto share = [&](std::uint32_t rgb) {
      const auto it = hist.find(rgb);
      return it == hist.end() ? 0.0 : static_cast<double>(it->second) / total;
    };
    // The band's blue, alone or blended with the plot's background by
    // antialiasing (a one-pixel line at a half-pixel offset), and the mean
    // line's darker blue: blue at least 25 above red (text is grey).
    // At least 300 such pixels: more than one flat band across most of a chart.
    std::uint64_t blue = 0;
    for (const auto& [rgb, n] : hist) {
      if ((rgb & 0xff) >= (rgb >> 16) + 25) blue += n;
    }
    EXPECT_GT(hist.size(), 10u) << name << ": text and charts draw many colours";
    EXPECT_GT(share(0xffffff), 0.2) << name << ": the page is white";
    EXPECT_GE(blue, 300u) << name << ": no chart band on screen";
    RecordProperty(name + "_band_share", std::to_string(share(band_rgb)));
#else
    // Without zlib: a single colour deflates to a few hundred bytes at this
    // size; the report must carry several times a blank page's image data.
    const std::string blank = path("blank.html");
    std::ofstream(blank) << "<!DOCTYPE html><html><body></body></html>";
    const png b = screenshot(blank, "blank.png");
    ASSERT_EQ(b.error, "");
    EXPECT_GT(p.idat.size(), 5 * b.idat.size()) << name;
#endif
  }

  // The DOM holds the facts, one figure with an SVG per chart (metrics of
  // `csv`'s header, then the busiest eight counters), and the totals.
  void check_dom(const std::string& d, const std::string& csv, bool losses) {
    ASSERT_FALSE(d.empty());
    const auto cols = hwpc::testing::columns_of(csv);
    const std::size_t counters = std::min<std::size_t>(8, cols.counters.size());
    EXPECT_EQ(count_of(d, "<figure class=\"chart\" data-kind=\"metric\""), cols.metrics.size());
    EXPECT_EQ(count_of(d, "<figure class=\"chart\" data-kind=\"counter\""), counters);
    EXPECT_EQ(count_of(d, "<svg class=\"plot\""), cols.metrics.size() + counters);
    for (const auto& m : cols.metrics) {
      EXPECT_NE(d.find("data-name=\"" + m + "\""), std::string::npos) << m;
    }
    EXPECT_NE(d.find("<table id=\"facts\">"), std::string::npos);
    for (const char* fact : {"vendor", "duration", "reports", "losses"}) {
      EXPECT_NE(d.find(std::string("<th>") + fact + "</th>"), std::string::npos) << fact;
    }
    const auto totals = hwpc::testing::totals_of(d);
    EXPECT_GE(totals.size(), 4 + cols.counters.size() + cols.metrics.size());
    EXPECT_GT(count_of(d, "<path class=\"band\""), 0u);
    EXPECT_EQ(d.find("<path class=\"loss\"") != std::string::npos, losses);
    EXPECT_EQ(d.find("<script"), std::string::npos);
  }
};

TEST_F(ReportBrowser, IntelRecordingWithMetrics) {
  std::string metrics;
#ifdef HWPC_HAVE_PUGIXML
  const std::string xml = std::string(HWPC_SHARED_DIR) + "/data/intel-metrics/oa-hsw.xml";
  if (std::filesystem::exists(xml)) metrics = " --metrics " + xml + " --set RenderBasic";
#endif
  if (metrics.empty()) {
    std::fprintf(stderr,
                 "note: no metric set (../shared absent or no pugixml); raw counters only\n");
  }
  const std::string rec = path("hsw.rec"), html = path("intel.html");
  ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --reports 3000 --faults "
                     "report-lost,ctx-switch --output-kind recording --out " +
                     rec)
                .status,
            0);
  ASSERT_EQ(run_tool("report " + rec + metrics + " -o " + html).status, 0);
  const std::string d = dom(html);
  check_dom(d, run_tool("decode " + rec + metrics, true).out, true);
  if (!metrics.empty()) {
    EXPECT_EQ(count_of(d, "data-kind=\"metric\""), 67u) << "RenderBasic's bound metrics on HSW";
  }
  not_blank(html, "intel");
}

TEST_F(ReportBrowser, MaliKinstrCapture) {
  const std::string cap = path("g78.cap"), html = path("mali.html");
  ASSERT_EQ(run_tool("mali emulate --gpu G78 --reader kinstr --samples 500 --out " + cap).status,
            0);
  ASSERT_EQ(run_tool("report " + cap + " --bus-width-bits 128 -o " + html).status, 0);
  check_dom(dom(html), run_tool("mali " + cap + " --bus-width-bits 128", true).out, false);
  not_blank(html, "mali");
}

TEST_F(ReportBrowser, AdrenoRdCapture) {
  const adreno_results::capture c;
  const std::string rd = path("q.rd"), html = path("adreno.html");
  std::ofstream(rd, std::ios::binary)
      .write(reinterpret_cast<const char*>(c.w.bytes.data()),
             static_cast<std::streamsize>(c.w.bytes.size()));
  ASSERT_EQ(run_tool("report " + rd + " -o " + html).status, 0);
  check_dom(dom(html), run_tool("adreno --output csv " + rd, true).out, false);
  not_blank(html, "adreno");
}

// Markup in the capture's file name (always) and in a metric's name and the
// set's name (with the metric XML loader) stays text in the DOM the browser
// builds: no element, no attribute, no script appears. (The page's
// Content-Security-Policy would also stop an injected script or handler from
// running; the element checks do not rely on it.)
TEST_F(ReportBrowser, HostileNamesStayText) {
  // (No '/' in a file name, so an element with a handler rather than a script.)
  const std::string rec = path("<img id=pwned0 src=x onerror=document.body.dataset.pwned=1>.rec");
  ASSERT_EQ(run_tool("emulate --platform hsw --format A45_B8_C8 --output-kind recording --out '" +
                     rec + "'")
                .status,
            0);
  std::string metrics;
#ifdef HWPC_HAVE_PUGIXML
  const std::string xml = path("evil.xml");
  std::ofstream(xml) << R"(<metrics><set name="E" chipset="HSW" hw_config_guid="x"
      symbol_name="&lt;script&gt;document.body.dataset.pwned=2&lt;/script&gt;">
    <counter name="n" symbol_name="&lt;img id=&quot;pwned&quot; src=x&gt;" units="&lt;i&gt;u"
             data_type="uint64" equation="GPU_TIME 0 READ"/>
  </set></metrics>)";
  metrics = " --metrics " + xml + " --set '<script>document.body.dataset.pwned=2</script>'";
#endif
  const std::string html = path("evil.html");
  const auto r = run_tool("report '" + rec + "'" + metrics + " -o " + html);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string d = dom(html);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.find("data-pwned"), std::string::npos) << "a script ran";
  EXPECT_EQ(d.find("<script"), std::string::npos);
  EXPECT_EQ(d.find("<img"), std::string::npos) << "an element was injected";
  EXPECT_NE(d.find("&lt;img id=pwned0 src=x onerror=document.body.dataset.pwned=1&gt;.rec"),
            std::string::npos)
      << "the file name as text";
  if (!metrics.empty()) {
    EXPECT_EQ(d.find("<i>u"), std::string::npos);
    EXPECT_NE(d.find("&lt;img id=\"pwned\" src=x&gt;"), std::string::npos) << "the name as text";
    EXPECT_NE(d.find("&lt;script&gt;document.body.dataset.pwned=2&lt;/script&gt;"),
              std::string::npos);
  }
}

}  // namespace
