#include "train/dashboard.h"

#include <ncurses.h>
#include <unistd.h>

#include <algorithm>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/error.h"

namespace ember::train {

namespace {
constexpr int kTrainPair = 1, kValidPair = 2, kTitlePair = 3;
constexpr double kRedrawSeconds = 0.2;  // progress redraws at most 5 times a second

std::string fit(std::string text, int width) {
  if (width <= 0) return "";
  if (static_cast<int>(text.size()) > width) text.resize(static_cast<size_t>(width));
  return text;
}
}  // namespace

Dashboard::Dashboard() {
  std::setlocale(LC_ALL, "");  // the terminal's encoding: box lines as Unicode under UTF-8
  if (!initscr()) throw Error("Dashboard: ncurses could not initialise the terminal");
  active_ = true;
  cbreak();  // Ctrl-C still raises SIGINT (the Learner's interrupter)
  noecho();
  nodelay(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(kTrainPair, COLOR_CYAN, -1);
    init_pair(kValidPair, COLOR_YELLOW, -1);
    init_pair(kTitlePair, COLOR_GREEN, -1);
  }
  draw();
}

Dashboard::~Dashboard() { finish(); }

void Dashboard::finish() {
  if (!active_) return;
  active_ = false;
  endwin();
}

void Dashboard::poll_keys() {
  for (int ch = getch(); ch != ERR; ch = getch()) {
    if (ch == 'q' || ch == 'Q') {
      if (!stop_) message("stop requested: stopping at the next step with a checkpoint");
      stop_ = true;
    }
  }
}

bool Dashboard::stop_requested() {
  if (active_) poll_keys();
  return stop_;
}

void Dashboard::progress(const TrainingProgress& progress) {
  progress_ = progress;
  if (!active_) return;
  poll_keys();
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds) return;
  draw();
}

void Dashboard::render(const MetricHistory& history, const TrainingProgress& progress, bool) {
  history_ = history;
  progress_ = progress;
  if (active_) draw();
}

void Dashboard::message(const std::string& text) {
  messages_.push_back(text);
  while (messages_.size() > 3) messages_.pop_front();
  if (active_) draw();
}

void Dashboard::draw() {
  last_draw_ = std::chrono::steady_clock::now();
  int height = 0, width = 0;
  getmaxyx(stdscr, height, width);
  erase();
  draw_header(width);
  int row = draw_table(3, width);
  const int message_rows = static_cast<int>(messages_.size());
  draw_plots(row + 1, width, height - row - 1 - message_rows);
  for (int i = 0; i < message_rows; ++i) {
    mvaddstr(height - message_rows + i, 0, fit(messages_[static_cast<size_t>(i)], width).c_str());
  }
  refresh();
}

void Dashboard::draw_header(int width) {
  const auto& p = progress_;
  char line[256];
  std::snprintf(
      line, sizeof line, " Ember  %s  epoch %lld/%lld  iteration %lld/%lld  elapsed %s  ETA %s",
      split_name(p.split), static_cast<long long>(p.epoch), static_cast<long long>(p.epochs),
      static_cast<long long>(p.iteration), static_cast<long long>(p.iterations),
      format_duration(p.elapsed_s).c_str(), format_duration(p.eta_s).c_str());
  attron(COLOR_PAIR(kTitlePair) | A_BOLD);
  mvaddstr(0, 0, fit(line, width).c_str());
  attroff(COLOR_PAIR(kTitlePair) | A_BOLD);
  const std::string hint = "q: stop with a checkpoint";
  if (width > static_cast<int>(hint.size()) + 2) {
    mvaddstr(0, width - static_cast<int>(hint.size()) - 1, hint.c_str());
  }
  const int bar = std::max(10, width - 12);
  const double done = p.iterations > 0 ? static_cast<double>(p.iteration) / p.iterations : 0;
  const int filled = static_cast<int>(bar * done);
  std::string text = " [" + std::string(static_cast<size_t>(filled), '#') +
                     std::string(static_cast<size_t>(bar - filled), '.') + "] ";
  char percent[16];
  std::snprintf(percent, sizeof percent, "%3.0f%%", 100 * done);
  attron(COLOR_PAIR(p.split == Split::Train ? kTrainPair : kValidPair));
  mvaddstr(1, 0, fit(text + percent, width).c_str());
  attroff(COLOR_PAIR(p.split == Split::Train ? kTrainPair : kValidPair));
}

int Dashboard::draw_table(int top, int width) {
  char line[256];
  std::snprintf(line, sizeof line, " %-26s %18s %18s", "metric", "train", "valid");
  attron(A_BOLD);
  mvaddstr(top, 0, fit(line, width).c_str());
  attroff(A_BOLD);
  int row = top + 1;
  for (const auto& s : history_.all()) {
    std::snprintf(line, sizeof line, " %-26s %18s %18s", s.name.c_str(),
                  s.current[0].empty() ? "-" : s.current[0].c_str(),
                  s.current[1].empty() ? "-" : s.current[1].c_str());
    mvaddstr(row++, 0, fit(line, width).c_str());
  }
  return row;
}

void Dashboard::draw_plots(int top, int width, int height) {
  std::vector<const MetricSeries*> numeric;
  for (const auto& s : history_.all()) {
    if (!s.points[0].empty() || !s.points[1].empty()) numeric.push_back(&s);
  }
  if (numeric.empty() || height < 5) return;
  const int columns = width >= 100 && numeric.size() > 1 ? 2 : 1;
  const int rows = static_cast<int>((numeric.size() + columns - 1) / columns);
  const int plot_height = std::max(5, height / rows);
  const int plot_width = width / columns;
  for (size_t i = 0; i < numeric.size(); ++i) {
    const int r = static_cast<int>(i) / columns, c = static_cast<int>(i) % columns;
    if (top + (r + 1) * plot_height > top + height) break;
    draw_plot(*numeric[i], top + r * plot_height, c * plot_width, plot_width - 1, plot_height);
  }
}

// A box with the metric's name and its train (*) and valid (o) reads scaled into it.
void Dashboard::draw_plot(const MetricSeries& s, int top, int left, int width, int height) {
  const int inner_w = width - 12, inner_h = height - 2;
  if (inner_w < 8 || inner_h < 2) return;
  // The whole run spans the width: the curves grow from left to right as training goes.
  double x_max = std::max(1.0, progress_.steps_total), y_min = INFINITY, y_max = -INFINITY;
  for (const auto& points : s.points) {
    for (const auto& [x, y] : points) {
      if (!std::isfinite(y)) continue;
      x_max = std::max(x_max, x);
      y_min = std::min(y_min, y);
      y_max = std::max(y_max, y);
    }
  }
  if (!(y_min <= y_max)) return;
  if (y_max - y_min < 1e-12) y_max = y_min + 1e-12;
  const std::string title =
      " " + s.name + (s.unit.empty() ? "" : " (" + s.unit + ")") + "  * train  o valid ";
  mvaddstr(top, left, fit(title, width).c_str());
  char label[16];
  std::snprintf(label, sizeof label, "%10.*g", 4, y_max);
  mvaddstr(top + 1, left, label);
  std::snprintf(label, sizeof label, "%10.*g", 4, y_min);
  mvaddstr(top + inner_h, left, label);
  for (int r = 0; r < inner_h; ++r) mvaddch(top + 1 + r, left + 10, '|');
  mvhline(top + inner_h + 1, left + 10, '-', inner_w + 1);
  for (int split = 0; split < 2; ++split) {
    attron(COLOR_PAIR(split == 0 ? kTrainPair : kValidPair));
    for (const auto& [x, y] : s.points[split]) {
      if (!std::isfinite(y)) continue;
      const int col = static_cast<int>(std::lround(x / x_max * (inner_w - 1)));
      const int row = static_cast<int>(std::lround((y_max - y) / (y_max - y_min) * (inner_h - 1)));
      mvaddch(top + 1 + row, left + 11 + col, split == 0 ? '*' : 'o');
    }
    attroff(COLOR_PAIR(split == 0 ? kTrainPair : kValidPair));
  }
}

std::unique_ptr<Renderer> default_renderer() {
  const char* term = std::getenv("TERM");
  if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && term && *term &&
      std::string(term) != "dumb") {
    return std::make_unique<Dashboard>();
  }
  return std::make_unique<PlainRenderer>();
}

}  // namespace ember::train
