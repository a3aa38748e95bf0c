# Writes ${OUT} (a C++ source with the git commit of the source tree) when its content changes;
# run at every build, so the commit in reports is that of the build, not of the last configure.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(commit "${commit}-modified")
  endif()
endif()
set(content "// Generated at build time by cmake/build_info.cmake.\n#include \"lib/base/build_info.hpp\"\nconst char* rockperm::build_commit() { return \"${commit}\"; }\nconst char* rockperm::build_type() { return \"${BUILD_TYPE}\"; }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
