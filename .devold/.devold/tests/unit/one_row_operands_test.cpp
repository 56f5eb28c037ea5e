// An operand stored as one contiguous row is described K-major with a leading dimension of whole
// 16-byte vectors (MatmulProblem::validate). The defining property: every element of every operand
// sits at the same offset under the new description as under the caller's, over a whole small
// domain of shapes, layouts, leading dimensions and batch strides.
#include <gtest/gtest.h>

#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::scheduler {
namespace {

// Offset of element (row r of the operand's M or N, column k) of batch entry b, as described.
int64_t offsetOf(Major major, int64_t ld, int64_t stride, int64_t b, int64_t r, int64_t k) {
  return b * stride + (major == Major::K ? r * ld + k : k * ld + r);
}

// The same problem with every field filled but nothing redescribed: a given alignment of 1 element
// leaves the caller's description as it is.
MatmulProblem asGiven(MatmulProblem p) {
  p.align_a = p.align_b = p.align_c = 1;
  return p.validate();
}

TEST(OneRowOperands, EveryElementKeepsItsOffset) {
  int checked = 0, redescribed = 0;
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (int64_t m : {1, 2}) {
      for (int64_t n : {1, 3}) {
        for (int64_t k = 1; k <= 19; k += 3) {
          for (int64_t batch : {1, 2}) {
            for (int64_t ld_pad : {0, 1, 5}) {
              for (int64_t stride_pad : {-1, 0, 7}) {  // -1: packed (0)
                MatmulProblem p;
                p.m = m, p.n = n, p.k = k, p.batch = batch, p.layout = layout;
                const MatmulProblem packed = asGiven(p);
                if (ld_pad > 0) {
                  p.lda = packed.lda + ld_pad, p.ldb = packed.ldb + ld_pad, p.ldc = packed.ldc + ld_pad;
                }
                const MatmulProblem given = asGiven(p);
                if (stride_pad >= 0) {
                  p.stride_a = given.stride_a + stride_pad, p.stride_b = given.stride_b + stride_pad;
                  p.stride_c = given.stride_c + stride_pad;
                }
                const MatmulProblem before = asGiven(p);
                MatmulProblem after = p;
                after.validate();
                ASSERT_EQ(after.spanA(), before.spanA()) << after.toString();
                ASSERT_EQ(after.spanB(), before.spanB()) << after.toString();
                ASSERT_EQ(after.spanC(), before.spanC()) << after.toString();
                EXPECT_GE(after.align_a, before.align_a) << after.toString();
                if (after.layout != before.layout || after.lda != before.lda || after.ldb != before.ldb ||
                    after.ldc != before.ldc) {
                  ++redescribed;
                }
                for (int64_t b = 0; b < batch; ++b) {
                  for (int64_t kk = 0; kk < k; ++kk) {
                    for (int64_t r = 0; r < m; ++r) {
                      ASSERT_EQ(offsetOf(majorOfA(after.layout), after.lda, after.stride_a, b, r, kk),
                                offsetOf(majorOfA(before.layout), before.lda, before.stride_a, b, r, kk))
                          << "A of " << before.toString() << " read as " << after.toString();
                    }
                    for (int64_t r = 0; r < n; ++r) {
                      ASSERT_EQ(offsetOf(majorOfB(after.layout), after.ldb, after.stride_b, b, r, kk),
                                offsetOf(majorOfB(before.layout), before.ldb, before.stride_b, b, r, kk))
                          << "B of " << before.toString() << " read as " << after.toString();
                    }
                  }
                  for (int64_t r = 0; r < m; ++r) {
                    for (int64_t c = 0; c < n; ++c) {
                      ASSERT_EQ(offsetOf(Major::K, after.ldc, after.stride_c, b, r, c),
                                offsetOf(Major::K, before.ldc, before.stride_c, b, r, c));
                    }
                  }
                }
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(redescribed, checked / 4) << "the domain must exercise the redescription";
}

TEST(OneRowOperands, DecodeReadsItsVectorWithoutAPaddedCopy) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  MatmulProblem p;
  p.m = 1, p.n = 4096, p.k = 4096, p.layout = Layout::NT;
  const MatmulSchedule s = schedule(p, h100);
  EXPECT_EQ(majorOfA(s.problem.layout), Major::K);
  EXPECT_EQ(s.problem.align_a, 8);
  EXPECT_FALSE(s.params.pad_a || s.params.pad_b) << s.params.toString();
  // A strided column (lda > 1) is not contiguous: it stays M-major and is padded.
  p.lda = 3;
  const MatmulSchedule strided = schedule(p, h100);
  EXPECT_EQ(majorOfA(strided.problem.layout), Major::MN);
  // (computing C^T, the caller's A is the kernel's B)
  EXPECT_TRUE(strided.params.swap_ab ? strided.params.pad_b : strided.params.pad_a) << strided.params.toString();
  // A given alignment keeps the caller's description.
  p.lda = 0;
  p.align_a = 1;
  EXPECT_EQ(schedule(p, h100).problem.layout, Layout::NT);
}

TEST(OneRowOperands, AnOddRowGetsAWholeVectorLeadingDimension) {
  MatmulProblem p;
  p.m = 1, p.n = 4095, p.k = 4095, p.layout = Layout::TN;
  p.validate();
  EXPECT_EQ(p.lda, 4096);
  EXPECT_EQ(p.align_a, 8);
  EXPECT_EQ(p.ldc, 4096);
  // Batched with packed strides of one row: the stride stays the caller's, so the leading
  // dimension cannot grow past it.
  MatmulProblem batched;
  batched.m = 1, batched.n = 4095, batched.k = 4095, batched.batch = 2, batched.layout = Layout::TN;
  batched.validate();
  EXPECT_EQ(batched.stride_a, 4095);
  EXPECT_EQ(batched.lda, 4095);
}

}  // namespace
}  // namespace tilegrid::scheduler
