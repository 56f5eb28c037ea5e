#pragma once
// Why a schedule is what it is: every decision chooseParams made, in order, with the value it chose
// and the rule that decided (a user's override, or the heuristic's rule by name and reason).
// `tilegrid plan` prints it; the models' own candidates (the tile ranking, the grid model's
// traffic) are printed beside it.
#include <string>
#include <vector>

namespace tilegrid::scheduler {

struct Decision {
  std::string what;    // the parameter: "orientation", "tile", "cluster", "stream-k", ...
  std::string choice;  // what was chosen, as plan prints it
  std::string rule;    // "override: ..." or the deciding rule, "function: reason"
  bool operator==(const Decision&) const = default;
};

using DecisionTrace = std::vector<Decision>;

}  // namespace tilegrid::scheduler
