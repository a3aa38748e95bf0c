#pragma once
// The campaign's report.html (app/campaign.hpp writes it beside campaign.json, from the same table).
#include <nlohmann/json.hpp>
#include <string>

#include "app/campaign.hpp"

namespace rockperm::app {

// k against porosity (log axes) with a Kozeny-Carman fit through the converged samples, the
// failures, and a row per sample (with kx, ky, kz for a tensor) linking to its own report.
std::string campaign_html(const Manifest& manifest, const nlohmann::ordered_json& summary);

}  // namespace rockperm::app
