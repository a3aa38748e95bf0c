#pragma once
#include <string>
#include <vector>

namespace rockperm::app {

int run_command(const std::vector<std::string>& args);
int campaign_command(const std::vector<std::string>& args);
int serve_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int plan_command(const std::vector<std::string>& args);
int devices_command();

}  // namespace rockperm::app
