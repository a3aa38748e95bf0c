#include "cuda/nccl_exchanger.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "lib/base/error.hpp"

#if ROCKPERM_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>

#include "cuda/device_buffer.hpp"
#endif

namespace rockperm::cuda {

#if !ROCKPERM_HAVE_NCCL

bool nccl_built() { return false; }

std::unique_ptr<parallel::HaloExchanger> make_nccl_exchanger(const parallel::Comm&, std::string& why) {
  why = "this rockperm was built without NCCL (CMake found no nccl.h; set NCCL_HOME and rebuild)";
  return nullptr;
}

#else

bool nccl_built() { return true; }

namespace {

// The NCCL calls this transport makes, from libnccl.so.2 opened at run time.
struct Library {
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  std::string why;  // empty when loaded
};

template <typename F>
void resolve(void* handle, const char* name, F& f, std::string& why) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f && why.empty()) why = std::string("libnccl.so.2 has no ") + name;
}

// Opened once per process and kept (NCCL's own threads outlive any one communicator).
const Library& library() {
  static const Library lib = [] {
    Library l;
    void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* error = dlerror();
      l.why = std::string("the NCCL library could not be opened (") + (error ? error : "libnccl.so.2") +
              "); put the directory holding libnccl.so.2 on LD_LIBRARY_PATH";
      return l;
    }
    resolve(handle, "ncclGetVersion", l.get_version, l.why);
    resolve(handle, "ncclGetUniqueId", l.get_unique_id, l.why);
    resolve(handle, "ncclCommInitRank", l.comm_init_rank, l.why);
    resolve(handle, "ncclCommDestroy", l.comm_destroy, l.why);
    resolve(handle, "ncclGetErrorString", l.error_string, l.why);
    resolve(handle, "ncclGroupStart", l.group_start, l.why);
    resolve(handle, "ncclGroupEnd", l.group_end, l.why);
    resolve(handle, "ncclSend", l.send, l.why);
    resolve(handle, "ncclRecv", l.recv, l.why);
    int version = 0;
    if (l.why.empty() && (l.get_version(&version) != ncclSuccess || version < 20700)) {
      l.why = "libnccl.so.2 is version " + std::to_string(version) + "; point-to-point needs NCCL 2.7 or newer";
    }
    return l;
  }();
  return lib;
}

std::string failure(const Library& lib, ncclResult_t result, const char* call) {
  return std::string(call) + " failed: " + lib.error_string(result);
}

void check(const Library& lib, ncclResult_t result, const char* call) {
  if (result != ncclSuccess) throw RuntimeFailure("NCCL halo exchange: " + failure(lib, result, call));
}

// true on every rank when `failed` is empty on every rank
bool all_ok(const parallel::Comm& comm, const std::string& failed) {
  return comm.sum(std::uint64_t{failed.empty() ? 0u : 1u}) == 0;
}

std::vector<parallel::Comm::Transfer> by_peer_and_tag(std::vector<parallel::Comm::Transfer> t) {
  std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return std::pair(a.peer, a.tag) < std::pair(b.peer, b.tag); });
  return t;
}

class NcclExchanger final : public parallel::HaloExchanger {
 public:
  // NCCL's kernels run beside the interior update: a high priority lets their blocks in first
  NcclExchanger(const Library& lib, ncclComm_t comm) : lib_(lib), comm_(comm), stream_(highest_stream_priority()) {}
  ~NcclExchanger() override { lib_.comm_destroy(comm_); }
  NcclExchanger(const NcclExchanger&) = delete;
  NcclExchanger& operator=(const NcclExchanger&) = delete;

  // The previous unpack and this step's pack are done when the Stepper calls (it waited for the
  // pack, which follows the unpack on the backend's stream), so the copies need no event.
  void exchange(const std::vector<parallel::Comm::Transfer>& sends,
                const std::vector<parallel::Comm::Transfer>& receives) override {
    check(lib_, lib_.group_start(), "ncclGroupStart");
    for (const auto& r : by_peer_and_tag(receives)) {
      if (r.bytes) check(lib_, lib_.recv(r.data, r.bytes, ncclUint8, r.peer, comm_, stream_.get()), "ncclRecv");
    }
    for (const auto& s : by_peer_and_tag(sends)) {
      if (s.bytes) check(lib_, lib_.send(s.data, s.bytes, ncclUint8, s.peer, comm_, stream_.get()), "ncclSend");
    }
    check(lib_, lib_.group_end(), "ncclGroupEnd");
    stream_.synchronize();
  }

 private:
  const Library& lib_;
  ncclComm_t comm_;
  Stream stream_;
};

}  // namespace

std::unique_ptr<parallel::HaloExchanger> make_nccl_exchanger(const parallel::Comm& comm, std::string& why) {
  const Library& lib = library();
  why = lib.why;
  if (!all_ok(comm, why)) {
    if (why.empty()) why = "NCCL is not available on another rank";
    return nullptr;
  }
  // Point-to-point needs no NVLink multicast (NVLS, a collective feature); keep NCCL from setting
  // it up, since on shared hosts multicast objects can outlive a crashed process.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  // rank 0 makes the id; an empty broadcast says it could not
  std::vector<std::uint8_t> id_bytes;
  if (comm.root()) {
    ncclUniqueId id;
    const ncclResult_t r = lib.get_unique_id(&id);
    if (r == ncclSuccess) id_bytes.assign(id.internal, id.internal + sizeof id.internal);
    else why = failure(lib, r, "ncclGetUniqueId");
  }
  comm.broadcast(id_bytes);
  if (id_bytes.size() != sizeof(ncclUniqueId::internal)) {
    if (why.empty()) why = "rank 0 could not create an NCCL id";
    return nullptr;
  }
  ncclUniqueId id;
  std::copy(id_bytes.begin(), id_bytes.end(), id.internal);
  // Collective; NCCL fails it on every rank alike (two ranks on one GPU: "Duplicate GPU").
  ncclComm_t nccl = nullptr;
  const ncclResult_t r = lib.comm_init_rank(&nccl, comm.size(), id, comm.rank());
  if (r != ncclSuccess) why = failure(lib, r, "ncclCommInitRank") + (r == ncclInvalidUsage ? " (NCCL needs one GPU per rank)" : "");
  if (!all_ok(comm, why)) {
    if (r == ncclSuccess) lib.comm_destroy(nccl);
    if (why.empty()) why = "NCCL failed to start on another rank";
    return nullptr;
  }
  return std::make_unique<NcclExchanger>(lib, nccl);
}

#endif

}  // namespace rockperm::cuda
