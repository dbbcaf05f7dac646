// A one-line progress bar on stderr, drawn only when stderr is a terminal,
// so scripts and pipes see clean output: every long operation's, the CLI's
// verbs and the benchmarks alike.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace indelible::cli {

class Progress {
 public:
  // total 0: unknown (no percentage). unit: what is counted, as shown.
  Progress(std::string label, std::uint64_t total, std::string unit = "events");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void set_total(std::uint64_t total) { total_ = total; }
  // Cheap to call for every event: redraws at most ten times a second.
  void Update(std::uint64_t done);
  // Erases the bar (also done by the destructor).
  void Finish();
  double rate(std::uint64_t done) const;  // units per second so far

 private:
  std::string label_;
  std::uint64_t total_;
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace indelible::cli
