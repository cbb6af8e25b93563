// Running the hwpc tool from tests, and a scratch directory per test.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#ifndef HWPC_TOOL_PATH
#define HWPC_TOOL_PATH ""
#endif

namespace hwpc::testing {

struct run_result {
  int status;
  std::string out;
};

// Runs `hwpc ARGS` through the shell; stderr is folded into the output
// unless `stdout_only`.
inline run_result run_tool(const std::string& args, bool stdout_only = false) {
  const std::string cmd =
      std::string(HWPC_TOOL_PATH) + " " + args + (stdout_only ? " 2>/dev/null" : " 2>&1");
  std::FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
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
