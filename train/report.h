#pragma once
// The run report: <dir>/report.html with a plot of every metric's train and valid curves (reads
// and epoch values) and the summary table. The plots are PNG files drawn by gnuplot (run as a
// program, headless: the pngcairo terminal), written next to the HTML with the data they plot.
#include <string>

#include "train/history.h"

namespace ember::train {

// Writes the report and returns the HTML file's path. Throws ember::Error (naming the metric
// and gnuplot's exit status) when gnuplot is missing or fails; the HTML is still written then,
// without plots, so the caller may report the error and go on.
std::string write_report(const std::string& dir, const MetricHistory& history,
                         const std::string& summary);

// Whether `gnuplot` can be run.
bool gnuplot_available();

}  // namespace ember::train
