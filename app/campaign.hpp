#pragma once
// A permeability campaign: many samples, each run the way `rockperm run` runs one (run_sample),
// each in its own run directory <campaign>/<id>/, with one summary (campaign.csv, campaign.json)
// rewritten after every sample. What is on disk is the state: a sample whose report matches its
// input's hash and its configuration is done; one with a checkpoint of the same configuration is
// resumed; anything else runs (again). So the same command, re-run, continues where it stopped,
// and several processes (MPI ranks, Slurm array tasks) can share one campaign: each sample is
// claimed with a lock file for as long as one of them works on it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/options.hpp"
#include "pipeline/run_directory.hpp"

namespace rockperm::app {

struct CampaignSample {
  std::string id;                   // the run directory's name: letters, digits, '.', '_', '-'
  std::filesystem::path input;      // absolute
  std::vector<std::pair<std::string, std::string>> overrides;  // option key, value (this sample only)
  std::string parent;               // a sub-volume: the id of the sample it is cut from
  std::int64_t edge = 0;            // a sub-volume: its edge in voxels
};

struct Manifest {
  std::filesystem::path source;  // the CSV file or the directory of scans
  std::vector<CampaignSample> samples;
};

// A CSV table (RFC 4180, through libcsv) with a header row: the columns `id` and `input` (a path
// relative to the table's folder) and any option of `rockperm run` by its key (lbm.flow_axis,
// input.dims, ...) whose non-empty cells override the base configuration for that row. Throws
// InputError naming the file, the line and the column.
Manifest read_manifest(const std::filesystem::path& csv);

// Every volume in `dir`: files ending in .raw, .nrrd, .nhdr, .mhd, .tif or .tiff (the data file
// of a .nhdr/.mhd header is not a sample of its own) and sub-directories (2-D TIFF slices), in
// name order; the id is the name without its extension.
Manifest scan_directory(const std::filesystem::path& dir);

// The options of one sample: the base INI (if any), then `common` overrides, then the row's,
// then its input and run directory <campaign_dir>/<id>. Throws InputError as parse_run_options;
// `files`: where the files the overrides name may lie (the service's confinement).
RunOptions sample_options(const std::filesystem::path& base_ini,
                          const std::vector<std::pair<std::string, std::string>>& common,
                          const std::filesystem::path& campaign_dir, const CampaignSample& sample,
                          const OptionFiles& files = {});

// Sub-volumes for studies of the representative volume: `spec` is "E1,E2,..." (every sample
// cut into the non-overlapping cubes of each edge that fit, from its origin) or
// "centred:E1,E2,..." (one cube of each edge at its centre). Each cube is a sample of its own
// (id <id>_e<E>_<x>_<y>_<z>, a crop of the same input); the volume's size comes from its header
// (or input.dims), read with the sample's options. Throws InputError.
Manifest cut_subvolumes(const Manifest& manifest, const std::string& spec, const std::filesystem::path& base_ini,
                        const std::vector<std::pair<std::string, std::string>>& common,
                        const std::filesystem::path& campaign_dir);

// What the run directory of a sample holds, against what its options ask (pipeline::inspect_run
// with the options' config.ini).
pipeline::RunState inspect_sample(const RunOptions& options);

// campaign.csv and campaign.json in `campaign_dir`, from the reports of every sample of the
// manifest (a sample without a report is "pending"), and with sub-volumes subvolumes.csv: for
// every sample and edge, the cubes converged, the mean and spread of their k and porosity. Each
// file written atomically; callers hold the campaign lock.
struct CampaignCounts {
  int samples = 0, converged = 0, failed = 0, interrupted = 0, pending = 0;
};
CampaignCounts write_campaign_summary(const std::filesystem::path& campaign_dir, const Manifest& manifest);

// An exclusive lock file (flock) held for the life of the object. try_take: nullopt when another
// process holds it; wait: blocks until it is free.
class FileLock {
 public:
  static std::optional<FileLock> try_take(const std::filesystem::path& file);
  static FileLock wait(const std::filesystem::path& file);
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace rockperm::app
