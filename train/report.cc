#include "train/report.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "ir/error.h"
#include "train/summary.h"

namespace ember::train {

namespace {

std::string slug(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out) throw Error("write_report: cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

// gnuplot's data file: four blocks (train reads, valid reads, train epochs, valid epochs),
// separated by two blank lines so that `index N` selects one.
std::string data_file(const MetricSeries& s) {
  std::ostringstream out;
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (int split = 0; split < 2; ++split) {
    out << "# " << split_name(static_cast<Split>(split)) << " reads: step value\n";
    for (const auto& [x, y] : s.points[split]) out << x << " " << y << "\n";
    if (s.points[split].empty()) out << "NaN NaN\n";
    out << "\n\n";
  }
  for (int split = 0; split < 2; ++split) {
    out << "# " << split_name(static_cast<Split>(split)) << " epochs: epoch value\n";
    for (const auto& [e, y] : s.epochs[split]) out << e << " " << y << "\n";
    if (s.epochs[split].empty()) out << "NaN NaN\n";
    out << "\n\n";
  }
  return out.str();
}

std::string plot_script(const MetricSeries& s, const std::string& data, const std::string& png) {
  const std::string label = s.name + (s.unit.empty() ? "" : " (" + s.unit + ")");
  std::ostringstream g;
  g << "set terminal pngcairo size 1100,380 font 'sans,10'\n"
    << "set output '" << png << "'\n"
    << "set datafile missing 'NaN'\n"
    << "set grid\nset key " << (s.direction == Direction::Highest ? "bottom" : "top") << " right\n"
    << "set multiplot layout 1,2 title '" << label << "'\n"
    << "set xlabel 'training step'\nset ylabel '" << label << "'\n"
    << "plot '" << data << "' index 0 with lines lw 1.5 lc rgb '#1f77b4' title 'train', "
    << "'' index 1 with linespoints pt 7 ps 0.6 lc rgb '#ff7f0e' title 'valid'\n"
    << "set xlabel 'epoch'\nset xtics 1\n"
    << "plot '" << data << "' index 2 with linespoints pt 7 lc rgb '#1f77b4' title 'train', "
    << "'' index 3 with linespoints pt 5 lc rgb '#ff7f0e' title 'valid'\n"
    << "unset multiplot\n";
  return g.str();
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace

bool gnuplot_available() { return std::system("gnuplot --version >/dev/null 2>&1") == 0; }

std::string write_report(const std::string& dir, const MetricHistory& history,
                         const std::string& summary) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string html =
      "<!doctype html>\n<html><head><meta charset='utf-8'><title>Ember training report</title>"
      "</head>\n<body style='font-family:sans-serif'>\n<h1>Training report</h1>\n<pre>" +
      html_escape(summary) + "</pre>\n";
  std::string error;
  for (const auto& s : history.all()) {
    const std::string base = dir + "/" + slug(s.name);
    write_file(base + ".dat", data_file(s));
    write_file(base + ".gp", plot_script(s, base + ".dat", base + ".png"));
    const std::string command = "gnuplot '" + base + ".gp' >'" + base + ".log' 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0 && error.empty()) {
      error = "write_report: gnuplot failed for " + s.name + " (status " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status) + ", see " + base +
              ".log)";
    }
    html += "<h2>" + html_escape(s.name) + "</h2>\n<img src='" + slug(s.name) + ".png' alt='" +
            html_escape(s.name) + "'>\n";
  }
  html += "</body></html>\n";
  const std::string path = dir + "/report.html";
  write_file(path, html);
  if (!error.empty()) throw Error(error);
  return path;
}

}  // namespace ember::train
