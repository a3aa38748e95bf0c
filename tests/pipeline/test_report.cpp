#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "pipeline/report.hpp"
#include "tests/test_support.hpp"

namespace rockperm::pipeline {

TEST(Report, JsonParsesBackWithTypedWarningsAndCsvQuotesNames) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_report_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SampleResult r;
  r.input.name = "rock \"A\".raw";
  r.performance.backend = "cpu";
  r.dims = {4, 4, 4};
  r.status = RunStatus::converged;
  r.k.k_md = 123.5;
  r.steps = 1400;
  r.drive.acceleration = r.flow.force;
  r.drive.period = 1;
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

namespace rockperm::pipeline {

namespace {
// The text of the element with `id` in a page parsed by libxml2's XML parser: the page is HTML5
// written well-formed (libxml2's HTML parser knows HTML 4 only and rejects inline SVG), so the
// strict parser checks every tag is closed and every entity known.
std::string html_text_by_id(const std::string& html, const std::string& id) {
  xmlResetLastError();
  xmlDocPtr doc = xmlReadMemory(html.data(), static_cast<int>(html.size()), "report.html", "UTF-8", XML_PARSE_NONET);
  EXPECT_NE(doc, nullptr);
  if (!doc) return "";
  const xmlError* error = xmlGetLastError();
  EXPECT_TRUE(error == nullptr || error->level < XML_ERR_ERROR) << (error ? error->message : "");
  std::string text;
  xmlXPathContextPtr context = xmlXPathNewContext(doc);
  const std::string query = "//*[@id='" + id + "']";
  xmlXPathObjectPtr found = xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(query.c_str()), context);
  if (found && found->nodesetval && found->nodesetval->nodeNr > 0) {
    xmlChar* content = xmlNodeGetContent(found->nodesetval->nodeTab[0]);
    text = reinterpret_cast<const char*>(content);
    xmlFree(content);
  }
  xmlXPathFreeObject(found);
  xmlXPathFreeContext(context);
  xmlFreeDoc(doc);
  return text;
}
}  // namespace

// report.html parses (well-formed) and shows the numbers of report.json; names are escaped.
TEST(Report, HtmlParsesAndHoldsTheNumbersOfTheJson) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_report_html_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SampleResult r;
  r.input.name = "rock <A> & \"B\".raw";
  r.dims = {4, 4, 4};
  r.status = RunStatus::converged;
  r.k.k_md = 1234.56789012;
  r.k.tortuosity = 1.37;
  r.error_estimate = 2.5e-5;
  r.steps = 1400;
  r.percolation.voxels = 64;
  r.percolation.pore = 20;
  r.percolation.connected = 18;
  r.history_md = {{100, 900.0}, {200, 1200.0}, {1400, 1234.56789012}};
  r.drive.acceleration = r.flow.force;
  r.drive.period = 1;
  r.k_interior_md = 1111.5;  // between buffers: the interior's k beside the whole sample's
  write_reports(dir, r);
  std::ifstream in(dir / "report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  std::ifstream page(dir / "report.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NEAR(std::stod(html_text_by_id(html, "k-mD")), j["permeability"]["mD"].get<double>(), 1e-9 * 1234.6);
  EXPECT_EQ(std::stoll(html_text_by_id(html, "steps")), j["steps"].get<long long>());
  EXPECT_NEAR(std::stod(html_text_by_id(html, "porosity")), j["porosity"].get<double>(), 1e-6);
  EXPECT_EQ(html_text_by_id(html, "status"), j["status"].get<std::string>());
  EXPECT_NEAR(std::stod(html_text_by_id(html, "k-interior")), j["trust"]["k_interior_mD"].get<double>(), 1e-3);
  EXPECT_NE(j["trust"]["verdict"].get<std::string>().find("1111.5 mD"), std::string::npos) << j["trust"]["verdict"];
  EXPECT_NE(html.find("<h1>rock &lt;A&gt; &amp; &quot;B&quot;.raw</h1>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos) << "the convergence chart";
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "nothing is fetched from the network";
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

}  // namespace rockperm::pipeline

namespace rockperm::pipeline {

TEST(Report, StatusNamesParseBack) {
  for (const RunStatus s : {RunStatus::converged, RunStatus::not_converged, RunStatus::diverged, RunStatus::interrupted,
                            RunStatus::input_error, RunStatus::output_error, RunStatus::invalid_physics,
                            RunStatus::runtime_error}) {
    EXPECT_EQ(parse_status(to_string(s)), s);
  }
  EXPECT_FALSE(parse_status("pending").has_value());
}

// The manual's table of statuses and exit codes (docs/manual/running-a-sample.md) is the code's:
// every status once, with the exit code exit_code() gives it.
TEST(Report, TheManualsExitCodesAreTheCodes) {
  const std::filesystem::path page = testing::repo_file("docs/manual/running-a-sample.md");
  ASSERT_FALSE(page.empty());
  std::ifstream in(page);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const auto name_end = line.find('`', 3);
    const std::string name = line.substr(3, name_end - 3);
    const auto status = parse_status(name);
    if (!status) continue;  // another table's row
    const auto bar = line.find('|', name_end);
    const int code = std::stoi(line.substr(bar + 1));
    EXPECT_EQ(code, exit_code(*status)) << name;
    ++rows;
  }
  EXPECT_EQ(rows, 8) << "every status once in the manual's table";
}

// docs/reference/report-json.md lists every field of report.json: each key of a report with every
// optional block present (grey phases with a map and the run without them, the resolution study,
// the formation factor, two phases, a reason and a warning), to the fields of the objects inside its blocks
// and lists, is named there in backquotes.
TEST(Report, EveryFieldOfReportJsonIsInTheReference) {
  const std::filesystem::path page = testing::repo_file("docs/reference/report-json.md");
  ASSERT_FALSE(page.empty()) << "docs/reference/report-json.md not found above the working directory";
  std::ifstream in(page, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SampleResult r;
  r.input.name = "rock.raw";
  r.status = RunStatus::invalid_physics;
  r.reason = "no_path";
  r.steps = 100;
  r.percolation.voxels = 64;
  r.grey.phases.push_back(GreyPhaseReport{});
  r.grey.map = "40:200";
  r.grey.law = "kozeny-carman";
  r.grey.without_asked = true;
  r.resolution.asked = true;
  r.conduction.asked = true;
  r.conduction.grey_phase_cementation = {2.0};
  r.two_phase.asked = r.two_phase.done = true;
  r.two_phase.drainage = r.two_phase.imbibition = {CapillaryPoint{1e4, 5, 0.5, 0.3}};
  r.two_phase.relperm = {RelPermPoint{}};
  r.two_phase.displacement.asked = true;
  r.two_phase.displacement.drainage = r.two_phase.displacement.imbibition = {DisplacementPoint{}};
  r.forchheimer.asked = r.forchheimer.done = r.forchheimer.fit.done = true;
  r.forchheimer.points = {ForchheimerPoint{}, ForchheimerPoint{}};
  r.k_halves_md = {1.0, 2.0};
  r.warnings = {{"reynolds", "Reynolds number 0.2 > 0.1", 0.2, "flow.force"}};
  r.history_md = {{100, 1.0}};
  const nlohmann::json j = nlohmann::json::parse(to_json(r));
  int fields = 0;
  const auto named = [&](const std::string& key, const std::string& where) {
    EXPECT_NE(text.find("`" + key + "`"), std::string::npos) << where << key << " is not in docs/reference/report-json.md";
    ++fields;
  };
  for (const auto& [key, value] : j.items()) {
    named(key, "");
    const nlohmann::json* inner = &value;
    if (value.is_array() && !value.empty() && value.front().is_object()) inner = &value.front();  // warnings
    if (!inner->is_object()) continue;
    for (const auto& [k2, v2] : inner->items()) {
      named(k2, key + ".");
      const nlohmann::json* deeper = &v2;
      if (v2.is_array() && !v2.empty() && v2.front().is_object()) deeper = &v2.front();  // grey.phases
      if (!deeper->is_object()) continue;
      for (const auto& [k3, v3] : deeper->items()) named(k3, key + "." + k2 + ".");
    }
  }
  EXPECT_GT(fields, 100);
}

}  // namespace rockperm::pipeline
