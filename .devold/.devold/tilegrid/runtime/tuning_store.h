#pragma once
// Autotuned grid traversals: `tilegrid sweep --apply` stores the fastest traversal it measured for
// one problem on one device, and planning looks it up before falling back to the L2 model.
//
// The store is one JSON file, tuned.json, in TILEGRID_CACHE_DIR, else $XDG_CACHE_HOME/tilegrid, else
// ~/.cache/tilegrid. Writes go to a temporary file renamed into place, so a reader never sees half
// a file. A key names the device, the kernel family and the whole problem (sizes, layout, dtypes,
// alignment): a traversal tuned for one never leaks to another.
#include <filesystem>
#include <optional>
#include <string>

#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

struct TunedTraversal {
  scheduler::GridTraversal traversal;
  double tflops = 0;       // what the sweep measured
  double cublas_tflops = 0;
};

class TuningStore {
 public:
  explicit TuningStore(std::filesystem::path file);
  // The store at the default location; nothing when no location can be named (no HOME).
  static std::optional<TuningStore> openDefault();

  static std::string key(const scheduler::MatmulProblem& problem, const scheduler::DeviceSpec& device,
                         scheduler::Arch arch);

  // Nothing when there is no entry. Throws UserError when the file exists but cannot be read as a store.
  std::optional<TunedTraversal> lookup(const scheduler::MatmulProblem& problem, const scheduler::DeviceSpec& device,
                                       scheduler::Arch arch) const;
  // Adds or replaces the entry. Throws UserError when the folder or file cannot be written.
  void store(const scheduler::MatmulProblem& problem, const scheduler::DeviceSpec& device, scheduler::Arch arch,
             const TunedTraversal& tuned) const;

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

}  // namespace tilegrid::runtime
