#pragma once
// Why a schedule is what it is: every decision chooseParams made, in order, with the value it chose
// and the rule that decided (a user's override, or the heuristic's rule by name and reason).
// `tilegrid plan` prints it; the models' own candidates (the tile ranking, the grid model's
// traffic) are printed beside it.
#include <string>
#include <vector>

namespace tilegrid::scheduler {

// One option a model weighed, with the figure it gave it: the tile ranking's score (higher wins), the
// grid model's DRAM traffic in bytes (lower wins), and where the model gives one, the kernel's
// modelled time (the tile ranking: modelledSm90Us).
struct Candidate {
  std::string option;
  double modelled = 0;
  std::string measure;  // what `modelled` is: "score", "DRAM bytes"
  double modelled_us = 0;  // 0 where the model gives no time
  bool operator==(const Candidate&) const = default;
};

struct Decision {
  std::string what;    // the parameter: "orientation", "tile", "cluster", "stream-k", ...
  std::string choice;  // what was chosen, as plan prints it
  std::string rule;    // "override: ..." or the deciding rule, "function: reason"
  // Where a model decided: every option it weighed, in its order (the chosen one among them).
  std::vector<Candidate> candidates;
  bool operator==(const Decision&) const = default;
};

using DecisionTrace = std::vector<Decision>;

}  // namespace tilegrid::scheduler
