// One small-multiple chart of the HTML report: a series of a band_grid
// (bands.hpp) as inline SVG.
//
// Each bucket in use is one vertical bar from its minimum to its maximum,
// as wide as the bucket (plot_width / used, one to two pixels once the grid
// has folded), so neighbouring bars join into a band and an empty bucket is
// a gap. A bar reaches half a pixel past both values, so a bucket whose
// minimum equals its maximum is still a one-pixel line rather than nothing.
// A darker line joins the buckets' means (broken at empty buckets), so a
// noisy series whose band fills the plot still shows its level. The y axis runs from
// min(0, smallest value) to max(0, largest value), so 0 is always on it;
// losses are red vertical lines at the bucket where reports resume.
// Coordinates are written to 0.1 px, trailing ".0" dropped: about 14 bytes
// per bucket for the band and 11 for the mean line, 9 KB per chart at most.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "hwpc/output/html/bands.hpp"
#include "hwpc/output/text.hpp"

namespace hwpc::output::html {

// The plot area in CSS pixels; plot_width is also the grid's capacity.
inline constexpr int plot_width = 360;
inline constexpr int plot_top = 2;
inline constexpr int plot_height = 64;
inline constexpr int chart_height = plot_top + plot_height + 14;  // room for the axis labels

// A coordinate to 0.1 px ("12.3", "12" for 12.0).
inline void write_px(text_buffer& out, double v) {
  // Far outside the plot only for values near DBL_MAX; keep the integer in range.
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e9, 1e9);
  auto tenths = static_cast<std::int64_t>(std::llround(v * 10));
  if (tenths < 0) {
    out << '-';
    tenths = -tenths;
  }
  out << static_cast<std::uint64_t>(tenths / 10);
  if (tenths % 10 != 0) out << '.' << static_cast<char>('0' + tenths % 10);
}

// A value for a label: four significant digits ("1.235e+06", "0.5").
inline void write_short(text_buffer& out, double v) {
  char tmp[32];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::general, 4);
  out << std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp));
}

// The y extent of a chart: 0 always included, never empty.
struct y_axis {
  double lo = 0;
  double hi = 1;
  static y_axis of(const band& range) {
    y_axis a;
    if (range.empty()) return a;
    a.lo = std::min(0.0, range.lo);
    a.hi = std::max(0.0, range.hi);
    if (!(a.hi > a.lo)) a.hi = a.lo + 1;  // a flat series sits on the bottom edge
    return a;
  }
  double y(double v) const { return plot_top + plot_height * (hi - v) / (hi - lo); }
};

// The x-axis labels every chart of a page shares (the grid is shared).
struct x_labels {
  std::string_view left;
  std::string_view right;
};

// <figure class="chart"> with a caption (name, units, value range) and the SVG.
inline void write_chart(text_buffer& out, const band_grid& g, std::size_t series,
                        std::string_view name, std::string_view units, std::string_view kind,
                        const x_labels& labels) {
  const band range = g.range(series);
  const y_axis ya = y_axis::of(range);
  out << "<figure class=\"chart\" data-kind=\"";
  out.html(kind) << "\" data-name=\"";
  out.html(name) << "\"><figcaption><b>";
  out.html(name) << "</b>";
  if (!units.empty()) {
    out << " <span class=\"u\">";
    out.html(units) << "</span>";
  }
  out << " <span class=\"r\">";
  if (range.empty()) {
    out << "no value";
  } else {
    write_short(out, range.lo);
    out << " &#8230; ";
    write_short(out, range.hi);
  }
  out << "</span></figcaption>\n<svg class=\"plot\" viewBox=\"0 0 " << std::uint64_t{plot_width}
      << ' ' << std::uint64_t{chart_height} << "\" width=\"" << std::uint64_t{plot_width}
      << "\" height=\"" << std::uint64_t{chart_height} << "\" role=\"img\" aria-label=\"";
  out.html(name) << "\"><rect class=\"bg\" x=\"0\" y=\"" << std::uint64_t{plot_top} << "\" width=\""
                 << std::uint64_t{plot_width} << "\" height=\"" << std::uint64_t{plot_height}
                 << "\"/>";
  const std::size_t n = g.used();
  const double step = n != 0 ? static_cast<double>(plot_width) / static_cast<double>(n) : 0;
  auto cx = [&](std::size_t b) { return (static_cast<double>(b) + 0.5) * step; };
  if (!range.empty()) {
    out << "<path class=\"band\" stroke-width=\"";
    write_px(out, step);
    out << "\" d=\"";
    for (std::size_t b = 0; b < n; ++b) {
      const band& v = g.at(series, b);
      if (v.empty()) continue;
      out << 'M';
      write_px(out, cx(b));
      out << ' ';
      write_px(out, ya.y(v.hi) - 0.5);
      out << 'V';
      write_px(out, ya.y(v.lo) + 0.5);
    }
    out << "\"/><path class=\"mean\" d=\"";
    bool joined = false;
    for (std::size_t b = 0; b < n; ++b) {
      const band& v = g.at(series, b);
      if (v.empty()) {
        joined = false;
        continue;
      }
      const bool alone = !joined && (b + 1 == n || g.at(series, b + 1).empty());
      out << (joined ? 'L' : 'M');
      joined = true;
      write_px(out, alone ? cx(b) - step / 2 : cx(b));
      out << ' ';
      write_px(out, ya.y(v.mean()));
      if (alone) {  // a lone bucket: its mean as a tick across it
        out << 'H';
        write_px(out, cx(b) + step / 2);
      }
    }
    out << "\"/>";
  }
  bool any_loss = false;
  for (std::size_t b = 0; b < n; ++b) {
    if (g.losses(b) == 0) continue;
    out << (any_loss ? "M" : "<path class=\"loss\" d=\"M");
    any_loss = true;
    write_px(out, cx(b));
    out << ' ' << std::uint64_t{plot_top} << 'V' << std::uint64_t{plot_top + plot_height};
  }
  if (any_loss) out << "\"/>";
  out << "<text class=\"ax\" x=\"0\" y=\"" << std::uint64_t{chart_height - 2} << "\">";
  out.html(labels.left) << "</text><text class=\"ax\" x=\"" << std::uint64_t{plot_width}
                        << "\" y=\"" << std::uint64_t{chart_height - 2}
                        << "\" text-anchor=\"end\">";
  out.html(labels.right) << "</text></svg></figure>\n";
}

}  // namespace hwpc::output::html
