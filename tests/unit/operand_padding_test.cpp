#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/scheduler/kernel_domains.h"
#include "tilegrid/scheduler/operand_padding.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/kernel_config.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

// The defining property of a global matrix, for every element of small matrices in both storage
// orders and at packed, padded (rounded up to a granule) and larger leading dimensions: element
// (mn, k) sits at row * ld + column, where the row runs along the non-contiguous mode and the column
// along the contiguous one; so no two elements share an offset. The same holds for a leading
// dimension given as a parameter, evaluated at the same value.
TEST(OperandPadding, GlobalMatrixRowsAreLeadingDimensionApart) {
  for (Major major : {Major::K, Major::MN}) {
    for (int64_t mn : {1, 3, 8, 13}) {
      for (int64_t k : {1, 5, 16, 17}) {
        const int64_t contiguous = major == Major::K ? k : mn;
        for (int64_t ld : {contiguous, ceilDiv(contiguous, 8) * 8, contiguous + 3}) {
          for (bool symbolic : {false, true}) {
            const ir::TensorDomain gmem = buildGlobalMatrix("gmem", {"mn", ir::Val(mn)}, {"k", ir::Val(k)}, major,
                                                            symbolic ? ir::Val::param("ld") : ir::Val(ld));
            const ir::Indexer indexer(gmem);
            const ir::IndexResult alloc =
                indexer.allocationIndex({ir::Val::loopIndex("x"), ir::Val::loopIndex("y")});
            EXPECT_TRUE(alloc.predicates.empty());
            const ir::CompiledVal offset(indexer.linearize(gmem.allocation(), alloc.indices), {"x", "y", "ld"});
            std::set<int64_t> seen;
            for (int64_t x = 0; x < mn; ++x) {
              for (int64_t y = 0; y < k; ++y) {
                const int64_t v[3] = {x, y, ld};
                const int64_t row = major == Major::K ? x : y, col = major == Major::K ? y : x;
                EXPECT_EQ(offset(v), row * ld + col) << toString(major) << " ld " << ld << " " << mn << "x" << k;
                seen.insert(offset(v));
              }
            }
            EXPECT_EQ(static_cast<int64_t>(seen.size()), mn * k);
          }
        }
      }
    }
  }
  // Rows closer than their contiguous extent would overlap.
  EXPECT_THROW(buildGlobalMatrix("gmem", {"m", ir::Val(4)}, {"k", ir::Val(4)}, Major::K, ir::Val(3)), UserError);
  EXPECT_THROW(buildGlobalMatrix("gmem", {"m", ir::Val(4)}, {"k", ir::Val(4)}, Major::MN, ir::Val(3)), UserError);
}

TEST(OperandPadding, MisalignmentIsAPromiseUnderSixteenBytes) {
  EXPECT_FALSE(operandMisaligned(testing::bf16Problem(4096, 4096, 4096), 'a'));
  EXPECT_TRUE(operandMisaligned(testing::bf16Problem(4096, 4096, 4098), 'a'));  // 4-byte rows
  EXPECT_FALSE(operandMisaligned(testing::bf16Problem(4097, 4096, 4096, Layout::TN), 'a'));
  EXPECT_TRUE(operandMisaligned(testing::bf16Problem(4097, 4096, 4096, Layout::NT), 'a'));  // M-major, lda 4097
  MatmulProblem pointer = testing::bf16Problem(4096, 4096, 4096);
  pointer.align_b = 4;  // rows aligned, the pointer only 8 bytes
  EXPECT_TRUE(operandMisaligned(pointer.validate(), 'b'));
  const MatmulProblem aligned = alignedByPadding(testing::bf16Problem(4097, 4097, 4096, Layout::NT), true, false);
  EXPECT_EQ(aligned.align_a, 8);
  EXPECT_EQ(aligned.align_b, 1);
  EXPECT_THROW(operandMisaligned(aligned, 'c'), InternalError);
}

// sm_80 reads misaligned operands through padded copies where the GEMM is large and reuses them
// enough, and then schedules as for aligned ones: 16-byte copies and the 128x256 tile.
TEST(OperandPadding, Sm80PadsWhereTheCopyPays) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const ScheduleOverrides sm80{.arch = Arch::Sm80};
  const MatmulParams nt = chooseParams(testing::bf16Problem(4097, 4097, 4096, Layout::NT), h100, sm80);
  EXPECT_TRUE(nt.pad_a && nt.pad_b);
  EXPECT_EQ(nt.vec_a, 8);
  EXPECT_EQ(nt.vec_b, 8);
  EXPECT_EQ(nt.cta_tile, (TileShape{128, 256, 64}));
  EXPECT_NE(nt.toString().find("padded A/B"), std::string::npos) << nt.toString();
  // Off: 2-byte pieces and the tile that affords their registers.
  ScheduleOverrides off = sm80;
  off.pad = false;
  const MatmulParams gathers = chooseParams(testing::bf16Problem(4097, 4097, 4096, Layout::NT), h100, off);
  EXPECT_FALSE(gathers.pad_a || gathers.pad_b);
  EXPECT_EQ(gathers.vec_a, 1);
  EXPECT_EQ(gathers.cta_tile, (TileShape{128, 128, 64}));
  // TN with K = 4096: A and B are aligned, only C is not, and C is never copied.
  const MatmulParams tn = chooseParams(testing::bf16Problem(4097, 4097, 4096), h100, sm80);
  EXPECT_FALSE(tn.pad_a || tn.pad_b);
  // Too small for the copy (under 1 GFLOP), too little reuse of one operand (B's M of 200), and
  // 4-byte pieces with a reuse under 512.
  EXPECT_FALSE(chooseParams(testing::bf16Problem(131, 67, 37), h100, sm80).pad_a);
  const MatmulParams narrow_m = chooseParams(testing::bf16Problem(200, 8192, 4097), h100, sm80);
  EXPECT_TRUE(narrow_m.pad_a);
  EXPECT_FALSE(narrow_m.pad_b);
  EXPECT_FALSE(chooseParams(testing::bf16Problem(4096, 384, 4098), h100, sm80).pad_a);
  EXPECT_TRUE(chooseParams(testing::bf16Problem(4096, 512, 4098), h100, sm80).pad_a);
  EXPECT_FALSE(chooseParams(testing::bf16Problem(4096, 512, 4100), h100, sm80).pad_a);  // 8-byte pieces
  EXPECT_TRUE(chooseParams(testing::bf16Problem(4096, 1024, 4100), h100, sm80).pad_a);
  // On pads the misaligned operands only.
  ScheduleOverrides on = sm80;
  on.pad = true;
  const MatmulParams small = chooseParams(testing::bf16Problem(131, 64, 40), h100, on);  // lda 40, ldb 40
  EXPECT_FALSE(small.pad_a || small.pad_b);
  const MatmulParams odd = chooseParams(testing::bf16Problem(131, 67, 37), h100, on);
  EXPECT_TRUE(odd.pad_a && odd.pad_b);
}

TEST(OperandPadding, Sm90PadsEveryMisalignedOperand) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulParams nt = chooseParams(testing::bf16Problem(4097, 4097, 4096, Layout::NT), h100);
  EXPECT_TRUE(nt.pad_a && nt.pad_b);
  const MatmulParams tiny = chooseParams(testing::bf16Problem(3, 3, 3), h100, {.dot = false});
  EXPECT_TRUE(tiny.pad_a && tiny.pad_b);
  // The dot kernel, which 3x3x3 runs by default, reads its operands in place.
  const MatmulParams dot = chooseParams(testing::bf16Problem(3, 3, 3), h100);
  EXPECT_TRUE(dot.dot.has_value() && !dot.pad_a && !dot.pad_b);
  EXPECT_FALSE(chooseParams(testing::bf16Problem(4096, 4096, 4096), h100).pad_a);
  try {
    chooseParams(testing::bf16Problem(4097, 4097, 4096, Layout::NT), h100, {.pad = false});
    ADD_FAILURE() << "sm_90 accepted an unpadded misaligned operand";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("pad_a must be set"), std::string::npos) << e.what();
  }
}

// The pitch of a padded copy, for every row length up to four lines and every element size: it
// holds the row in whole 16-byte granules (TMA's rule for row strides), no row straddles a 128-byte
// line (the pitch divides a line or is whole lines), and it is the smallest such pitch: a row of a
// few elements shares its line with the rows beside it instead of being padded to a line of its own.
TEST(OperandPadding, APaddedPitchIsTheLeastThatKeepsRowsOffLineBoundaries) {
  for (DType type : {DType::BF16, DType::FP16, DType::FP32, DType::E4M3}) {
    const int64_t esize = bytes(type);
    for (int64_t contiguous = 1; contiguous * esize <= 4 * 128; ++contiguous) {
      const int64_t pitch = paddedPitchElems(type, contiguous) * esize;
      const auto keeps_rows_off_line_boundaries = [](int64_t bytes) {
        return bytes % 16 == 0 && (128 % bytes == 0 || bytes % 128 == 0);
      };
      EXPECT_GE(pitch, contiguous * esize) << toString(type) << " " << contiguous;
      EXPECT_TRUE(keeps_rows_off_line_boundaries(pitch)) << toString(type) << " " << contiguous << ": " << pitch;
      for (int64_t smaller = contiguous * esize; smaller < pitch; ++smaller) {
        EXPECT_FALSE(keeps_rows_off_line_boundaries(smaller))
            << toString(type) << " " << contiguous << ": " << smaller << " bytes would do, not " << pitch;
      }
    }
  }
  EXPECT_EQ(paddedPitchElems(DType::BF16, 4), 8);      // 8 bytes: a 16-byte granule
  EXPECT_EQ(paddedPitchElems(DType::BF16, 100), 128);  // 200 bytes: two lines
}

// The problem the tile rules weigh is the one the kernel reads: each misaligned operand replaced by
// its copy (aligned, rows on 128-byte lines where they are over half a line, batch entries back to
// back), aligned operands and C as they are; every element keeps its (row, column) and the copy's
// span holds it.
TEST(OperandPadding, ReadThroughPaddingDescribesTheCopies) {
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    MatmulProblem p = testing::bf16Problem(4095, 4097, 4099, layout);
    p.batch = 3;
    p.validate();
    const MatmulProblem read = readThroughPadding(p);
    EXPECT_EQ(read.align_a, 8);
    EXPECT_EQ(read.align_b, 8);
    EXPECT_EQ(read.align_c, p.align_c);
    EXPECT_EQ(read.leadingDimC(), p.leadingDimC());
    EXPECT_EQ(read.leadingDimA(), paddedPitchElems(DType::BF16, p.contiguousA()));
    EXPECT_EQ(read.leadingDimB(), paddedPitchElems(DType::BF16, p.contiguousB()));
    EXPECT_EQ(read.leadingDimA() * 2 % 128, 0);
    EXPECT_EQ(read.batchStrideA(), read.leadingDimA() * p.rowsA());
    EXPECT_EQ(read.m, p.m);
    EXPECT_EQ(read.n, p.n);
    EXPECT_EQ(read.k, p.k);
    EXPECT_NO_THROW(MatmulProblem(read).validate()) << toString(layout);
  }
  // An aligned operand is read in place.
  MatmulProblem half = testing::bf16Problem(4096, 4097, 4096, Layout::TN);
  half.validate();
  const MatmulProblem read = readThroughPadding(half);
  EXPECT_EQ(read.lda, half.lda);
  EXPECT_EQ(read.ldb, half.ldb);
  EXPECT_EQ(read.align_a, half.align_a);
}

TEST(OperandPadding, ParamsSayWhatIsPaddedAndRefuseNothingToPad) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulProblem problem = testing::bf16Problem(4097, 4097, 4096, Layout::NT);
  const MatmulParams p = chooseParams(problem, h100, {.arch = Arch::Sm80});
  const nlohmann::json j = p;
  EXPECT_EQ(j.get<MatmulParams>(), p);
  MatmulParams unpadded = p;
  unpadded.pad_b = false;
  EXPECT_NE(unpadded.hash(), p.hash());
  // Params written before padding existed read as unpadded.
  nlohmann::json before = j;
  before.erase("pad");
  EXPECT_FALSE(before.get<MatmulParams>().pad_a);
  // 16-byte pieces of an unpadded misaligned operand, and a padded aligned one, are refused.
  EXPECT_THROW(unpadded.validate(problem, h100), UserError);
  MatmulParams aligned = chooseParams(testing::bf16Problem(4096, 4096, 4096), h100, {.arch = Arch::Sm80});
  aligned.pad_a = true;
  try {
    aligned.validate(testing::bf16Problem(4096, 4096, 4096), h100);
    ADD_FAILURE() << "padding an aligned operand was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing to pad"), std::string::npos) << e.what();
  }
}

// The sm_80 kernel reads the padded copy at its pitch (4104 elements for rows of 4097), batches
// included, and the launcher is told how to make it.
TEST(OperandPadding, Sm80KernelReadsTheCopyAtItsPitch) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  MatmulProblem problem = testing::bf16Problem(4097, 304, 4096, Layout::NT);
  problem.batch = 2;
  const MatmulSchedule s = schedule(problem.validate(), h100, {.arch = Arch::Sm80, .pad = true});
  const codegen::KernelSource source = codegen::emit(s);
  ASSERT_EQ(source.args.size(), 4u);  // the problem, A, B, C
  EXPECT_EQ(source.args[0].kind, codegen::ArgKind::Problem);
  const codegen::KernelArg& a = source.args[1];
  ASSERT_TRUE(a.padded.has_value());
  EXPECT_EQ(a.padded->rows, 2u * 4096);
  EXPECT_EQ(a.padded->rows_per_batch, 4096u);
  EXPECT_EQ(a.padded->row_bytes, 4097u * 2);
  EXPECT_EQ(a.padded->src_pitch, 4097u * 2);
  EXPECT_EQ(a.padded->src_batch_pitch, 4097u * 4096 * 2);
  EXPECT_EQ(a.padded->dst_pitch, 4160u * 2);  // whole 128-byte lines
  EXPECT_FALSE(source.args[2].padded.has_value());  // N-major B, ldb 304: aligned
  // The copy is made at launch: the launch's name says so, the kernel's does not.
  EXPECT_EQ(source.kernel_name.find("_pad"), std::string::npos) << source.kernel_name;
  EXPECT_NE(codegen::launchName(s).find("_pada"), std::string::npos) << codegen::launchName(s);
  // The kernel reads the copy's batch stride at launch: 4096 rows of 4160.
  EXPECT_EQ(testing::configValue(source.cuda, "SHAPE_AT_LAUNCH"), "true");
  EXPECT_EQ(codegen::problemArgs(s, s.ctas()).batch_stride_a, 4096 * 4160);
  EXPECT_EQ(codegen::problemArgs(s, s.ctas()).lda, 4160);
}

}  // namespace
}  // namespace tilegrid::scheduler
