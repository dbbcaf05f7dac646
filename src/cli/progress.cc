#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

namespace indelible::cli {

Progress::Progress(std::string label, std::uint64_t total, std::string unit)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      enabled_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { Finish(); }

double Progress::rate(std::uint64_t done) const {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return seconds > 0 ? static_cast<double>(done) / seconds : 0;
}

void Progress::Update(std::uint64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  std::string line;
  if (total_ > 0) {
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const int filled = static_cast<int>(fraction * 30);
    line = fmt::format("\r{} [{}{}] {:5.1f}% {}/{} {}, {:.0f} {}/s ", label_,
                       std::string(static_cast<std::size_t>(filled), '#'),
                       std::string(static_cast<std::size_t>(30 - filled), '.'), fraction * 100,
                       done, total_, unit_, rate(done), unit_);
  } else {
    line = fmt::format("\r{} {} {}, {:.0f} {}/s ", label_, done, unit_, rate(done), unit_);
  }
  (void)::write(STDERR_FILENO, line.data(), line.size());
}

void Progress::Finish() {
  if (!enabled_ || !drawn_) return;
  drawn_ = false;
  static constexpr char kClear[] = "\r\033[K";
  (void)::write(STDERR_FILENO, kClear, sizeof(kClear) - 1);
}

}  // namespace indelible::cli
