# Installation, the CMake package for find_package(rockperm), and CPack's Debian packages.
#
# Components: Runtime (the executables, the bundled sample, the systemd and Slurm files: the
# `rockperm` .deb) and Development (headers, static libraries, CMake package: `rockperm-dev`).
# Consumers: find_package(rockperm) then link rockperm::core (every layer of lib/: lattice,
# physics, CPU backend, solver; or one layer, rockperm::lattice, ...), rockperm::io (readers, writers), rockperm::pipeline (the Simulation pipeline) or
# rockperm::cuda (when built with CUDA). Headers keep their tree: #include "pipeline/driver.hpp".
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ROCKPERM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rockperm)
set(ROCKPERM_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/rockperm)

install(TARGETS rockperm rockperm-make-pack RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
install(FILES samples/sphere_pack_64.ini samples/sphere_pack_64.raw
        DESTINATION ${CMAKE_INSTALL_DATADIR}/rockperm/samples COMPONENT Runtime)
install(DIRECTORY packaging/systemd packaging/slurm DESTINATION ${CMAKE_INSTALL_DATADIR}/rockperm COMPONENT Runtime)
install(FILES README.md docs/ACCURACY.md docs/PERFORMANCE.md docs/SCALING.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT Runtime)

set(ROCKPERM_LIBRARIES rockperm_warnings rockperm_base rockperm_physics rockperm_geometry rockperm_lattice
    rockperm_backend rockperm_parallel rockperm_solve rockperm_core rockperm_io rockperm_pipeline)
if(ROCKPERM_ENABLE_CUDA)
  list(APPEND ROCKPERM_LIBRARIES rockperm_cuda)
endif()
set_target_properties(rockperm_warnings PROPERTIES EXPORT_NAME headers)
foreach(t base physics geometry lattice backend parallel solve core io pipeline cuda)
  if(TARGET rockperm_${t})
    set_target_properties(rockperm_${t} PROPERTIES EXPORT_NAME ${t})
  endif()
endforeach()
install(TARGETS ${ROCKPERM_LIBRARIES} EXPORT rockperm-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
        INCLUDES DESTINATION ${ROCKPERM_INCLUDE_DIR})
foreach(dir lib io cuda pipeline)
  install(DIRECTORY ${dir}/ DESTINATION ${ROCKPERM_INCLUDE_DIR}/${dir} COMPONENT Development
          FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(FILES ${CMAKE_BINARY_DIR}/generated/rockperm/config.hpp DESTINATION ${ROCKPERM_INCLUDE_DIR}/rockperm
        COMPONENT Development)
install(EXPORT rockperm-targets NAMESPACE rockperm:: DESTINATION ${ROCKPERM_CMAKE_DIR} COMPONENT Development)
configure_package_config_file(cmake/rockperm-config.cmake.in ${CMAKE_BINARY_DIR}/rockperm-config.cmake
                              INSTALL_DESTINATION ${ROCKPERM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/rockperm-config-version.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/rockperm-config.cmake ${CMAKE_BINARY_DIR}/rockperm-config-version.cmake
        DESTINATION ${ROCKPERM_CMAKE_DIR} COMPONENT Development)

# CPack: two .debs. The runtime package's dependencies come from dpkg-shlibdeps (the shared
# libraries the executables load: runtime packages, never -dev ones); the CUDA runtime is
# linked statically, so the NVIDIA driver is the only GPU requirement.
set(CPACK_PACKAGE_NAME rockperm)
set(CPACK_PACKAGE_VENDOR "rockperm")
set(CPACK_PACKAGE_CONTACT "rockperm maintainers <rockperm@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime Development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.invalid/rockperm")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME rockperm)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "openmpi-bin")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME rockperm-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# what a consumer's find_package(rockperm) looks for (cmake/rockperm-config.cmake.in)
set(_dev_depends "rockperm (= ${PROJECT_VERSION}), cmake, libtiff-dev, libssl-dev, libarchive-dev, nlohmann-json3-dev")
if(ROCKPERM_ENABLE_MPI)
  string(APPEND _dev_depends ", libopenmpi-dev")
endif()
if(ROCKPERM_ENABLE_VTK)
  string(APPEND _dev_depends ", libvtk9-dev")
endif()
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${_dev_depends}")
if(ROCKPERM_ENABLE_PYTHON)  # python3-rockperm: the module (python/), into Debian's python3 path
  math(EXPR _python_next_minor "${Python3_VERSION_MINOR} + 1")
  list(APPEND CPACK_COMPONENTS_ALL Python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-rockperm)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${_python_next_minor}), python3-numpy")
  set(CPACK_COMPONENT_PYTHON_DESCRIPTION
      "rockperm from Python: rockperm.permeability(mask, ...) on a numpy array, the same run and report\n as rockperm run (CUDA runtime linked statically).")
endif()
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "Absolute permeability of rock from segmented micro-CT scans: a sparse D3Q19 lattice Boltzmann solver\n for NVIDIA GPUs (CUDA runtime linked statically: needs only the driver) and CPUs, with MPI.")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "rockperm's libraries, headers and CMake package (find_package(rockperm), rockperm::core)")
include(CPack)
