// Row classes (tilegrid/scheduler/row_classes.h): the order a classed tile lands in, the tensor map
// of each class over every element of small operands, and which misaligned operands the scheduler
// reads in classes rather than through a padded copy, with its reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/runtime/tensor_map.h"
#include "tilegrid/scheduler/row_classes.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/gemm_cases.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

// The land order's Indexer gives, at every position of a 256-row tile, the row the class boxes put
// there: position 8 j + i of each 64-row block holds row 8 i + j. The permutation keeps each block,
// is its own inverse, and is the identity unclassed.
TEST(RowClasses, ClassedTilesLandEachClassAsOneAtom) {
  for (const bool classed : {false, true}) {
    const ir::TensorDomain land = buildClassOrder("land", 256, classed);
    ir::Indexer indexer(land);
    const ir::IndexResult row = indexer.logicalIndex({ir::Val::loopIndex("p")});
    EXPECT_TRUE(row.predicates.empty());
    const ir::CompiledVal row_at(row.indices.at(0), {"p"});
    for (int64_t p = 0; p < 256; ++p) {
      const int64_t v[1] = {p};
      const int64_t expected = classed ? p / 64 * 64 + p % 8 * 8 + p % 64 / 8 : p;
      EXPECT_EQ(row_at(v), expected) << p;
      EXPECT_EQ(classedRow(p), p / 64 * 64 + p % 8 * 8 + p % 64 / 8) << p;
      EXPECT_EQ(classedRow(classedRow(p)), p) << p;
      EXPECT_EQ(classedRow(p) / 64, p / 64) << p;
    }
  }
  EXPECT_THROW(buildClassOrder("land", 96, true), InternalError);
}

// Each class's map reaches exactly its rows: element (r, c) of the operand, r = 8 i + class, is where
// the map puts (c + shift, i), for every element of small operands at every element-aligned start and
// leading dimension; each map is one TMA accepts (16-byte base and stride), and past the class's last
// row or the row's last column it reads nothing.
TEST(RowClasses, EachClassMapReachesExactlyItsRows) {
  for (const DType type : {DType::BF16, DType::E4M3}) {
    const uint64_t esize = static_cast<uint64_t>(bytes(type));
    for (const uint64_t contiguous : {64u, 77u}) {
      for (uint64_t ld = contiguous; ld < contiguous + 16; ++ld) {
        if (ld * esize % 2 != 0) continue;  // 8-bit rows of odd length are refused (below)
        for (const uint64_t rows : {8u, 13u, 40u}) {
          for (uint64_t offset = 0; offset < 16; offset += esize) {
            codegen::TensorMapSpec operand;
            operand.dtype = type;
            operand.dims = {contiguous, rows};
            operand.strides_bytes = {ld * esize};
            operand.box = {static_cast<uint32_t>(64 / esize), 8};
            const uint64_t base = 0x10000 + offset;
            for (int64_t cls = 0; cls < kRowClasses; ++cls) {
              if (static_cast<uint64_t>(cls) >= rows) continue;
              const runtime::RowClassMap m = runtime::rowClassMap(operand, kRowClasses, cls, base);
              EXPECT_NO_THROW(runtime::validateTensorMap(m.spec, m.base));
              EXPECT_LT(static_cast<uint64_t>(m.shift), 16 / esize);
              EXPECT_EQ(m.spec.dims[0], contiguous + static_cast<uint64_t>(m.shift));
              uint64_t class_rows = 0;
              for (uint64_t r = static_cast<uint64_t>(cls); r < rows; r += kRowClasses) ++class_rows;
              ASSERT_EQ(m.spec.dims[1], class_rows);
              for (uint64_t i = 0; i < class_rows; ++i) {
                const uint64_t r = i * kRowClasses + static_cast<uint64_t>(cls);
                for (const uint64_t c : {uint64_t{0}, contiguous / 2, contiguous - 1}) {
                  const uint64_t by_map = m.base + i * m.spec.strides_bytes[0] + (c + static_cast<uint64_t>(m.shift)) * esize;
                  EXPECT_EQ(by_map, base + r * ld * esize + c * esize)
                      << toString(type) << " ld " << ld << " rows " << rows << " offset " << offset << " class " << cls;
                }
              }
            }
          }
        }
      }
    }
  }
  codegen::TensorMapSpec odd;
  odd.dtype = DType::BF16;
  odd.dims = {64, 16};
  odd.strides_bytes = {130};
  odd.box = {64, 8};
  EXPECT_THROW(runtime::rowClassMap(odd, kRowClasses, 0, 0x10001), UserError);  // not element-aligned
}

// Misaligned operands: both K-major (rows of M and N), both MN-major (K, both classed together), one
// of each (the K-major one classed, the MN-major one padded); the reasons a padded copy stays.
TEST(RowClasses, TheSchedulerReadsInClassesWhereTheKernelCan) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const auto classes = [&](const MatmulProblem& p, const ScheduleOverrides& o = {}) {
    const MatmulParams params = chooseParams(p, h100, o);
    return std::array<bool, 4>{params.row_classes_a, params.row_classes_b, params.pad_a, params.pad_b};
  };
  using Reads = std::array<bool, 4>;  // classes A, classes B, padded A, padded B
  EXPECT_EQ(classes(testing::bf16Problem(4095, 4097, 4099)), (Reads{true, true, false, false}));
  EXPECT_EQ(classes(testing::bf16Problem(4095, 4097, 4099, Layout::NT)), (Reads{true, true, false, false}));
  // NN: A is K-major, B MN-major (rows of K): classes on B alone would permute K for B alone.
  const MatmulParams nn = chooseParams(testing::bf16Problem(777, 640, 333, Layout::NN), h100);
  EXPECT_NE(nn.row_classes_a, nn.row_classes_b);
  EXPECT_EQ(nn.row_classes_a, nn.pad_b);
  const MatmulSchedule nn_schedule = schedule(testing::bf16Problem(777, 640, 333, Layout::NN), h100);
  const auto decided = std::find_if(nn_schedule.decisions.begin(), nn_schedule.decisions.end(),
                                    [](const Decision& d) { return d.what == "row classes"; });
  ASSERT_NE(decided, nn_schedule.decisions.end());
  EXPECT_NE(decided->rule.find("beside a K-major one"), std::string::npos) << decided->rule;
  // A fused epilogue reads operands for pairs of adjacent columns: B (N) stays padded.
  MatmulProblem fused = testing::bf16Problem(1000, 1030, 259);
  fused.epilogue = ir::Epilogue::parse("gelu(alpha*acc + bias[n])");
  EXPECT_EQ(classes(fused.validate()), (Reads{true, false, false, true}));
  // Batches, fewer rows than classes, 8-bit rows of an odd length: padded.
  MatmulProblem batched = testing::bf16Problem(1000, 1030, 259);
  batched.batch = 3;
  EXPECT_EQ(classes(batched.validate()), (Reads{false, false, true, true}));
  // (M = 5 turns to C^T: the kernel's A is the caller's B.)
  const MatmulParams five = chooseParams(testing::bf16Problem(5, 4097, 4099), h100);
  ASSERT_TRUE(five.swap_ab);
  EXPECT_EQ((Reads{five.row_classes_a, five.row_classes_b, five.pad_a, five.pad_b}), (Reads{true, false, false, true}));
  for (const auto& [k, classed] : {std::pair<int64_t, bool>{1001, false}, {1026, true}}) {
    MatmulProblem fp8 = testing::bf16Problem(1000, 1000, k);
    fp8.a_dtype = fp8.b_dtype = DType::E4M3;
    fp8.scale = ScaleMode::Tensor;
    EXPECT_EQ(classes(fp8.validate()), (Reads{classed, classed, !classed, !classed})) << k;
  }
  // Asked for copies, copies.
  EXPECT_EQ(classes(testing::bf16Problem(4095, 4097, 4099), {.pad = true}), (Reads{false, false, true, true}));
  // Every case the GPU suite runs reads an operand in classes.
  for (const testing::GemmCase& c : testing::sm90RowClassCases()) {
    const MatmulParams p = chooseParams(c.problem, h100, c.overrides);
    EXPECT_TRUE(p.row_classes_a || p.row_classes_b) << c.label() << ": " << p.toString();
  }
}

// Params say which operands are read in classes, round-trip through JSON, and refuse what a kernel
// cannot do: one operand read two ways, an MN-major pair classed apart, classes the kernel cannot take.
TEST(RowClasses, ParamsRefuseClassesAKernelCannotTake) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulProblem tn = testing::bf16Problem(4095, 4097, 4099);
  const MatmulParams p = chooseParams(tn, h100);
  EXPECT_NE(p.toString().find("row classes A/B"), std::string::npos) << p.toString();
  const nlohmann::json j = p;
  EXPECT_EQ(j.get<MatmulParams>(), p);
  nlohmann::json before = j;
  before.erase("row_classes");
  EXPECT_FALSE(before.get<MatmulParams>().row_classes_a);
  const auto refused = [&](const MatmulProblem& problem, const MatmulParams& params, const std::string& words) {
    try {
      params.validate(problem, h100);
      ADD_FAILURE() << "accepted " << params.toString();
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  MatmulParams both = p;
  both.pad_a = true;
  refused(tn, both, "read one way");
  MatmulParams neither = p;
  neither.row_classes_a = false;
  refused(tn, neither, "row_classes_a");
  const MatmulProblem nt = testing::bf16Problem(4095, 4097, 4099, Layout::NT);
  MatmulParams apart = chooseParams(nt, h100);
  apart.row_classes_b = false;
  apart.pad_b = true;
  refused(nt, apart, "both or neither");
  MatmulProblem batched = tn;
  batched.batch = 2;
  MatmulParams on_batches = chooseParams(batched.validate(), h100);
  on_batches.pad_a = false;
  on_batches.row_classes_a = true;
  refused(batched, on_batches, "batches");
}

}  // namespace
}  // namespace tilegrid::scheduler
