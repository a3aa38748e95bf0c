// The console's progress lines (app/console.hpp).
#include <gtest/gtest.h>

#include <string>

#include "app/console.hpp"

namespace rockperm::app {

namespace {

solve::Progress check(std::int64_t step, double seconds) {
  solve::Progress p{};
  p.step = step;
  p.max_steps = 100000;
  p.k.k_md = 1.0;
  p.error_estimate = 1.0;  // not yet converged: only the period decides
  p.tolerance = 1e-3;
  p.seconds = seconds;
  return p;
}

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST(ProgressPrinter, ALoopStartedAgainShowsItsProgressFromItsFirstCheck) {
  // A Forchheimer sweep's rates count their seconds from 0; the first rate ran 30 s with a line a
  // second. Before the fix the second rate printed nothing until its own clock passed 30 s.
  ProgressPrinter printer(1.0);
  testing::internal::CaptureStderr();
  for (int i = 0; i <= 30; ++i) printer(check(100 * i, i));
  const int first = lines(testing::internal::GetCapturedStderr());
  EXPECT_EQ(first, 31);
  testing::internal::CaptureStderr();
  for (int i = 0; i <= 10; ++i) printer(check(100 * i, 0.5 + i));
  EXPECT_EQ(lines(testing::internal::GetCapturedStderr()), 11);
}

TEST(ProgressPrinter, ChecksWithinThePeriodAreNotShown) {
  ProgressPrinter printer(10.0);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 20; ++i) printer(check(100 * i, 0.1 * i));
  EXPECT_EQ(lines(testing::internal::GetCapturedStderr()), 1);
}

}  // namespace rockperm::app
