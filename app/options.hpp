#pragma once
// The options of `rockperm run` and `plan`: one table, from which the command-line and INI
// parsing, `--help` and the resolved config.ini are all generated, and which maps the library's
// spec fields back to option names in messages. Every INI key can be given on the command line
// as --section.key=value and then overrides the file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/base/error.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::app {

struct RunOptions {
  std::filesystem::path config_file;
  pipeline::RunSpec spec;
  bool overwrite = false;  // --overwrite: replace the results of an earlier run in output.dir
  bool resume = false;     // --resume DIR: continue DIR's checkpoint with DIR/config.ini
};

// Files that options name (input.grey_labels = @FILE): a regular file of at most
// max_option_file_bytes everywhere; one given in the arguments (not in the INI file) must resolve
// inside one of `inside` where that is not empty (the service: the job's upload, the spool folder or
// the data root of its scan), and resolves from `relative_to` where it is relative (empty: the
// working directory; the INI file's folder for names in the INI file).
inline constexpr std::uint64_t max_option_file_bytes = 1 << 20;
struct OptionFiles {
  std::vector<std::filesystem::path> inside;
  std::filesystem::path relative_to;
};

// Parses the arguments (without the command name). Throws InputError naming the option or
// file. Sets `help` instead when --help is among them. Flow and execution are validated; the
// output (directory created and writable) is left to the commands that write.
// `validate` false leaves the checks of validate_run_options to the caller (rockperm run makes
// them once it owns the run directory, so that their failure leaves a report).
RunOptions parse_run_options(const std::vector<std::string>& args, bool& help, bool validate = true,
                             const OptionFiles& files = {});

// The checks of values that parse but do not go together or are out of range (flow and
// execution specs); throws InputError or PhysicsError naming the option.
void validate_run_options(const RunOptions& options);

// The option reference printed by `rockperm run --help`.
std::string run_options_help();
// docs/reference/options.md: every option of the table (the same text as --help) as Markdown
// tables by section; `rockperm run --options-reference` prints it (a test keeps the file current).
std::string run_options_reference();

// The resolved configuration as an INI file (config.ini of the run directory).
std::string to_ini(const pipeline::RunSpec& spec);
inline std::string to_ini(const RunOptions& options) { return to_ini(options.spec); }

// The message of an InputError as the command line shows it: the detail and the options that
// set the rejected spec field, or what() when no option does.
std::string option_message(const InputError& error);

// "64 64 64" (or 64x64x64, 64,64,64) as dimensions; the message names `option`.
geometry::Dims parse_dims(const std::string& text, const std::string& option);

// A command's numeric argument (plan's --ranks, bench's --steps): the whole text a decimal number
// in [lo, hi] (and whole where `integer`), else InputError naming `name` and the range.
double bounded_number(const std::string& name, const std::string& text, double lo, double hi, bool integer);
// The most ranks plan lays out (1e9 ranks asked for a billion slabs' memory).
inline constexpr double max_plan_ranks = 65536;

// Whether `key` (section.key, e.g. "lbm.flow_axis") is an option of rockperm run.
bool is_run_option(const std::string& key);

// "input.crop_offset, input.crop_size" for the spec field "sample.volume.crop"; "" when no
// option sets it.
std::string option_names_for(const std::string& field);

}  // namespace rockperm::app
