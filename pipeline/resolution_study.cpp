#include "pipeline/resolution_study.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "lib/geometry/coarsen.hpp"
#include "pipeline/companion.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::pipeline {

Discretisation discretisation(double k_h, double k_2h, std::optional<double> k_4h) {
  Discretisation d;
  d.k0 = extrapolated_k(k_h, k_2h, resolution_order);
  const double scale = std::abs(k_h) > 0 ? std::abs(k_h) : 1.0;
  const double extrapolation = std::abs(d.k0 - k_h) / scale;
  // a correction as large as k itself is outside the range where k(h) = k0 + C h^p holds: the
  // coarse grid's flow is another flow (throats closed or opened by coarsening, grey voxels
  // merged), and no extrapolation, order or error follows from it
  if (!(k_h > 0) || !(extrapolation < max_extrapolation) || !(d.k0 > 0)) {
    std::ostringstream o;
    o.precision(4);
    o << "not made: k at twice the voxel size (" << k_2h << " mD) differs from the sample's (" << k_h
      << " mD) by " << (k_h > 0 ? std::abs(k_h - k_2h) / k_h : 0.0) * 100.0
      << " % of it, too much to extrapolate (k at zero voxel size would be " << d.k0
      << " mD): the coarse grid does not resolve this sample's flow; the sample's k stands with its convergence "
         "error alone";
    d.withheld = true;
    d.note = o.str();
    d.k0 = 0;
    return d;
  }
  if (!k_4h) {
    d.error = unconfirmed_safety * extrapolation;
    d.note = "from two grids: the order is not confirmed by a third (safety factor 3)";
    return d;
  }
  const double d1 = k_h - k_2h, d2 = k_2h - *k_4h;  // the changes as the grid refines
  const bool converged = std::max(std::abs(d1), std::abs(d2)) < 1e-3 * scale;
  const bool as_order = d1 * d2 > 0 && std::abs(d1) >= 0.25 * std::abs(d2) && std::abs(d1) <= 0.75 * std::abs(d2);
  d.asymptotic = converged || as_order;
  d.error = (d.asymptotic ? confirmed_safety : unconfirmed_safety) * extrapolation;
  if (d.asymptotic) return d;
  std::ostringstream o;
  o.precision(2);
  o << "the three grids do not confirm the order (k changes by " << std::showpos << 100.0 * d2 / scale
    << " % from 4x to 2x coarser and " << 100.0 * d1 / scale
    << " % from 2x coarser to the sample): safety factor 3";
  d.note = o.str();
  return d;
}

void run_resolution_study(const parallel::Comm& comm, const RunRequest& request, SampleResult& fine) {
  ResolutionStudy& study = fine.resolution;
  study.asked = true;
  if (!fine.converged()) {
    study.note = "not made: the run did not converge";
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  // each rank coarsens its own planes where it can read the file (companion_slabs), both grids,
  // else rank 0 the whole
  const SampleView coarse_view{false, 1}, coarser_view{false, 2};
  const auto large_enough = [](const geometry::Dims& d) {  // for a 4x coarser grid
    return d.nx >= 2 * min_coarser_extent && d.ny >= 2 * min_coarser_extent && d.nz >= 2 * min_coarser_extent;
  };
  std::optional<geometry::Dims> coarse_slabs = companion_slabs(comm, request, coarse_view), coarser_slabs;
  if (coarse_slabs && large_enough(*coarse_slabs)) {
    coarser_slabs = companion_slabs(comm, request, coarser_view);
    if (!coarser_slabs) coarse_slabs.reset();  // too few planes for every rank: rank 0 makes both
  }
  geometry::PoreMask coarse_mask, coarser_mask;  // rank 0, without slabs
  double voxel_um = 0;                           // rank 0's, without slabs
  bool coarser = coarse_slabs && coarser_slabs;
  try {
    if (!coarse_slabs) {
      with_volume(comm, request, [&](const ReadVolume& volume) {
        voxel_um = 2.0 * volume.loaded.voxel_size_um;
        coarse_mask = view_of(volume.loaded.mask, coarse_view);
        if (large_enough(coarse_mask.dims)) {
          coarser_mask = geometry::coarsen_2x(coarse_mask);  // the coarser view, from the coarse one
          coarser = true;
        }
      });
    }
  } catch (const InputError& e) {
    study.note = std::string("not made: ") + e.what();
    return;
  }
  coarser = comm.max(coarser ? 1.0 : 0.0) > 0;
  FlowSpec flow = request.spec.flow;
  flow.grey_permeability = fine.flow.grey_permeability;
  for (double& k : flow.grey_permeability) k /= 4.0;  // the same m^2 in voxels twice as large
  const std::int64_t budget = coarse_step_budget * fine.steps;
  // why a coarse grid gave no k; one that ran out of steps where the study's budget, not the
  // request's limit, was the lower says so
  const auto why = [&](const CompanionRun& c) {
    if (c.ending != CompanionRun::Ending::not_converged || budget >= request.spec.execution.max_steps) return c.note;
    return "did not converge within " + std::to_string(c.result.steps) + " steps (the study's budget: " +
           std::to_string(coarse_step_budget) + " times the sample's " + std::to_string(fine.steps) + ")";
  };
  const CompanionRun coarse =
      run_companion(comm, request,
                    companion_sample(comm, request, flow, coarse_slabs, coarse_view, coarse_mask, voxel_um,
                                     fine.input.name + " (2x coarser)"),
                    flow, budget);
  study.coarse_steps = coarse.result.steps;
  using Ending = CompanionRun::Ending;
  if (coarse.ending == Ending::not_converged) study.note = "not made: the coarse sample " + why(coarse);
  else if (coarse.ending == Ending::invalid_physics) study.note = "not made: at twice the voxel size " + coarse.note;
  else if (!coarse.done()) study.note = "not made: " + coarse.note;
  if (!coarse.done()) {
    study.coarse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return;
  }
  std::string fourfold;  // why the third grid is missing
  if (coarser) {
    for (double& k : flow.grey_permeability) k /= 4.0;
    const CompanionRun c4 =
        run_companion(comm, request,
                      companion_sample(comm, request, flow, coarser_slabs, coarser_view, coarser_mask, 2.0 * voxel_um,
                                       fine.input.name + " (4x coarser)"),
                      flow, budget);
    study.coarse_steps += c4.result.steps;
    if (c4.done()) study.k_coarser_md = c4.result.k.k_md;
    else fourfold = "at four times the voxel size " + why(c4);
  } else {
    fourfold = "the sample is too small for a grid four times coarser";
  }
  study.coarse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  study.done = true;
  study.order = resolution_order;
  study.k_coarse_md = coarse.result.k.k_md;
  const Discretisation d = discretisation(fine.k.k_md, study.k_coarse_md, study.k_coarser_md);
  if (d.withheld) {  // as a study that could not be made: the grids' k kept, nothing extrapolated
    study.done = false;
    study.note = d.note;
    return;
  }
  study.k_extrapolated_md = d.k0;
  study.discretisation_error = d.error;
  study.asymptotic = d.asymptotic;
  study.note = fourfold.empty() ? d.note : fourfold + "; " + d.note;
}

}  // namespace rockperm::pipeline
