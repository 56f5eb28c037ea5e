#pragma once
// The shared-memory bank-conflict model: how many wavefronts one warp-wide access needs.
//
// Shared memory has 32 banks of 4-byte words. A warp's request is served in phases of 128 bytes'
// worth of lanes: 8 lanes for 16-byte accesses, 16 for 8-byte, 32 for 4 bytes or less. Within a
// phase, a bank serves one distinct word per wavefront (lanes reading the same word share it), so
//   wavefronts = sum over phases of max over banks of (distinct words of that bank in the phase).
// `ideal` is what the same bytes would cost with no conflicts: per phase, ceil(distinct words / 32).
// ldmatrix is modelled as four 8-lane phases, each lane naming one 16-byte row.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilegrid::scheduler {

// A rank-2 CuTe layout "(R,C):(S0,S1)" over elements: offset(r, c) = r*S0 + c*S1.
struct Layout2D {
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  int64_t offset(int64_t r, int64_t c) const { return r * row_stride + c * col_stride; }
  std::string toString() const;
  // Throws UserError naming the expected form on anything malformed.
  static Layout2D parse(const std::string& text);
};

struct BankPhase {
  int first_lane = 0, last_lane = 0;  // inclusive
  int64_t wavefronts = 0;
  int64_t ideal = 0;
};

struct BankReport {
  std::vector<BankPhase> phases;
  int64_t wavefronts = 0;
  int64_t ideal = 0;
  int access_bytes = 0;
  std::map<int64_t, std::set<int>> lanes_by_word;  // 4-byte word index -> lanes touching it
};

// `lane_bytes[l]` lists the byte addresses lane l touches in one access of `access_bytes` bytes
// (1, 2, 4, 8 or 16). At most 32 lanes.
BankReport analyzeBanks(const std::vector<std::vector<int64_t>>& lane_bytes, int access_bytes);

// Thread t reads elements (t, v), v in [0, vec), of `layout`; each element offset is optionally
// swizzled by Swizzle<B, M, S> before it becomes a byte address (offset * elem_bytes).
BankReport analyzeLayoutAccess(const Layout2D& layout, int elem_bytes, int threads, int vec,
                               const std::optional<std::array<int, 3>>& swizzle);

// ldmatrix: lane l gives the byte address of one 16-byte row; lanes 0-7, 8-15, ... are phases.
BankReport analyzeLdmatrix(const std::vector<int64_t>& row_addresses);

// The bank map as seed 001 draws it (rows of 32 banks, each cell the lanes that touch that word),
// ending with `wavefronts: N` and `ideal: N`.
std::string drawBankMap(const BankReport& report);

}  // namespace tilegrid::scheduler
