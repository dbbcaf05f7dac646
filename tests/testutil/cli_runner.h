// Runs the indelible binary in a shell, as a user would, and captures what
// it printed: shared by the CLI tests against --data and against --url.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "testutil/temp_dir.h"

namespace indelible::testutil {

struct CliOutcome {
  int exit_code;  // -1 if the process did not exit normally
  std::string out;
  std::string err;
};

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `binary <global> <args> <stdin-file >stdout-file 2>stderr-file` through
// the shell (the caller quotes args), with `input` on stdin; the three files
// live in `scratch`.
inline CliOutcome RunCli(const std::string& binary, const std::string& global,
                         const std::string& args, const std::string& input,
                         const TempDir& scratch) {
  const std::string in = scratch.Sub("stdin"), out = scratch.Sub("stdout"),
                    err = scratch.Sub("stderr");
  std::ofstream(in) << input;
  const std::string command =
      binary + " " + global + " " + args + " <" + in + " >" + out + " 2>" + err;
  const int status = std::system(command.c_str());
  return CliOutcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(out), Slurp(err)};
}

}  // namespace indelible::testutil
