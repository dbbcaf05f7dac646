// Whether bytes reached the disk: the tests of scavenging, erasure and
// crypto-shredding (docs/RETENTION.md) look for a marker in every byte of a
// folder's files.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace indelible::testutil {

// Every regular file under `folder`, byte for byte: the ones that hold
// `needle`.
inline std::vector<std::string> FilesHolding(const std::string& folder, const std::string& needle) {
  std::vector<std::string> holding;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(needle) != std::string::npos) holding.push_back(entry.path().string());
  }
  return holding;
}

}  // namespace indelible::testutil
