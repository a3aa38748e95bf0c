#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "app/option_table.hpp"
#include "app/options.hpp"
#include "pipeline/run_directory.hpp"
#include "lib/base/error.hpp"
#include "tests/test_support.hpp"

namespace rockperm::app {

namespace {
std::filesystem::path write_ini(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_config_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}
const char* minimal = "[input]\nfile = rock.raw\ndims = 10 20 30\nvoxel_size_um = 2.5\n";
}  // namespace

// Each choice's names are defined once, beside its enum (lib/base/names.hpp): the option, the
// library's to_string and its parse function read the same table, so every name a user may
// write parses back to the value whose name it is.
TEST(Options, EveryChoiceNameIsTheEnumsOwn) {
  const auto each = [](const auto& names, const std::string& option, auto&& get) {
    for (const auto& n : names) {
      bool help = false;
      const RunOptions o = parse_run_options({"--input.file=x.raw", "--" + option + "=" + n.name}, help, false);
      EXPECT_EQ(get(o.spec), n.value) << option << " = " << n.name;
    }
  };
  each(geometry::inlet_outlet_names, "lbm.inlet_outlet",
       [](const pipeline::RunSpec& s) { return s.flow.inlet_outlet; });
  each(geometry::edge_contact_names, "lbm.edge_contacts",
       [](const pipeline::RunSpec& s) { return s.flow.edge_contacts; });
  each(pipeline::backend_names, "run.backend", [](const pipeline::RunSpec& s) { return s.execution.backend; });
  each(pipeline::propagation_names, "run.propagation", [](const pipeline::RunSpec& s) { return s.execution.propagation; });
  each(pipeline::storage_names, "run.storage", [](const pipeline::RunSpec& s) { return s.execution.storage; });
  each(io::volume_format_names, "input.format", [](const pipeline::RunSpec& s) { return s.sample.volume.format; });
  each(physics::collision_names, "lbm.collision", [](const pipeline::RunSpec& s) { return s.flow.collision; });
  for (const auto& n : geometry::inlet_outlet_names) {
    EXPECT_STREQ(to_string(n.value), n.name);
    EXPECT_EQ(geometry::parse_inlet_outlet(n.name), n.value);
  }
  for (const auto& n : geometry::edge_contact_names) {
    EXPECT_STREQ(to_string(n.value), n.name);
    EXPECT_EQ(geometry::parse_edge_contacts(n.name), n.value);
  }
  for (const auto& n : pipeline::storage_names) EXPECT_STREQ(pipeline::to_string(n.value), n.name);
  EXPECT_THROW(geometry::parse_inlet_outlet("inflow"), InputError);
}

TEST(Options, ReadsIniAndResolvesPathsAgainstIt) {
  const auto ini = write_ini("a.ini", std::string(minimal) + "[lbm]\ntau = 0.8\nflow_axis = z\n");
  bool help = false;
  const RunOptions o = parse_run_options({"--config", ini.string()}, help);
  EXPECT_FALSE(help);
  const pipeline::RunSpec& c = o.spec;
  EXPECT_EQ(c.sample.volume.path, ini.parent_path() / "rock.raw");
  EXPECT_EQ(c.sample.volume.dims, (geometry::Dims{10, 20, 30}));
  EXPECT_DOUBLE_EQ(c.sample.volume.voxel_size_um, 2.5);
  EXPECT_DOUBLE_EQ(c.flow.tau, 0.8);
  EXPECT_EQ(c.flow.flow_axis, 2);
  EXPECT_EQ(c.flow.collision, physics::CollisionModel::trt);
  EXPECT_DOUBLE_EQ(c.flow.magic, 3.0 / 16.0);
  EXPECT_EQ(c.flow.inlet_outlet, geometry::InletOutlet::buffer);
  const geometry::Periodicity p = c.flow.periodicity();
  EXPECT_TRUE(p[2]);
  EXPECT_FALSE(p[0]);
}

TEST(Options, CommandLineOverridesTheFile) {
  const auto ini = write_ini("b.ini", std::string(minimal) + "[lbm]\ntau = 0.8\n");
  bool help = false;
  const RunOptions o = parse_run_options(
      {"--config", ini.string(), "--lbm.tau=1.2", "--run.propagation", "fused", "--input.file", "other.raw"}, help);
  EXPECT_DOUBLE_EQ(o.spec.flow.tau, 1.2);
  EXPECT_EQ(o.spec.execution.propagation, pipeline::PropagationChoice::fused);
  // command-line paths are relative to the cwd, and kept absolute (config.ini's paths are read from
  // the run directory on a resume)
  EXPECT_EQ(o.spec.sample.volume.path, (std::filesystem::current_path() / "other.raw").lexically_normal());
}

TEST(Options, BadValuesAreInputErrorsNamingTheOption) {
  const auto ini = write_ini("c.ini", minimal);
  bool help = false;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--lbm.tau=0.5", "lbm.tau"},          {"--lbm.flow_axis=w", "lbm.flow_axis"},
      {"--input.dims=10 20", "input.dims"},  {"--run.backend=gpu", "run.backend"},
      {"--lbm.force=-1", "lbm.force"},       {"--input.pore_labels=a", "pore labels"},
      {"--run.propagation=push", "run.propagation"},  {"--lbm.inlet_outlet=open", "inlet_outlet"},
      {"--lbm.lateral=periodic", "contradict"},  {"--input.type=float32", "input.type"},
      {"--input.byte_order=middle", "input.byte_order"}, {"--input.percolation_filter=maybe", "percolation_filter"},
      {"--output.progress_seconds=-1", "output.progress_seconds"}, {"--run.flux_tolerance=0", "run.flux_tolerance"},
      {"--no-such-option=1", "command line"}};
  for (const auto& [arg, name] : bad) {
    try {
      (void)parse_run_options({"--config", ini.string(), arg}, help);
      ADD_FAILURE() << arg << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(Options, MissingRequiredKeyAndMissingFile) {
  bool help = false;
  EXPECT_THROW(parse_run_options({"--input.dims=4 4 4", "--input.voxel_size_um=1"}, help), InputError);  // no file
  EXPECT_THROW(parse_run_options({"--config", "/nonexistent/x.ini"}, help), InputError);
}

TEST(Options, ResolvedIniParsesBackToTheSameConfig) {
  const auto ini = write_ini("d.ini", std::string(minimal) + "[lbm]\ncollision = bgk\ntau = 1\nforce = 2e-6\n");
  bool help = false;
  const RunOptions a = parse_run_options({"--config", ini.string()}, help);
  const auto again = write_ini("e.ini", to_ini(a));
  const RunOptions b = parse_run_options({"--config", again.string()}, help);
  EXPECT_EQ(to_ini(a), to_ini(b));
}

TEST(Options, HelpDocumentsUnits) {
  const std::string h = run_options_help();
  EXPECT_NE(h.find("micrometres"), std::string::npos);
  EXPECT_NE(h.find("lattice units"), std::string::npos);
  bool help = false;
  (void)parse_run_options({"--help"}, help);
  EXPECT_TRUE(help);
}

// docs/reference/options.md is the option table's, as generated now: an option added, renamed
// or reworded without regenerating it fails here.
TEST(Options, TheReferenceIsTheOptionTables) {
  const std::filesystem::path file = rockperm::testing::repo_file("docs/reference/options.md");
  ASSERT_FALSE(file.empty()) << "docs/reference/options.md not found above the working directory";
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text == run_options_reference())
      << "docs/reference/options.md is stale: rockperm run --options-reference > docs/reference/options.md";
  for (const Option& o : option_table()) {
    EXPECT_NE(text.find("| `" + o.key + "` |"), std::string::npos) << o.key;
  }
}

TEST(Options, EveryKeyOfTheResolvedIniIsAnOptionAndTypedValuesRoundTrip) {
  const auto ini = write_ini("f.ini", std::string(minimal) +
                                          "crop_offset = 1 2 3\ncrop_size = 4 5 6\n[lbm]\ninlet_outlet = mirror\n"
                                          "edge_contacts = sealed\n[run]\ndevices = 0,2\nflux_tolerance = 0.001\n[output]\n"
                                          "fields_crop_offset = 7 8 9\nprogress_seconds = 0\n");
  bool help = false;
  const RunOptions o = parse_run_options({"--config", ini.string()}, help);
  EXPECT_EQ(o.spec.sample.volume.crop.offset, (std::array<std::int64_t, 3>{1, 2, 3}));
  EXPECT_EQ(o.spec.sample.volume.crop.size, (std::array<std::int64_t, 3>{4, 5, 6}));
  EXPECT_EQ(o.spec.flow.inlet_outlet, geometry::InletOutlet::mirror);
  EXPECT_EQ(o.spec.flow.edge_contacts, geometry::EdgeContacts::sealed);
  EXPECT_EQ(o.spec.execution.devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(o.spec.output.fields.crop.offset, (std::array<std::int64_t, 3>{7, 8, 9}));
  EXPECT_FALSE(o.spec.execution.monitor.auto_flux_tolerance);
  EXPECT_EQ(o.spec.execution.monitor.flux_limit(), 1e-3);
  EXPECT_EQ(o.spec.output.progress_seconds, 0.0);
  const std::string text = to_ini(o);
  for (const char* line : {"crop_offset = 1 2 3", "inlet_outlet = mirror", "edge_contacts = sealed", "devices = 0,2",
                           "fields_crop_offset = 7 8 9", "flux_tolerance = 0.001", "progress_seconds = 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " missing from\n" << text;
  }
}

// Audit finding 4: inf, nan, 1e300 and 1e-300 were accepted (k = null or 0, runs that never
// converge or diverge). A fuzz test of every option: each value either gives a spec that
// validates (every number finite and in its range) or one InputError or PhysicsError naming the
// option. Deterministic: a fixed seed, so that a failure repeats.
TEST(Options, FuzzedValuesOfEveryOptionAreAcceptedInRangeOrRefusedNamingTheOption) {
  const auto ini = write_ini("fuzz.ini", minimal);
  bool help = false;
  std::vector<std::string> keys;
  {
    std::istringstream text(to_ini(parse_run_options({"--config", ini.string()}, help)));
    std::string section;
    for (std::string line; std::getline(text, line);) {
      if (line.size() > 2 && line.front() == '[') section = line.substr(1, line.size() - 2);
      const auto eq = line.find(" = ");
      if (eq != std::string::npos && line.front() != '#') keys.push_back(section + "." + line.substr(0, eq));
    }
  }
  ASSERT_GT(keys.size(), 30u);
  std::vector<std::string> values = {"inf",  "-inf", "nan", "NaN", "1e300", "-1e300", "1e-300", "1e-310", "1e400", "0",
                                     "-0",   "-1",   "1",   "0.5", "1e9",   "4294967297", "9223372036854775808",
                                     "",     " ",    "abc", "0x10", "1,2",  "3 ", "1 2 3", "-1 -2 -3", "1e9 1 1",
                                     "auto", "on",   "off", "x",   "z",     "\xff\xfe", "0.51", "1e-5", "100000"};
  std::mt19937_64 random(20261125);
  for (int i = 0; i < 40; ++i) {
    std::ostringstream v;
    v << std::uniform_real_distribution<double>(-10, 10)(random) << "e"
      << std::uniform_int_distribution<int>(-320, 320)(random);
    values.push_back(v.str());
  }
  int accepted = 0, refused = 0;
  for (const std::string& key : keys) {
    if (key == "input.file" || key == "output.dir") continue;  // paths: any text is a name
    for (const std::string& value : values) {
      std::string message;
      try {
        const RunOptions o = parse_run_options({"--config", ini.string(), "--" + key + "=" + value}, help);
        const pipeline::RunSpec& s = o.spec;
        for (const double x : {s.sample.volume.voxel_size_um, s.flow.tau, s.flow.force, s.flow.magic,
                               s.execution.monitor.tolerance, s.execution.monitor.flux_tolerance,
                               s.execution.checkpoint_minutes, s.execution.walltime_minutes, s.output.progress_seconds,
                               s.output.fields.viscosity_pa_s, s.output.fields.pressure_gradient_pa_per_m}) {
          EXPECT_TRUE(std::isfinite(x)) << key << " = '" << value << "' accepted, leaving a number " << x;
        }
        EXPECT_NO_THROW(s.validate()) << key << " = '" << value << "'";
        ++accepted;
        continue;
      } catch (const InputError& e) {
        message = e.what();
      } catch (const PhysicsError& e) {
        message = e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << key << " = '" << value << "': not an input error but " << e.what();
        continue;
      }
      ++refused;
      EXPECT_NE(message.find(key), std::string::npos) << key << " = '" << value << "': the message does not name it: "
                                                      << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << key << " = '" << value << "': not one line: " << message;
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 1000);
  // the audit's values, each refused
  for (const char* option : {"--input.voxel_size_um=inf", "--input.voxel_size_um=1e300", "--input.voxel_size_um=1e-300",
                             "--lbm.force=inf", "--run.tolerance=inf", "--run.checkpoint_minutes=nan",
                             "--run.walltime_minutes=nan", "--output.pressure_gradient_pa_per_m=inf",
                             "--lbm.buffer_layers=1000000000"}) {
    EXPECT_THROW(parse_run_options({"--config", ini.string(), option}, help), InputError) << option;
  }
}

TEST(Options, LibraryErrorsAreShownWithTheOptionThatSetsTheField) {
  EXPECT_EQ(option_names_for("sample.volume.crop"), "input.crop_offset, input.crop_size");
  EXPECT_EQ(option_names_for("flow.tau"), "lbm.tau");
  EXPECT_EQ(option_names_for("output.fields.crop"), "output.fields_crop_offset, output.fields_crop_size");
  EXPECT_EQ(option_message(InputError("sample.volume.voxel_size_um", "rock.raw: the voxel size is unknown")),
            "rock.raw: the voxel size is unknown (option input.voxel_size_um)");
  EXPECT_EQ(option_message(InputError("no field")), "no field");
}

TEST(Options, AnOutputDirectoryThatCannotBeCreatedIsRejectedBeforeAnyWork) {
  const auto blocker = write_ini("not_a_dir", "x");
  bool help = false;
  RunOptions o = parse_run_options({"--config", write_ini("g.ini", minimal).string()}, help);
  o.spec.output.dir = blocker / "run";
  try {
    const pipeline::RunDirectory directory(parallel::Comm(), o.spec.output.dir, pipeline::DirectoryUse::fresh);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "output.dir");
    EXPECT_EQ(option_message(e).find("(option output.dir)") != std::string::npos, true) << option_message(e);
  }
  o.spec.output.fields.viscosity_pa_s = 0;
  EXPECT_THROW(validate_run_options(o), InputError);
}

// input.grey_labels = @FILE: a table of grey phases, relative to the INI file's folder, with a
// header and comments; config.ini keeps the phases themselves (a run never reads the table again).
TEST(Options, GreyLabelsFromATableFile) {
  write_ini("grey.csv", "label,porosity,k\n2, 0.2, 0.05mD  # micrite\n\n3-4;0.1;1e-3D\n");
  const auto ini = write_ini("g.ini", std::string(minimal) + "grey_labels = @grey.csv\n");
  bool help = false;
  const RunOptions o = parse_run_options({"--config", ini.string()}, help);
  ASSERT_EQ(o.spec.sample.grey_phases.size(), 2u);
  EXPECT_DOUBLE_EQ(o.spec.sample.grey_phases[0].porosity, 0.2);
  EXPECT_NEAR(o.spec.sample.grey_phases[1].permeability_m2, 1e-3 * 9.869233e-13, 1e-27);
  EXPECT_EQ(to_ini(o).find("@grey.csv"), std::string::npos);
  write_ini("bad.csv", "2,0.2\n");
  try {
    (void)parse_run_options({"--config", ini.string(), "--input.grey_labels=@" + (ini.parent_path() / "bad.csv").string()},
                            help);
    FAIL() << "a line without k was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: 2 columns; write label,porosity,k"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_run_options({"--config", ini.string(), "--input.grey_labels=@/no/such/table.csv"}, help),
               InputError);
}

// input.grey_map and input.grey_law: grey phases from CT intensities; config.ini keeps the map (not
// its phases) and reads back to the same phases; a map is refused half given, beside grey labels,
// or beside pore labels of its own.
TEST(Options, GreyMapFromIntensities) {
  const auto ini = write_ini("m.ini", std::string(minimal) + "grey_map = 40:200\ngrey_law = kozeny-carman:0.5mD@0.3\n");
  bool help = false;
  const RunOptions o = parse_run_options({"--config", ini.string()}, help);
  const std::vector<geometry::GreyPhase> phases = o.spec.sample.grey();
  ASSERT_EQ(phases.size(), 159u);
  EXPECT_EQ(o.spec.sample.open_labels().str(), "0-40");
  const std::string config = to_ini(o.spec);
  EXPECT_NE(config.find("grey_map = 40:200\n"), std::string::npos) << config;
  EXPECT_NE(config.find("grey_labels = \n"), std::string::npos) << config;
  const auto again = write_ini("m2.ini", config);
  const RunOptions back = parse_run_options({"--config", again.string()}, help);
  const std::vector<geometry::GreyPhase> phases_back = back.spec.sample.grey();
  ASSERT_EQ(phases_back.size(), phases.size());
  for (std::size_t c = 0; c < phases.size(); ++c) {
    EXPECT_EQ(phases_back[c].permeability_m2, phases[c].permeability_m2);
    EXPECT_EQ(phases_back[c].labels.str(), phases[c].labels.str());
  }
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& option) {
    std::vector<std::string> args{"--config", ini.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      (void)parse_run_options(args, help);
      ADD_FAILURE() << "accepted: " << extra.front();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  };
  refused({"--input.grey_law="}, "input.grey_law");
  refused({"--input.grey_labels=100:0.2:1mD"}, "input.grey_map");
  refused({"--input.pore_labels=0-10"}, "input.pore_labels");
  refused({"--input.grey_map=40:41"}, "input.grey_map");
}

// Issue 49: a grey table's rows as a spreadsheet writes them, and its errors. Excel's "CSV UTF-8"
// starts with a byte-order mark, which made the first row read as a header and dropped without a
// message; an error from a row named the inline form and quoted the file's content (through the
// service, any file's); a NUL cut the message.
TEST(Options, GreyTableRowsAsSpreadsheetsWriteThemAndErrorsThatNameFileLineAndColumn) {
  write_ini("bom.csv", "\xEF\xBB\xBF" "2,0.2,0.05mD\n3,0.1,1mD\n");
  const auto ini = write_ini("b.ini", std::string(minimal) + "grey_labels = @bom.csv\n");
  bool help = false;
  ASSERT_EQ(parse_run_options({"--config", ini.string()}, help).spec.sample.grey_phases.size(), 2u);
  const auto message = [&](const std::string& table) -> std::string {
    write_ini("t.csv", table);
    try {
      (void)parse_run_options({"--config", ini.string(), "--input.grey_labels=@" + (ini.parent_path() / "t.csv").string()},
                              help);
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string porosity = message("label,porosity,k\n2,0.2,5mD\n3,secret-token-ABC,1mD\n");
  EXPECT_NE(porosity.find("t.csv line 3: column 2 (porosity)"), std::string::npos) << porosity;
  EXPECT_EQ(porosity.find("secret-token-ABC"), std::string::npos) << porosity;
  EXPECT_NE(message("70000,0.2,1mD\n").find("line 1: column 1 (label)"), std::string::npos);
  EXPECT_NE(message("2,0.2,abcmD\n").find("line 1: column 3 (k)"), std::string::npos);
  EXPECT_NE(message("2,0.2,1e-300mD\n").find("line 1: column 3 (k)"), std::string::npos);
  EXPECT_NE(message("secret-token-ABC:foo:bar\n1,2\n").find("line 2: 2 columns"), std::string::npos);
  // a fourth column: the phase's cementation exponent (issue 51)
  EXPECT_EQ(message("2,0.2,5mD,1.8\n3,0.1,1mD\n"), "accepted");
  EXPECT_NE(message("2,0.2,5mD,7\n").find("line 1: column 4 (m)"), std::string::npos);
  EXPECT_NE(message("2,0.2,5mD,1.8,3\n").find("line 1: 5 columns"), std::string::npos);
  const std::string nul = message(std::string("2,0.2,1mD\n3,0.1\0,1mD\n", 22));
  EXPECT_NE(nul.find("line 2: holds a NUL byte"), std::string::npos) << nul;
  // not a regular file, and a table larger than any table of phases
  EXPECT_NE(message("").find("holds no phase"), std::string::npos);
  try {
    (void)parse_run_options({"--config", ini.string(), "--input.grey_labels=@/dev/zero"}, help);
    ADD_FAILURE() << "/dev/zero was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_NE(message(std::string(max_option_file_bytes + 1, '#')).find("more than"), std::string::npos);
}

// Issue 49: the service's confinement of a file a job's option names (OptionFiles): inside the
// job's folder only, relative names from the scan's folder, a file outside and a missing one
// refused alike; a file named in the operator's INI file is not confined.
TEST(Options, FilesNamedByOptionsAreConfinedWhereTheCallerSaysSo) {
  const auto job = write_ini("outside.csv", "").parent_path() / "job";
  std::filesystem::create_directories(job);
  std::filesystem::remove(job / "zero.csv");
  std::ofstream(job / "greys.csv") << "2,0.2,0.05mD\n";
  const auto outside = write_ini("outside.csv", "2,0.2,0.05mD\n");
  const auto ini = write_ini("c.ini", std::string(minimal));
  const OptionFiles files{{job}, job};
  bool help = false;
  const auto with = [&](const std::string& value) {
    return parse_run_options({"--config", ini.string(), "--input.grey_labels=" + value}, help, true, files);
  };
  EXPECT_EQ(with("@greys.csv").spec.sample.grey_phases.size(), 1u);  // relative to the scan's folder
  std::string refusals[3];
  const std::string names[3] = {"@" + outside.string(), "@../outside.csv", "@/no/such/file.csv"};
  for (int i = 0; i < 3; ++i) {
    try {
      (void)with(names[i]);
      ADD_FAILURE() << names[i] << " was read";
    } catch (const InputError& e) {
      refusals[i] = e.what();
      EXPECT_NE(refusals[i].find("is not a file inside this job's upload"), std::string::npos) << refusals[i];
    }
  }
  std::filesystem::create_symlink("/dev/zero", job / "zero.csv");
  EXPECT_THROW((void)with("@zero.csv"), InputError);
  // the operator's INI file may name a table anywhere
  const auto trusted = write_ini("t.ini", std::string(minimal) + "grey_labels = @outside.csv\n");
  EXPECT_EQ(parse_run_options({"--config", trusted.string()}, help, true, files).spec.sample.grey_phases.size(), 1u);
  std::filesystem::remove(job / "zero.csv");
}

// Issue 49: numbers are decimal: "0x10mD" was read as 16 mD (stod reads hexadecimal), and a grey
// k of 1e-300 mD or 1e300 D passed to diverge or mislead later.
TEST(Options, GreyPermeabilitiesAreDecimalAndWithinAPhysicalRange) {
  const auto ini = write_ini("h.ini", std::string(minimal));
  bool help = false;
  for (const std::string bad : {"2:0.2:0x10mD", "2:0x0.4:1mD", "2:0.2:1e-300mD", "2:0.2:1e300D"}) {
    EXPECT_THROW((void)parse_run_options({"--config", ini.string(), "--input.grey_labels=" + bad}, help), InputError)
        << bad;
  }
  EXPECT_THROW((void)parse_run_options({"--config", ini.string(), "--lbm.tau=0x1"}, help), InputError);
  EXPECT_THROW((void)parse_run_options({"--config", ini.string(), "--input.grey_law=power:0x10mD@0.5:3",
                                        "--input.grey_map=40:200"}, help), InputError);
  try {
    (void)parse_run_options({"--config", ini.string(), "--input.grey_labels=70000:0.2:1mD"}, help);
    ADD_FAILURE() << "label 70000 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grey labels"), std::string::npos) << e.what();  // not "pore labels"
  }
  const RunOptions ok = parse_run_options({"--config", ini.string(), "--input.grey_labels=2:0.2:1e-9mD, 3:0.3:1e5D"}, help);
  EXPECT_EQ(ok.spec.sample.grey_phases.size(), 2u);
}

}  // namespace rockperm::app
