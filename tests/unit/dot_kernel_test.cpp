// The dot kernel's choice, its split of K and its reads, over whole small domains of problems; its
// params through JSON and validation; and its emitted kernel: one source for every problem of its
// configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/kernel_config.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

using testing::bf16Problem;

const DeviceSpec kH100 = DeviceSpec::preset("sm_90");
const DeviceSpec kA100 = DeviceSpec::preset("sm_80");

// The blocked dot kernel's domain, stated apart from dotBlocksLoseBy: both operands K-major and
// 16-byte aligned, a short side of one or two, and blocks of eight or four rows of the long side
// (8 / rows of the short side) that fit one wave of four CTAs an SM.
bool blockedByDefault(const MatmulProblem& p, const DeviceSpec& device) {
  const int64_t short_side = std::min(p.m, p.n), long_side = std::max(p.m, p.n);
  if (p.layout != Layout::TN || p.align_a < 8 || p.align_b < 8 || short_side > 2) return false;
  const int64_t per_block = 8 / static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(short_side)));
  return p.batch * ceilDiv(long_side, per_block) <= device.sm_count * 4;
}

// By default where a thread keeps at most kDotMaxSums sums and reads a K element in at most
// kDotMaxReadsPerK reads (16-byte reads of aligned K-major operands, within kDotMaxFmasPerRead
// multiply-adds; else one element); asked for, on every problem of at most 8x8 outputs.
TEST(DotKernel, RunsProblemsOfFewSumsAndReadsByDefaultAndAnyOfAtMostEightByEightAsked) {
  ScheduleOverrides asked;
  asked.dot = true;
  for (const DeviceSpec& device : {kH100, kA100}) {
    for (const Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
      for (int64_t m = 1; m <= 10; ++m) {
        for (int64_t n = 1; n <= 10; ++n) {
          const MatmulProblem p = bf16Problem(m, n, 4096, layout);
          const MatmulSchedule s = schedule(p, device);
          const MatmulProblem kernel = s.kernelProblem();
          const int64_t rows = std::bit_ceil(static_cast<uint64_t>(kernel.m));
          const int64_t cols = std::bit_ceil(static_cast<uint64_t>(kernel.n));
          const bool k_major = majorOfA(kernel.layout) == Major::K && majorOfB(kernel.layout) == Major::K;
          const int64_t vec = k_major ? std::min<int64_t>(8, std::bit_floor(static_cast<uint64_t>(128 / (rows * cols)))) : 1;
          const bool expected = (m <= 8 && n <= 8 && rows * cols <= 16 && rows + cols <= 8 * vec) ||
                                (std::max(m, n) > 8 && blockedByDefault(p, device));
          EXPECT_EQ(s.params.dot.has_value(), expected) << p.toString() << " on " << device.name;
          EXPECT_TRUE(std::ranges::any_of(s.decisions, [](const Decision& d) { return d.what == "kernel"; }));
          EXPECT_EQ(s.decisions.back().what, "l2 reads") << "the L2 policy is decided for the kernel chosen";
          if (m > 8 || n > 8) continue;
          const MatmulSchedule a = schedule(p, device, asked);
          ASSERT_TRUE(a.params.dot.has_value()) << p.toString();
          EXPECT_EQ(a.params.dot->rows, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(a.kernelProblem().m))));
          EXPECT_EQ(a.params.dot->cols, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(a.kernelProblem().n))));
          EXPECT_FALSE(a.params.pad_a || a.params.pad_b) << "dot kernels read in place";
        }
      }
    }
  }
}

TEST(DotKernel, TiledKernelsWhereTheDotKernelCannotOrIsNotAsked) {
  const MatmulProblem small = bf16Problem(4, 4, 65536);
  const auto tiled = [&](const MatmulProblem& p, const ScheduleOverrides& o) { return !schedule(p, kH100, o).params.dot; };
  MatmulProblem fp8 = small;
  fp8.a_dtype = fp8.b_dtype = DType::E4M3;
  EXPECT_TRUE(tiled(fp8.validate(), {}));
  ScheduleOverrides o;
  o.specialize_shape = true;
  EXPECT_TRUE(tiled(small, o));
  o = {};
  o.deterministic = true;
  EXPECT_TRUE(tiled(small, o));
  o = {};
  o.cta_tile = TileShape{64, 8, 128};
  EXPECT_TRUE(tiled(small, o));
  o = {};
  o.dot = false;
  EXPECT_TRUE(tiled(small, o));
  EXPECT_FALSE(tiled(small, {}));
  // Asked for where it cannot run: an error naming why.
  o = {};
  o.dot = true;
  try {
    schedule(bf16Problem(9, 9, 65536), kH100, o);
    ADD_FAILURE() << "a dot kernel for 9x9 outputs";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 8 rows of A or columns of B"), std::string::npos) << e.what();
  }
  // More blocks than the grid's third extent holds.
  try {
    schedule(bf16Problem(1, 8 * 65536, 64), kH100, o);
    ADD_FAILURE() << "a dot kernel of 65536 blocks";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("a launch holds at most 65535"), std::string::npos) << e.what();
  }
  // Asked for beside a tiled override: the dot kernel.
  o.cluster_m = 1;
  EXPECT_FALSE(tiled(small, o));
}

// Every chunk holds K steps, the chunks cover K once, and the grid keeps kDotCtasPerSm CTAs an SM
// reading where K has steps enough, over every batch entry.
ScheduleOverrides dotAsked() {
  ScheduleOverrides o;
  o.dot = true;
  return o;
}

// Where one side has at most 8 outputs and the other more, the kernel is cut into blocks along the
// long side: each block holds every output of the short side beside as many of the long side as
// kDotBlockSums sums a thread allow, the blocks tile the long side, and the launch has a CTA a
// block (and chunk of K). By default only where one wave of blocks reads one or two rows beside a
// K-major weight (blockedByDefault).
TEST(DotKernel, BlocksRunAlongTheLongSide) {
  for (const Layout layout : {Layout::TN, Layout::NT}) {
    for (const auto& [m, n] : {std::pair<int64_t, int64_t>{1, 4096}, {1, 4224}, {1, 4232}, {2, 2112}, {2, 2116}, {3, 1000}, {8, 9}, {4096, 1}, {9, 5}, {100, 2}}) {
      const MatmulProblem p = bf16Problem(m, n, 4096, layout);
      const MatmulSchedule asked = schedule(p, kH100, dotAsked());
      ASSERT_TRUE(asked.params.dot.has_value()) << p.toString();
      const DotParams& dot = *asked.params.dot;
      const MatmulProblem kernel = asked.kernelProblem();
      const std::string what = p.toString() + ": " + dot.toString();
      EXPECT_LE(dot.rows * dot.cols, kDotBlockSums) << what;
      EXPECT_TRUE(kernel.m <= dot.rows || kernel.n <= dot.cols) << what << ": the short side is cut";
      const int64_t blocks = dotBlocks(kernel, dot);
      EXPECT_EQ(blocks, kernel.m <= dot.rows ? ceilDiv(kernel.n, dot.cols) : ceilDiv(kernel.m, dot.rows)) << what;
      const DotSplit split = planDotSplit(kernel, dot, kH100);
      EXPECT_EQ(split.blocks, blocks) << what;
      EXPECT_LE(split.chunks * blocks, std::max<int64_t>(blocks, kH100.sm_count * kDotCtasPerSm)) << what;
      const codegen::KernelSource source = codegen::emit(asked);
      EXPECT_EQ(source.launch.grid[2], static_cast<uint32_t>(blocks)) << what;
      EXPECT_EQ(schedule(p, kH100).params.dot.has_value(), blockedByDefault(p, kH100)) << what;
    }
  }
}

TEST(DotKernel, ChunksCoverKOnceAndKeepTheSmsReading) {
  for (const int64_t batch : {1, 2, 7, 100, 600}) {
    for (int64_t k = 1; k <= 2'000'000; k = k * 3 + 1) {
      const MatmulProblem p = testing::bf16Problem(2, 3, k);
      MatmulProblem batched = p;
      batched.batch = batch;
      batched.validate();
      const DotParams dot = dotParamsFor(batched);
      const DotSplit split = planDotSplit(batched, dot, kH100);
      const int64_t steps = ceilDiv(k, dot.kStep());
      const int64_t reading = std::max<int64_t>(1, kH100.sm_count * kDotCtasPerSm / batch);
      const std::string what = batched.toString() + ": " + split.toString();
      EXPECT_GE(split.chunks * split.chunk_steps, steps) << what;
      EXPECT_LT((split.chunks - 1) * split.chunk_steps, steps) << what << ": an empty chunk";
      EXPECT_LE(split.chunks, reading) << what;
      EXPECT_GT(2 * split.chunks, std::min(steps, reading)) << what << ": fewer CTAs than the SMs could keep reading";
    }
  }
}

TEST(DotKernel, ReadsSixteenBytesAlongKWhereBothOperandsAllow) {
  const auto vec = [](const MatmulProblem& p) { return dotParamsFor(p).vec; };
  EXPECT_EQ(vec(bf16Problem(2, 3, 4096)), 8);
  for (const Layout layout : {Layout::NT, Layout::NN, Layout::TT}) EXPECT_EQ(vec(bf16Problem(2, 3, 4096, layout)), 1);
  MatmulProblem p = bf16Problem(2, 3, 4096);
  for (const auto& [lda, expected] : {std::pair{4097, 1}, {4098, 2}, {4100, 4}, {4104, 8}}) {
    p.lda = lda;
    p.align_a = 0;
    EXPECT_EQ(vec(p.validate()), expected) << "lda " << lda;
  }
  // Enough reads a step to keep kDotBytesInFlight bytes in flight a thread, or the most unrolled.
  for (int64_t m = 1; m <= 8; ++m) {
    for (const Layout layout : {Layout::TN, Layout::NT}) {
      const MatmulProblem q = bf16Problem(m, 8, 4096, layout);
      const DotParams d = dotParamsFor(q);
      EXPECT_TRUE(d.rows * d.cols * d.vec <= kDotMaxFmasPerRead || d.vec == 1) << d.toString();
      EXPECT_TRUE(d.vec == 8 || layout != Layout::TN || 2 * d.rows * d.cols * d.vec > kDotMaxFmasPerRead)
          << d.toString() << ": not the widest";
      const int64_t step_bytes = (d.rows + d.cols) * d.vec * 2;
      EXPECT_TRUE(d.unroll * step_bytes >= kDotBytesInFlight || d.unroll == kDotMaxUnroll) << d.toString();
      EXPECT_TRUE(d.unroll == 1 || (d.unroll / 2) * step_bytes < kDotBytesInFlight) << d.toString() << ": not the least";
    }
  }
}

TEST(DotKernel, ParamsRoundTripAndRefuseWhatTheyCannotRun) {
  const MatmulProblem p = bf16Problem(3, 5, 7777, Layout::TT);
  const MatmulSchedule s = schedule(p, kH100, dotAsked());
  ASSERT_TRUE(s.params.dot.has_value());
  const nlohmann::json j = s.params;
  EXPECT_EQ(j.get<MatmulParams>(), s.params);
  EXPECT_NE(s.params.hash(), [&] {
    MatmulParams tiled = s.params;
    tiled.dot.reset();
    return tiled.hash();
  }());
  const auto refused = [&](MatmulParams params, const char* says) {
    try {
      scheduleWith(p, kH100, params);
      ADD_FAILURE() << params.toString() << " ran " << p.toString();
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  MatmulParams bad = s.params;
  bad.dot->rows = bad.dot->cols = 2;
  refused(bad, "pass the dot kernel's");
  bad = s.params;
  bad.dot->vec = 8;
  refused(bad, "dot vec 8");
  bad = s.params;
  bad.dot->unroll = 3;
  refused(bad, "dot unroll 3");
  bad = s.params;
  bad.deterministic = true;
  refused(bad, "fixed order");
}

TEST(DotKernel, OneSourceForEveryProblemOfItsConfiguration) {
  const MatmulSchedule a = schedule(bf16Problem(3, 5, 7777, Layout::TT), kH100, dotAsked());
  const MatmulSchedule b = schedule(bf16Problem(4, 7, 100, Layout::TT), kH100, dotAsked());
  ASSERT_TRUE(a.params.dot && b.params.dot);
  const codegen::KernelSource sa = codegen::emit(a), sb = codegen::emit(b);
  EXPECT_EQ(sa.kernel_name, sb.kernel_name);
  EXPECT_EQ(sa.cuda, sb.cuda);
  EXPECT_EQ(sa.kernel_name.rfind("tilegrid_dot_", 0), 0u) << sa.kernel_name;
  const DotSplit split = planDotSplit(a.kernelProblem(), *a.params.dot, kH100);
  EXPECT_EQ(sa.launch.grid[0], static_cast<uint32_t>(split.chunks));
  EXPECT_EQ(sa.launch.grid[1], 1u);
  EXPECT_EQ(sa.launch.block[0], static_cast<uint32_t>(a.params.dot->threads));
  EXPECT_EQ(testing::configValue(sa.cuda, "ROWS"), std::to_string(a.params.dot->rows));
  ASSERT_EQ(sa.args.size(), 5u);
  EXPECT_EQ(sa.args[4].buffer, "workspace");
  EXPECT_EQ(sa.args[4].workspace_bytes, codegen::workspaceZeroBytes(kH100));
}

}  // namespace
}  // namespace tilegrid::scheduler
