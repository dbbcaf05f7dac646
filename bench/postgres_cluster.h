// A throwaway PostgreSQL cluster for one benchmark run (scripts/postgres.sh,
// found through the source tree this binary was built from), stopped on
// destruction, and the CPU its server processes used.
#pragma once

#include <indelible/result.h>

#include <memory>
#include <optional>
#include <string>

namespace indelible::bench {

class Cluster {
 public:
  // Initialises and starts a cluster in `dir` on a free loopback port.
  static Result<std::unique_ptr<Cluster>> Start(const std::string& dir);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  const std::string& url() const { return url_; }

  // CPU seconds the server's processes have used: the postmaster's own, its
  // live children's and those of the children it reaped. nullopt if unknown.
  std::optional<double> CpuSeconds() const;

 private:
  Cluster(std::string script, std::string dir, std::string url)
      : script_(std::move(script)), dir_(std::move(dir)), url_(std::move(url)) {}
  std::string script_;
  std::string dir_;
  std::string url_;
};

}  // namespace indelible::bench
