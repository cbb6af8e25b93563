// Running the hwpc tool from tests, and a scratch directory per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#ifndef HWPC_TOOL_PATH
#define HWPC_TOOL_PATH ""
#endif

namespace hwpc::testing {

struct run_result {
  int status;
  std::string out;
};

// Runs a shell command line and collects its standard output.
inline run_result run_command(const std::string& cmd) {
  std::FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// Runs `hwpc ARGS` through the shell; stderr is folded into the output
// unless `stdout_only`.
inline run_result run_tool(const std::string& args, bool stdout_only = false) {
  return run_command(std::string(HWPC_TOOL_PATH) + " " + args +
                     (stdout_only ? " 2>/dev/null" : " 2>&1"));
}

// The fields of one CSV line without quoting (what the tests' own lines hold).
inline std::vector<std::string> split(const std::string& line, char sep = ',') {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

// A fixture that skips when the tool is not built and gives each test its
// own scratch directory, removed afterwards.
class tool_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(HWPC_TOOL_PATH).empty()) GTEST_SKIP() << "the hwpc tool is not built";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        std::filesystem::temp_directory_path() / ("hwpc_test_" + std::to_string(::getpid()) + "_" +
                                                  info->test_suite_name() + "_" + info->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

}  // namespace hwpc::testing
