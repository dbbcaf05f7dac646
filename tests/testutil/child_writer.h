// A child process whose stdout the test reads line by line: the crash
// tests' writers, which print one line per acknowledged commit and are
// killed with SIGKILL mid-write.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace indelible::testutil {

class ChildWriter {
 public:
  // Runs `binary` with `args`, its stdout on a pipe. ok() is false if the
  // pipe or the fork failed.
  ChildWriter(const std::string& binary, std::vector<std::string> args) {
    int out[2];
    if (::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      ::close(out[1]);
      std::vector<char*> argv{const_cast<char*>(binary.c_str())};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    if (pid_ < 0) {
      ::close(out[0]);
      return;
    }
    out_ = ::fdopen(out[0], "r");
  }
  ~ChildWriter() {
    if (pid_ > 0) KillAndWait();
    if (out_ != nullptr) std::fclose(out_);
  }
  ChildWriter(const ChildWriter&) = delete;
  ChildWriter& operator=(const ChildWriter&) = delete;

  bool ok() const { return out_ != nullptr; }

  // The next whole line (with its '\n'); false at the end of the output or
  // when the kill cut the last line short. The pipe keeps every line the
  // child printed before it died.
  bool ReadLine(std::string* line) {
    char buffer[4096];
    if (out_ == nullptr || std::fgets(buffer, sizeof buffer, out_) == nullptr) return false;
    *line = buffer;
    return !line->empty() && line->back() == '\n';
  }

  // SIGKILL, then waits; true if the child died of the signal (it did not
  // exit on its own first).
  bool KillAndWait() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFSIGNALED(status);
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

}  // namespace indelible::testutil
