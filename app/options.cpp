#include "app/options.hpp"
#include "app/option_table.hpp"

#include <boost/program_options.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/base/number.hpp"
#include "lib/base/system.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace po = boost::program_options;

namespace rockperm::app {

namespace {

using pipeline::RunSpec;

// The whole of a file named by an option, as OptionFiles allows: a regular file (opened first and
// then examined, so no pipe or device is read), within the folders where there are any, of at most
// max_option_file_bytes. Messages name the file as it was given (`shown`), never its content, and
// where the file is confined, a missing file and one outside read alike.
std::string option_file_text(const std::filesystem::path& file, const std::string& shown, const OptionFiles& files,
                             bool confined) {
  namespace fs = std::filesystem;
  if (confined && !files.inside.empty()) {
    const bool inside = std::any_of(files.inside.begin(), files.inside.end(),
                                    [&](const fs::path& folder) { return io::resolves_inside(file, folder); });
    if (!inside) {
      throw InputError("the file " + shown + " is not a file inside this job's upload, spool folder or data root; "
                       "name one that is, by its path relative to the scan's folder");
    }
  }
  FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    std::error_code ec;
    throw InputError("the file " + shown + (fs::exists(file, ec) ? ": cannot be read (permissions?)" : ": no such file; check the path"));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw InputError("the file " + shown + ": not a regular file (a directory, pipe, socket or device); save it to a file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_option_file_bytes) {
    throw InputError("the file " + shown + ": " + size_text(static_cast<std::uint64_t>(st.st_size)) +
                     ", more than an option's file may hold (" + size_text(max_option_file_bytes) + ")");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError("the file " + shown + ": cannot be read");
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

// A table of grey phases (input.grey_labels = @FILE), one per line as label,porosity,k or
// label,porosity,k,m (also with ';' or tabs between): the "label:porosity:k, ..." text parse_grey_phases reads. A UTF-8
// byte-order mark (Excel's "CSV UTF-8"), a first line that is not a phase (a header), blank lines
// and # comments are skipped. An error names the file, the line and the column, not the content.
std::string grey_table_text(const std::string& content, const std::string& shown) {
  std::string text = content;
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::istringstream in(text);
  std::string out, line;
  const auto at = [&](int n) { return "the grey-label table " + shown + " line " + std::to_string(n) + ": "; };
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find('\0') != std::string::npos) {
      throw InputError(at(n) + "holds a NUL byte: not a text table (save it as CSV)");
    }
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    for (char& c : line) {
      if (c == ',' || c == ';' || c == '\t') c = ':';
    }
    line.erase(std::remove_if(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); }), line.end());
    if (line.empty()) continue;
    if (n == 1 && !std::isdigit(static_cast<unsigned char>(line[0]))) continue;  // a header
    const auto columns = std::count(line.begin(), line.end(), ':') + 1;
    if (columns != 3 && columns != 4) {
      throw InputError(at(n) + std::to_string(columns) +
                       " columns; write label,porosity,k or label,porosity,k,m (e.g. 2,0.2,0.05mD or 2,0.2,0.05mD,1.8)");
    }
    try {
      (void)geometry::parse_grey_phases(line);
    } catch (const InputError&) {  // which column, without quoting it
      const std::size_t a = line.find(':'), b = line.find(':', a + 1), c = line.find(':', b + 1);
      std::string column = "3 (k) is not a permeability with a unit (mD, D, um2 or m2) between 1e-9 mD and 1e9 mD, "
                           "e.g. 0.05mD";
      if (c != std::string::npos) {  // k may be right and m wrong
        try {
          (void)geometry::parse_grey_phases(line.substr(0, c));
          column = "4 (m) is not a cementation exponent in [1, 5]";
        } catch (const InputError&) {
        }
      }
      try {
        (void)geometry::LabelSelection::parse(line.substr(0, a), "grey labels");
        const auto phi = decimal_number(line.substr(a + 1, b - a - 1));
        if (!phi || !(*phi > 0 && *phi <= 1)) column = "2 (porosity) is not a number in (0, 1]";
      } catch (const InputError&) {
        column = "1 (label) is not a label in 0..65535 or a range low-high";
      }
      throw InputError(at(n) + "column " + column);
    }
    out += (out.empty() ? "" : ",") + line;
  }
  if (out.empty()) throw InputError("the grey-label table " + shown + " holds no phase");
  return out;
}

po::options_description described(bool with_help_text) {
  po::options_description all;
  std::string section;
  std::unique_ptr<po::options_description> group;
  const auto flush = [&] {
    if (group) all.add(*group);
  };
  for (const Option& o : option_table()) {
    const std::string s = o.key.substr(0, o.key.find('.'));
    if (s != section) {
      flush();
      section = s;
      group = std::make_unique<po::options_description>("[" + s + "]");
    }
    group->add_options()(o.key.c_str(),
                         po::value<std::string>()->default_value(o.default_text,
                                                                 o.default_text.empty() ? "\"\"" : o.default_text),
                         with_help_text ? o.help.c_str() : "");
  }
  flush();
  return all;
}

}  // namespace

geometry::Dims parse_dims(const std::string& text, const std::string& option) {
  try {
    const auto d = parse_triple(text);
    const geometry::Dims dims{d[0], d[1], d[2]};
    geometry::validate_dims(dims, "the dimensions");
    return dims;
  } catch (const InputError& e) {
    throw InputError("option " + option + " = '" + text + "': " + e.detail());
  }
}

std::string option_message(const InputError& error) {
  const std::string names = option_names_for(error.field());
  if (names.empty()) return error.what();
  return error.detail() + " (option " + names + ")";
}

double bounded_number(const std::string& name, const std::string& text, double lo, double hi, bool integer) {
  const std::optional<double> v = decimal_number(text);
  if (!v || *v < lo || *v > hi || (integer && *v != std::floor(*v))) {
    std::ostringstream range;
    range << lo << " to " << hi;
    throw InputError(name + " '" + text + "': give " + (integer ? "a whole number" : "a number") + " from " +
                     range.str());
  }
  return *v;
}

bool is_run_option(const std::string& key) {
  for (const Option& o : option_table()) {
    if (o.key == key) return true;
  }
  return false;
}

std::string option_names_for(const std::string& field) {
  std::string names;
  for (const Option& o : option_table()) {
    if (o.field == field) names += (names.empty() ? "" : ", ") + o.key;
  }
  return names;
}

std::string run_options_help() {
  std::ostringstream out;
  out << "usage: rockperm run --config FILE.ini [--overwrite] [--section.key=value ...]\n"
         "       rockperm run --resume DIR [--section.key=value ...]\n\n"
         "Every INI key can be given on the command line as --section.key=value and then overrides the file.\n\n"
         "  --config FILE.ini    the run configuration (INI)\n"
         "  --overwrite          replace the results of an earlier run in output.dir (removed first)\n"
         "  --resume DIR         continue the run in DIR from its checkpoint.rpk, with DIR/config.ini\n"
         "  --help               this text\n"
      << described(true);
  return out.str();
}

std::string run_options_reference() {
  std::ostringstream out;
  out << "# Options of `rockperm run`\n\n"
         "Generated from the option table (`app/option_table.cpp`), the same text as `rockperm run --help`;\n"
         "do not edit: `rockperm run --options-reference > docs/reference/options.md` writes it again, and\n"
         "the test `Options.TheReferenceIsTheOptionTables` fails while it is stale.\n\n"
         "Every key goes in the INI file under its `[section]` (`key = value`) or on the command line as\n"
         "`--section.key=value`, which overrides the file. Campaign manifests take the same keys as\n"
         "columns, the service's `options` object and Python's `options` dictionary the same names.\n";
  std::string section;
  const auto cell = [](std::string text) {
    std::string o;
    for (const char c : text) o += c == '|' ? std::string("\\|") : (c == '\n' ? std::string(" ") : std::string(1, c));
    return o;
  };
  for (const Option& o : option_table()) {
    const std::string s = o.key.substr(0, o.key.find('.'));
    if (s != section) {
      section = s;
      out << "\n## [" << s << "]\n\n| option | default | what it does |\n| --- | --- | --- |\n";
    }
    out << "| `" << o.key << "` | " << (o.default_text.empty() ? "(none)" : "`" + cell(o.default_text) + "`") << " | "
        << cell(o.help) << " |\n";
  }
  return out.str();
}

void validate_run_options(const RunOptions& options) {
  const pipeline::RunSpec& spec = options.spec;
  // a scan is not periodic across its lateral faces, and buffers around a laterally periodic
  // sample would wrap the scan's sides into each other: the command line keeps them apart
  if (spec.flow.inlet_outlet == geometry::InletOutlet::buffer && spec.flow.any_lateral_periodic()) {
    throw InputError("lbm.lateral = periodic contradicts lbm.inlet_outlet = buffer (the buffers need sealed lateral "
                     "faces); use lateral = sealed, or inlet_outlet = mirror or periodic");
  }
  try {
    spec.validate();  // its parts, and what ties them (k or F made; F alone on one axis)
  } catch (const InputError& e) {
    throw InputError(option_message(e));
  }
}

RunOptions parse_run_options(const std::vector<std::string>& args, bool& help, bool validate, const OptionFiles& files) {
  po::options_description generic;
  generic.add_options()("config", po::value<std::string>())("help,h", "")("overwrite", "")(
      "resume", po::value<std::string>());
  po::options_description cmdline;
  cmdline.add(generic).add(described(false));
  po::variables_map cli;
  try {
    // no positional arguments: "run --config a.ini b.ini" is an error, not a silently ignored b.ini
    po::store(po::command_line_parser(args).options(cmdline).positional({}).run(), cli);
  } catch (const po::error& e) {
    throw InputError(std::string("command line: ") + e.what() + "; see rockperm run --help");
  }
  help = cli.count("help") > 0;
  RunOptions out;
  if (help) return out;
  out.overwrite = cli.count("overwrite") > 0;
  if (cli.count("resume")) {
    // the run directory's own resolved configuration, with the command line's overrides
    if (cli.count("config")) throw InputError("--resume DIR takes its configuration from DIR/config.ini; drop --config");
    if (out.overwrite) throw InputError("--resume and --overwrite contradict each other; choose one");
    out.resume = true;
    out.config_file = std::filesystem::path(cli["resume"].as<std::string>()) / "config.ini";
  } else if (cli.count("config")) {
    out.config_file = cli["config"].as<std::string>();
  }

  po::variables_map vm = cli;
  std::filesystem::path base = std::filesystem::current_path();
  if (!out.config_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(out.config_file, ec)) {
      throw InputError("config file " + out.config_file.string() +
                       (std::filesystem::is_directory(out.config_file, ec) ? ": is a directory; give the INI file"
                        : std::filesystem::exists(out.config_file, ec)
                            ? ": not a regular file (a pipe, socket or device); save the configuration to a file"
                            : ": no such file; check the path"));
    }
    std::ifstream in(out.config_file, std::ios::binary);
    std::string text = read_all_text(in);
    if (!in && !in.eof()) throw InputError("config file " + out.config_file.string() + ": cannot be read");
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte-order mark (Windows editors)
    std::istringstream stream(text);
    try {
      po::store(po::parse_config_file(stream, described(false), false), vm);
    } catch (const po::error& e) {
      throw InputError("config file " + out.config_file.string() + ": " + e.what());
    }
    base = std::filesystem::absolute(out.config_file).parent_path();
  }
  po::notify(vm);

  for (const Option& o : option_table()) {
    std::string text = vm[o.key].as<std::string>();
    try {
      // grey labels from a table file: read here, where the INI file's folder is known
      if (o.key == "input.grey_labels" && text.rfind('@', 0) == 0) {
        const std::string shown = text.substr(1);
        std::filesystem::path table_file = shown;
        const bool given_here = cli.count(o.key) && !cli[o.key].defaulted();
        if (table_file.is_relative()) {
          table_file = !given_here ? base / table_file : files.relative_to.empty() ? table_file : files.relative_to / table_file;
        }
        // a file named in the INI file is the configuration's author's; one given here is confined
        o.set(out.spec, grey_table_text(option_file_text(table_file, shown, files, given_here), shown));
        continue;
      }
      o.set(out.spec, text);
    } catch (const InputError& e) {
      throw InputError("option " + o.key + " = '" + text + "': " + e.detail());
    }
  }
  if (out.spec.sample.volume.path.empty()) {
    throw InputError("option input.file is required; set it in the [input] section or as --input.file");
  }
  // a path from the INI file is relative to the INI file; one from the command line to the cwd
  std::filesystem::path& file = out.spec.sample.volume.path;
  const bool from_command_line = cli.count("input.file") && !cli["input.file"].defaulted();
  if (file.is_relative() && !from_command_line) file = base / file;
  // and kept absolute: config.ini's paths are read from the run directory on --resume, where a path
  // relative to the working directory would name another file (the service gives its own)
  if (file.is_relative() && from_command_line && files.relative_to.empty()) file = std::filesystem::absolute(file);
  file = file.lexically_normal();
  if (out.resume) {
    const std::filesystem::path dir = out.config_file.parent_path();
    if (cli.count("output.dir") && !cli["output.dir"].defaulted() &&
        std::filesystem::weakly_canonical(out.spec.output.dir) != std::filesystem::weakly_canonical(dir)) {
      throw InputError("--resume " + dir.string() + " continues in that directory; drop --output.dir");
    }
    out.spec.output.dir = dir;
  }
  if (out.spec.output.dir.empty()) {
    const std::string stem = out.config_file.empty() ? std::string("rockperm") : out.config_file.stem().string();
    out.spec.output.dir = std::filesystem::current_path() / (stem + ".out");
  }
  if (validate) validate_run_options(out);
  return out;
}

std::string to_ini(const pipeline::RunSpec& spec) {
  std::ostringstream o;
  o << "# resolved configuration of this run\n";
  std::string section;
  for (const Option& opt : option_table()) {
    const std::string s = opt.key.substr(0, opt.key.find('.'));
    if (s != section) {
      o << (section.empty() ? "" : "\n") << "[" << s << "]\n";
      section = s;
    }
    o << opt.key.substr(opt.key.find('.') + 1) << " = " << opt.get(spec) << "\n";
  }
  return o.str();
}

}  // namespace rockperm::app
