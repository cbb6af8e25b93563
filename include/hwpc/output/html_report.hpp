// The HTML report: one self-contained page of a capture's rows (facts,
// small-multiple charts, totals). See html/report_writer.hpp for the page,
// html/svg_chart.hpp for a chart and html/bands.hpp for the downsampler.
#pragma once

#include "hwpc/output/html/bands.hpp"
#include "hwpc/output/html/report_writer.hpp"
#include "hwpc/output/html/svg_chart.hpp"
