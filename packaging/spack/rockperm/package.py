# Spack recipe for rockperm. Use it from a repository of your own:
#   spack repo create myrepo && cp -r packaging/spack/rockperm myrepo/packages/
#   spack repo add myrepo && spack install rockperm +cuda cuda_arch=90 +mpi +vtk
# (not built here: the development machines have no Spack; the CMake options it sets are those
# the CI build uses.)
from spack.package import *


class Rockperm(CMakePackage, CudaPackage):
    """Absolute permeability of rock from segmented micro-CT scans: a sparse D3Q19 lattice
    Boltzmann solver for NVIDIA GPUs and CPUs, one MPI rank per GPU."""

    homepage = "https://example.invalid/rockperm"
    git = "https://example.invalid/rockperm.git"

    maintainers("rockperm")
    license("UNKNOWN")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("mpi", default=True, description="Z-slab decomposition over MPI ranks (one per GPU)")
    variant("vtk", default=True, description="ParaView field output (VTK XML image data)")
    variant("nccl", default=True, description="NCCL halo transport (header at build time; "
            "libnccl.so.2 opened at run time)", when="+cuda")

    depends_on("cmake@3.24:", type="build")
    depends_on("boost@1.74:+program_options")
    depends_on("libtiff")
    depends_on("nlohmann-json@3.10:")
    depends_on("eigen@3.3:", type="build")
    depends_on("openssl")
    depends_on("libarchive")
    depends_on("libcsv")
    depends_on("sqlite@3:")
    depends_on("gmime@3:")
    depends_on("mpi", when="+mpi")
    depends_on("vtk@9: ~mpi", when="+vtk")
    depends_on("googletest", type="test")
    depends_on("cuda@12:", when="+cuda")
    depends_on("nccl@2.7:", when="+cuda+nccl")

    def cmake_args(self):
        args = [
            self.define_from_variant("ROCKPERM_ENABLE_CUDA", "cuda"),
            self.define_from_variant("ROCKPERM_ENABLE_MPI", "mpi"),
            self.define_from_variant("ROCKPERM_ENABLE_VTK", "vtk"),
            self.define("ROCKPERM_BUILD_TESTS", self.run_tests),
        ]
        if self.spec.satisfies("+cuda"):
            archs = self.spec.variants["cuda_arch"].value
            if "none" not in archs:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
            if self.spec.satisfies("+nccl"):
                args.append(self.define("ROCKPERM_NCCL_INCLUDE_DIR", self.spec["nccl"].prefix.include))
        return args

    def setup_run_environment(self, env):
        # rockperm opens libnccl.so.2 at run time (dlopen), so its module puts NCCL on the path
        if self.spec.satisfies("+cuda+nccl"):
            env.prepend_path("LD_LIBRARY_PATH", self.spec["nccl"].prefix.lib)

    def check(self):
        with working_dir(self.build_directory):
            ctest("-L", "unit|validation", "--output-on-failure")
