#include "pipeline/relperm_store.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.hpp"

namespace rockperm::pipeline {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PhaseFlow, solved, converged, spans, k_md, kr, kr_error, steps, seconds,
                                                note)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ColourFlowPoint, asked, solved, converged, kr_w, kr_n, kr_w_error,
                                                kr_n_error, saturation, saturation_start, start, capillary_number,
                                                viscosity_ratio, wetting_spans, nonwetting_spans, flux_spread_w,
                                                flux_spread_n, fastest, flags, steps, seconds, backend, note, field)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RelPermPoint, curve, point, pc_pa, saturation, target, wetting,
                                                nonwetting, flow, field)

std::vector<RelPermPoint> load_relperm_points(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  try {
    std::ostringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str()).at("points").get<std::vector<RelPermPoint>>();
  } catch (const nlohmann::json::exception&) {
    return {};  // not ours, or cut short: made again
  }
}

void save_relperm_points(const std::filesystem::path& file, const std::vector<RelPermPoint>& points) {
  io::write_file_atomically(file, nlohmann::json{{"points", points}}.dump() + "\n");
}

}  // namespace rockperm::pipeline
