#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/pipeline/report.hpp"

namespace rockperm::pipeline {

TEST(Report, JsonParsesBackWithTypedWarningsAndCsvQuotesNames) {
  const auto dir = std::filesystem::temp_directory_path() / "rockperm_report_test";
  std::filesystem::remove_all(dir);
  SampleResult r;
  r.input.name = "rock \"A\".raw";
  r.performance.backend = "cpu";
  r.dims = {4, 4, 4};
  r.status = RunStatus::converged;
  r.k.k_md = 123.5;
  r.steps = 1400;
  r.drive = SampleDrive{PressureDrop{}, r.flow.force, r.flow.force};
  r.warnings = {{"reynolds", "Reynolds number 0.2 > 0.1", 0.2, "flow.force"}};
  write_reports(dir, r);
  std::ifstream in(dir / "report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(j["permeability"]["mD"].get<double>(), 123.5);
  EXPECT_EQ(j["sample"], "rock \"A\".raw");
  EXPECT_EQ(j["status"], "converged");
  EXPECT_EQ(j["geometry"]["dims"][2], 4);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_EQ(j["warnings"][0]["code"], "reynolds");
  EXPECT_DOUBLE_EQ(j["warnings"][0]["value"].get<double>(), 0.2);
  std::ifstream csv(dir / "report.csv");
  std::stringstream text;
  text << csv.rdbuf();
  EXPECT_NE(text.str().find("\"rock \"\"A\"\".raw\",\"\",converged,123.5"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("\r\n"), std::string::npos) << "RFC 4180 lines end in CRLF";
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

TEST(Report, AFailedRunHasAStatusAMessageAndNoKAndAnyFileNameGivesValidJson) {
  SampleResult r;
  r.input.name = "gr\xe9s, \"A\".raw";  // Latin-1 e acute, a comma and quotes
  r.status = RunStatus::input_error;
  r.message = "no such file";
  r.provenance.input_sha256 = std::string(64, 'a');
  const nlohmann::json j = nlohmann::json::parse(to_json(r));  // throws on invalid UTF-8
  EXPECT_EQ(j["status"], "input_error");
  EXPECT_EQ(j["message"], "no such file");
  EXPECT_TRUE(j["permeability"].is_null());
  EXPECT_EQ(j["input"]["sha256"], std::string(64, 'a'));
  EXPECT_TRUE(j["provenance"].contains("commit"));
  const std::string row = to_csv_row(r);
  EXPECT_EQ(row.rfind("\"gr\xe9s, \"\"A\"\".raw\",", 0), 0u) << row;
  EXPECT_NE(row.find(",input_error,,,"), std::string::npos) << row;  // no k
}

}  // namespace rockperm::pipeline
