#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/report_writer.hpp"

namespace rockperm::io {

TEST(ReportWriter, WritesJsonCsvAndConfigWithNoTemporaryLeft) {
  const auto dir = std::filesystem::temp_directory_path() / "rockperm_report_test";
  std::filesystem::remove_all(dir);
  RunReport r;
  r.sample = "rock \"A\".raw";
  r.backend = "cpu";
  r.config.input.dims = {4, 4, 4};
  r.result.converged = true;
  r.result.k.k_md = 123.5;
  r.warnings = "first\nsecond\n";
  write_run_reports(dir, r);
  std::ifstream in(dir / "report.json");
  std::stringstream json;
  json << in.rdbuf();
  EXPECT_NE(json.str().find("\"mD\": 123.5"), std::string::npos);
  EXPECT_NE(json.str().find("\"rock \\\"A\\\".raw\""), std::string::npos);
  EXPECT_NE(json.str().find("[\"first\", \"second\"]"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "report.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "config.ini"));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

}  // namespace rockperm::io
