#include "app/campaign.hpp"

#include <csv.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "app/campaign_report.hpp"

namespace rockperm::app {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return read_all_text(in);
}

bool valid_id(const std::string& id) {
  if (id.empty() || id == "." || id == ".." || id.size() > 200) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The rows of a CSV text, each a list of fields (libcsv, strict RFC 4180 quoting).
struct CsvRows {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> current;
  static void field(void* data, std::size_t size, void* self) {
    static_cast<CsvRows*>(self)->current.emplace_back(static_cast<const char*>(data), size);
  }
  static void row(int, void* self) {
    auto* r = static_cast<CsvRows*>(self);
    r->rows.push_back(std::move(r->current));
    r->current.clear();
  }
};

std::vector<std::vector<std::string>> parse_csv(const fs::path& file, std::string text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte-order mark (spreadsheets write one)
  csv_parser parser{};
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) throw Error("libcsv: cannot initialise the parser");
  CsvRows out;
  const std::size_t parsed = csv_parse(&parser, text.data(), text.size(), CsvRows::field, CsvRows::row, &out);
  const bool ok = parsed == text.size() && csv_fini(&parser, CsvRows::field, CsvRows::row, &out) == 0;
  const int error = csv_error(&parser);
  csv_free(&parser);
  if (!ok) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(parsed, text.size())), '\n');
    throw InputError("manifest " + file.string() + ", line " + std::to_string(line) + ": " + csv_strerror(error) +
                     " (a field with a comma, quote or line break must be quoted, with quotes doubled)");
  }
  return out.rows;
}

void add_sample(Manifest& m, std::set<std::string>& ids, CampaignSample s, const std::string& where) {
  if (!valid_id(s.id)) {
    throw InputError(where + ": the id '" + s.id +
                     "' cannot name a run directory; use letters, digits, '.', '_' and '-' only");
  }
  if (!ids.insert(s.id).second) throw InputError(where + ": the id '" + s.id + "' is given twice; ids must be unique");
  m.samples.push_back(std::move(s));
}

std::string quoted(const std::string& s) {
  std::string out(2 * s.size() + 2, '\0');
  out.resize(csv_write(out.data(), out.size(), s.data(), s.size()));
  return out;
}

std::string number_text(const Json& v) {
  if (!v.is_number()) return "";
  std::ostringstream o;
  o.precision(10);
  o << v.get<double>();
  return o.str();
}

// A report as last read by this process, read again only when its file changed: the summary is
// rewritten after every sample, and a campaign of thousands would otherwise parse every report
// thousands of times.
const Json& cached_report(const fs::path& file) {
  struct Entry {
    fs::file_time_type time;
    std::uintmax_t size = 0;
    Json report;
  };
  static std::map<std::string, Entry> cache;
  static const Json none;
  std::error_code ec;
  const auto time = fs::last_write_time(file, ec);
  if (ec) {
    cache.erase(file.string());
    return none;
  }
  const std::uintmax_t size = fs::file_size(file, ec);
  auto it = cache.find(file.string());
  if (it != cache.end() && it->second.time == time && it->second.size == size) return it->second.report;
  Entry e{time, size, Json()};
  try {
    e.report = Json::parse(read_text(file));
  } catch (const Json::exception&) {
    e.report = Json();
  }
  return cache.insert_or_assign(file.string(), std::move(e)).first->second.report;
}

}  // namespace

Manifest read_manifest(const fs::path& csv) {
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec)) throw InputError("manifest " + csv.string() + ": no such file; check the path");
  const std::string text = read_text(csv);
  if (text.rfind("\xFF\xFE", 0) == 0 || text.rfind("\xFE\xFF", 0) == 0 || text.find('\0') != std::string::npos) {
    throw InputError("manifest " + csv.string() +
                     ": is UTF-16 (or holds NUL bytes); save it as UTF-8 CSV (in Excel: CSV UTF-8)");
  }
  const auto rows = parse_csv(csv, text);
  if (rows.empty()) throw InputError("manifest " + csv.string() + ": empty; it needs a header row (id,input,...)");
  const std::vector<std::string>& header = rows[0];
  int id_col = -1, input_col = -1;
  std::set<std::string> columns;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    if (!columns.insert(name).second) {
      throw InputError("manifest " + csv.string() + ": the column '" + name + "' appears twice in the header");
    }
    if (name == "id") {
      id_col = static_cast<int>(c);
    } else if (name == "input") {
      input_col = static_cast<int>(c);
    } else if (name == "input.file" || name == "output.dir") {
      throw InputError("manifest " + csv.string() + ": column '" + name +
                       "' is set by the campaign (use the column 'input'; run directories are <campaign>/<id>)");
    } else if (!is_run_option(name)) {
      throw InputError("manifest " + csv.string() + ": column '" + name +
                       "' is neither id, input nor an option of rockperm run (see rockperm run --help)");
    }
  }
  if (id_col < 0 || input_col < 0) {
    throw InputError("manifest " + csv.string() + ": the header needs the columns 'id' and 'input'");
  }
  Manifest m;
  m.source = fs::absolute(csv).lexically_normal();
  const fs::path base = m.source.parent_path();
  std::set<std::string> ids;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const std::string where = "manifest " + csv.string() + ", row " + std::to_string(r + 1);
    if (row.size() == 1 && row[0].empty()) continue;  // a blank line
    if (row.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(row.size()) + " fields, but the header has " +
                       std::to_string(header.size()));
    }
    CampaignSample s;
    s.id = row[static_cast<std::size_t>(id_col)];
    const fs::path input = row[static_cast<std::size_t>(input_col)];
    if (input.empty()) throw InputError(where + ": no input");
    s.input = (input.is_absolute() ? input : base / input).lexically_normal();
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (static_cast<int>(c) != id_col && static_cast<int>(c) != input_col && !row[c].empty()) {
        s.overrides.emplace_back(header[c], row[c]);
      }
    }
    add_sample(m, ids, std::move(s), where);
  }
  if (m.samples.empty()) throw InputError("manifest " + csv.string() + ": no samples below the header");
  return m;
}

Manifest scan_directory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("scans directory " + dir.string() + ": no such directory");
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  std::set<std::string> data_of_headers;  // a .nhdr/.mhd names its data file: not a sample of its own
  for (const fs::path& p : entries) {
    const std::string ext = lower(p.extension().string());
    if (ext == ".nhdr" || ext == ".mhd") data_of_headers.insert(p.stem().string());
  }
  Manifest m;
  m.source = fs::absolute(dir).lexically_normal();
  std::set<std::string> ids;
  for (const fs::path& p : entries) {
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') continue;
    const std::string ext = lower(p.extension().string());
    const bool volume = fs::is_directory(p, ec) || ext == ".nrrd" || ext == ".nhdr" || ext == ".mhd" ||
                        ext == ".tif" || ext == ".tiff" || (ext == ".raw" && !data_of_headers.count(p.stem().string()));
    if (!volume) continue;
    CampaignSample s;
    s.id = fs::is_directory(p, ec) ? name : p.stem().string();
    s.input = fs::absolute(p).lexically_normal();
    add_sample(m, ids, std::move(s), "scans directory " + dir.string() + ", " + name);
  }
  if (m.samples.empty()) {
    throw InputError("scans directory " + dir.string() +
                     ": no volumes (.raw, .nrrd, .nhdr, .mhd, .tif, .tiff files or directories of slices)");
  }
  return m;
}

Manifest cut_subvolumes(const Manifest& manifest, const std::string& spec, const fs::path& base_ini,
                        const std::vector<std::pair<std::string, std::string>>& common, const fs::path& campaign_dir) {
  const bool centred = spec.rfind("centred:", 0) == 0 || spec.rfind("centered:", 0) == 0;
  const std::string list = centred ? spec.substr(spec.find(':') + 1) : spec;
  std::vector<std::int64_t> edges;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      std::size_t used = 0;
      const long long e = std::stoll(item, &used);
      if (used != item.size() || e < 4) throw std::invalid_argument(item);
      edges.push_back(e);
    } catch (const std::exception&) {
      throw InputError("--subvolumes " + spec + ": '" + item +
                       "' is not an edge in voxels (at least 4); give E1,E2,... or centred:E1,E2,...");
    }
  }
  if (edges.empty()) throw InputError("--subvolumes " + spec + ": no edge given");
  Manifest out;
  out.source = manifest.source;
  std::set<std::string> ids;
  for (const CampaignSample& s : manifest.samples) {
    geometry::Dims d;
    try {
      const RunOptions o = sample_options(base_ini, common, campaign_dir, s);
      d = io::open_volume(o.spec.sample.volume)->info().dims;
    } catch (const InputError&) {  // kept whole: its own run reports what is wrong with it
      add_sample(out, ids, s, "--subvolumes");
      continue;
    }
    const std::array<std::int64_t, 3> size{d.nx, d.ny, d.nz};
    for (const std::int64_t e : edges) {
      if (e > *std::min_element(size.begin(), size.end())) {
        throw InputError("--subvolumes: a cube of " + std::to_string(e) + " voxels does not fit in " + s.id + " (" +
                         std::to_string(d.nx) + " x " + std::to_string(d.ny) + " x " + std::to_string(d.nz) + ")");
      }
      std::vector<std::array<std::int64_t, 3>> corners;
      if (centred) {
        corners.push_back({(size[0] - e) / 2, (size[1] - e) / 2, (size[2] - e) / 2});
      } else {
        for (std::int64_t z = 0; z + e <= size[2]; z += e)
          for (std::int64_t y = 0; y + e <= size[1]; y += e)
            for (std::int64_t x = 0; x + e <= size[0]; x += e) corners.push_back({x, y, z});
      }
      for (const auto& c : corners) {
        CampaignSample cube = s;
        cube.parent = s.id;
        cube.edge = e;
        cube.id = s.id + "_e" + std::to_string(e) + "_" + std::to_string(c[0]) + "_" + std::to_string(c[1]) + "_" +
                  std::to_string(c[2]);
        const std::string e3 = std::to_string(e) + " " + std::to_string(e) + " " + std::to_string(e);
        cube.overrides.emplace_back("input.crop_offset", std::to_string(c[0]) + " " + std::to_string(c[1]) + " " +
                                                             std::to_string(c[2]));
        cube.overrides.emplace_back("input.crop_size", e3);
        add_sample(out, ids, std::move(cube), "--subvolumes");
      }
    }
  }
  return out;
}

RunOptions sample_options(const fs::path& base_ini, const std::vector<std::pair<std::string, std::string>>& common,
                          const fs::path& campaign_dir, const CampaignSample& sample, const OptionFiles& files) {
  std::map<std::string, std::string> values;  // one value per key: the row's over the common ones
  for (const auto& [k, v] : common) values[k] = v;
  for (const auto& [k, v] : sample.overrides) values[k] = v;
  values["input.file"] = sample.input.string();
  values["output.dir"] = (campaign_dir / sample.id).string();
  std::vector<std::string> args;
  if (!base_ini.empty()) args = {"--config", base_ini.string()};
  for (const auto& [k, v] : values) args.push_back("--" + k + "=" + v);
  bool help = false;
  return parse_run_options(args, help, false, files);
}

pipeline::RunState inspect_sample(const RunOptions& options) {
  return pipeline::inspect_run(options.spec, to_ini(options));
}

CampaignCounts write_campaign_summary(const fs::path& campaign_dir, const Manifest& manifest) {
  CampaignCounts counts;
  std::ostringstream csv;
  csv << "id,status,k_mD,k_error_estimate,porosity,connected_porosity,flow_axis,tau,steps,solve_seconds,input,"
         "input_sha256,run_directory,message,kx_mD,ky_mD,kz_mD,formation_factor,cementation_exponent,entry_pressure_Pa,"
         "breakthrough_pressure_Pa,residual_wetting_saturation,residual_nonwetting_saturation,forchheimer_k_mD,"
         "forchheimer_beta_per_m,forchheimer_c_F,reynolds_1pct,reynolds_10pct\r\n";
  Json samples = Json::array();
  for (const CampaignSample& s : manifest.samples) {
    const fs::path dir = campaign_dir / s.id;
    const Json& report = cached_report(dir / "report.json");
    const std::string status = report.is_object() ? report.value("status", "pending") : "pending";
    ++counts.samples;
    if (status == "converged") ++counts.converged;
    else if (status == "pending") ++counts.pending;
    else if (status == "interrupted") ++counts.interrupted;
    else ++counts.failed;
    const auto get = [&](const char* a, const char* b = nullptr) -> Json {
      if (!report.is_object() || !report.contains(a)) return Json();
      const Json& v = report[a];
      if (!b) return v;
      return v.is_object() && v.contains(b) ? v[b] : Json();
    };
    const bool ran = get("steps").is_number() && get("steps").get<double>() > 0;  // a failure before the first step has no numbers
    const auto numbers = [&](Json v) { return ran ? v : Json(); };
    Json row;
    row["id"] = s.id;
    row["status"] = status;
    row["k_mD"] = numbers(get("permeability", "mD"));
    row["k_error_estimate"] = numbers(get("k_error_estimate"));
    row["porosity"] = get("porosity");
    row["connected_porosity"] = get("connected_porosity");
    row["flow_axis"] = get("geometry", "flow_axis");
    row["tau"] = numbers(get("model", "tau"));
    row["steps"] = numbers(get("steps"));
    row["solve_seconds"] = numbers(get("performance", "solve_seconds"));
    row["input"] = s.input.string();
    row["input_sha256"] = get("input", "sha256");
    row["run_directory"] = s.id;
    row["message"] = get("message");
    const Json diagonal = report.is_object() && report.contains("tensor") ? report["tensor"]["diagonal_mD"] : Json();
    for (int a = 0; a < 3; ++a) {  // lbm.flow_axis = all: the tensor's diagonal
      row[std::string("k") + "xyz"[a] + "_mD"] = diagonal.is_array() && diagonal.size() == 3 ? diagonal[a] : Json();
    }
    if (diagonal.is_array()) row["flow_axis"] = "all";
    row["formation_factor"] = numbers(get("conduction", "formation_factor"));  // null where not asked or not made
    row["cementation_exponent"] = numbers(get("conduction", "cementation_exponent"));
    // capillary.curves: the curves' summary (their points and k_r are in the sample's report.json)
    for (const char* key : {"entry_pressure_Pa", "breakthrough_pressure_Pa", "residual_wetting_saturation",
                            "residual_nonwetting_saturation"}) {
      row[key] = get("two_phase", key);
    }
    // forchheimer.sweep: the fit and the onsets (the points are in the sample's report.json)
    const Json fit = get("forchheimer", "fit");
    for (const auto& [column, key] : {std::pair{"forchheimer_k_mD", "k_mD"}, std::pair{"forchheimer_beta_per_m", "beta_per_m"},
                                      std::pair{"forchheimer_c_F", "c_F"}}) {
      row[column] = fit.is_object() && fit.contains(key) ? fit[key] : Json();
    }
    row["reynolds_1pct"] = get("forchheimer", "reynolds_1pct");
    row["reynolds_10pct"] = get("forchheimer", "reynolds_10pct");
    const auto text = [&](const char* key) {
      const Json& v = row[key];
      return v.is_string() ? v.get<std::string>() : v.is_number() ? number_text(v) : std::string();
    };
    csv << quoted(s.id) << ',' << status << ',' << text("k_mD") << ',' << text("k_error_estimate") << ','
        << text("porosity") << ',' << text("connected_porosity") << ',' << text("flow_axis") << ',' << text("tau")
        << ',' << text("steps") << ',' << text("solve_seconds") << ',' << quoted(s.input.string()) << ','
        << text("input_sha256") << ',' << quoted(s.id) << ',' << quoted(text("message")) << ',' << text("kx_mD") << ','
        << text("ky_mD") << ',' << text("kz_mD") << ',' << text("formation_factor") << ','
        << text("cementation_exponent") << ',' << text("entry_pressure_Pa") << ',' << text("breakthrough_pressure_Pa")
        << ',' << text("residual_wetting_saturation") << ',' << text("residual_nonwetting_saturation") << ','
        << text("forchheimer_k_mD") << ',' << text("forchheimer_beta_per_m") << ',' << text("forchheimer_c_F") << ','
        << text("reynolds_1pct") << ',' << text("reynolds_10pct") << "\r\n";
    samples.push_back(std::move(row));
  }
  Json j;
  j["source"] = manifest.source.string();
  j["updated_utc"] = utc_timestamp();
  j["counts"] = {{"samples", counts.samples},
                 {"converged", counts.converged},
                 {"failed", counts.failed},
                 {"interrupted", counts.interrupted},
                 {"pending", counts.pending}};
  j["samples"] = std::move(samples);
  // sub-volumes: per sample and edge, the spread of k and porosity over its cubes
  std::map<std::pair<std::string, std::int64_t>, std::vector<std::pair<double, double>>> cubes;  // k, porosity
  std::map<std::pair<std::string, std::int64_t>, int> cube_count;
  for (std::size_t i = 0; i < manifest.samples.size(); ++i) {
    const CampaignSample& s = manifest.samples[i];
    if (s.parent.empty()) continue;
    ++cube_count[{s.parent, s.edge}];
    const Json& row = j["samples"][i];
    if (row["status"] != "converged" || !row["porosity"].is_number()) continue;
    if (row["k_mD"].is_number()) {
      cubes[{s.parent, s.edge}].emplace_back(row["k_mD"].get<double>(), row["porosity"].get<double>());
    } else if (row["kx_mD"].is_number()) {  // a tensor: the mean of its diagonal
      const double k = (row["kx_mD"].get<double>() + row["ky_mD"].get<double>() + row["kz_mD"].get<double>()) / 3;
      cubes[{s.parent, s.edge}].emplace_back(k, row["porosity"].get<double>());
    }
  }
  if (!cube_count.empty()) {
    std::ostringstream rev;
    rev << "sample,edge_voxels,cubes,converged,k_mean_mD,k_std_mD,k_cv,porosity_mean,porosity_std\r\n";
    for (const auto& [key, count] : cube_count) {
      const auto& v = cubes[key];
      double km = 0, pm = 0, ks = 0, ps = 0;
      for (const auto& [k, p] : v) km += k, pm += p;
      if (!v.empty()) km /= static_cast<double>(v.size()), pm /= static_cast<double>(v.size());
      for (const auto& [k, p] : v) ks += (k - km) * (k - km), ps += (p - pm) * (p - pm);
      if (v.size() > 1) ks = std::sqrt(ks / static_cast<double>(v.size() - 1)), ps = std::sqrt(ps / static_cast<double>(v.size() - 1));
      std::ostringstream line;
      line.precision(8);
      line << quoted(key.first) << ',' << key.second << ',' << count << ',' << v.size() << ',';
      if (v.empty()) {
        line << ",,,,";
      } else {
        line << km << ',' << (v.size() > 1 ? std::to_string(ks) : "") << ',' << (v.size() > 1 && km > 0 ? std::to_string(ks / km) : "")
             << ',' << pm << ',' << (v.size() > 1 ? std::to_string(ps) : "");
      }
      rev << line.str() << "\r\n";
    }
    io::write_file_atomically(campaign_dir / "subvolumes.csv", rev.str());
  }
  io::write_file_atomically(campaign_dir / "report.html", campaign_html(manifest, j));
  io::write_file_atomically(campaign_dir / "campaign.csv", csv.str());
  io::write_file_atomically(campaign_dir / "campaign.json", j.dump(2) + "\n");
  return counts;
}

std::optional<FileLock> FileLock::try_take(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(file.string() + ": cannot create the lock file");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  return FileLock(fd);
}

FileLock FileLock::wait(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(file.string() + ": cannot create the lock file");
  if (::flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    throw OutputError(file.string() + ": cannot lock");
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace rockperm::app
