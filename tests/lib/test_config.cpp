#include <gtest/gtest.h>

#include <fstream>

#include "lib/config.hpp"
#include "lib/base/error.hpp"

namespace rockperm::config {

namespace {
std::filesystem::path write_ini(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "rockperm_config_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}
const char* minimal = "[input]\nfile = rock.raw\ndims = 10 20 30\nvoxel_size_um = 2.5\n";
}  // namespace

TEST(Config, ReadsIniAndResolvesPathsAgainstIt) {
  const auto ini = write_ini("a.ini", std::string(minimal) + "[lbm]\ntau = 0.8\nflow_axis = z\n");
  bool help = false;
  const RunConfig c = parse_run_arguments({"--config", ini.string()}, help);
  EXPECT_FALSE(help);
  EXPECT_EQ(c.input.file, ini.parent_path() / "rock.raw");
  EXPECT_EQ(c.input.dims, (Dims{10, 20, 30}));
  EXPECT_DOUBLE_EQ(c.input.voxel_size_um, 2.5);
  EXPECT_DOUBLE_EQ(c.lbm.tau, 0.8);
  EXPECT_EQ(c.lbm.flow_axis, 2);
  EXPECT_EQ(c.lbm.collision, physics::CollisionModel::trt);
  EXPECT_DOUBLE_EQ(c.lbm.magic, 3.0 / 16.0);
  const Periodicity p = c.periodicity();
  EXPECT_TRUE(p[2]);
  EXPECT_FALSE(p[0]);
}

TEST(Config, CommandLineOverridesTheFile) {
  const auto ini = write_ini("b.ini", std::string(minimal) + "[lbm]\ntau = 0.8\n");
  bool help = false;
  const RunConfig c = parse_run_arguments(
      {"--config", ini.string(), "--lbm.tau=1.2", "--run.propagation", "fused", "--input.file", "other.raw"}, help);
  EXPECT_DOUBLE_EQ(c.lbm.tau, 1.2);
  EXPECT_EQ(c.propagation, PropagationChoice::fused);
  EXPECT_EQ(c.input.file, std::filesystem::path("other.raw"));  // command-line paths are relative to the cwd
}

TEST(Config, BadValuesAreInputErrorsNamingTheOption) {
  const auto ini = write_ini("c.ini", minimal);
  bool help = false;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--lbm.tau=0.5", "lbm.tau"},          {"--lbm.flow_axis=w", "lbm.flow_axis"},
      {"--input.dims=10 20", "input.dims"},  {"--run.backend=gpu", "run.backend"},
      {"--lbm.force=-1", "lbm.force"},       {"--input.pore_labels=a", "pore labels"},
      {"--run.propagation=push", "run.propagation"},  {"--lbm.inlet_outlet=open", "inlet_outlet"},
      {"--lbm.lateral=periodic", "contradicts"},  {"--input.type=float32", "input.type"},
      {"--input.byte_order=middle", "input.byte_order"}, {"--input.percolation_filter=maybe", "percolation_filter"},
      {"--no-such-option=1", "command line"}};
  for (const auto& [arg, name] : bad) {
    try {
      (void)parse_run_arguments({"--config", ini.string(), arg}, help);
      ADD_FAILURE() << arg << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(Config, MissingRequiredKeyAndMissingFile) {
  bool help = false;
  EXPECT_THROW(parse_run_arguments({"--input.dims=4 4 4", "--input.voxel_size_um=1"}, help), InputError);  // no file
  EXPECT_THROW(parse_run_arguments({"--config", "/nonexistent/x.ini"}, help), InputError);
}

TEST(Config, ResolvedIniParsesBackToTheSameConfig) {
  const auto ini = write_ini("d.ini", std::string(minimal) + "[lbm]\ncollision = bgk\ntau = 0.65\nforce = 2e-6\n");
  bool help = false;
  const RunConfig a = parse_run_arguments({"--config", ini.string()}, help);
  const auto again = write_ini("e.ini", to_ini(a));
  const RunConfig b = parse_run_arguments({"--config", again.string()}, help);
  EXPECT_EQ(to_ini(a), to_ini(b));
}

TEST(Config, HelpDocumentsUnits) {
  const std::string h = run_options_help();
  EXPECT_NE(h.find("micrometres"), std::string::npos);
  EXPECT_NE(h.find("lattice units"), std::string::npos);
  bool help = false;
  (void)parse_run_arguments({"--help"}, help);
  EXPECT_TRUE(help);
}

}  // namespace rockperm::config
