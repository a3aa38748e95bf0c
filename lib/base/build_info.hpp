#pragma once
// What build produced this binary (for provenance in reports): the git commit of the source
// tree at build time ("-modified" when it had uncommitted changes) and the CMake build type.
namespace rockperm {
const char* build_commit();
const char* build_type();
}  // namespace rockperm
