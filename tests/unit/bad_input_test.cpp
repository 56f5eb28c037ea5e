// The table of bad input (issue #8): every entry point rejects it with a message naming the
// argument, the value and what is allowed. The CLI exits 2 and never aborts; the library throws
// UserError (never InternalError, never a crash).
#include <gtest/gtest.h>

#include <functional>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "tilegrid/runtime/dump.h"
#include "measure/matmul_run.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/scheduler/bank_model.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/cli_runner.h"

namespace tilegrid {
namespace {

struct CliCase {
  std::vector<std::string> args;
  std::vector<std::string> needles;  // each must appear in the message
};

TEST(BadInput, CliExitsTwoNamingTheArgumentTheValueAndWhatIsAllowed) {
  const std::vector<std::string> p{"--m", "64", "--n", "64", "--k", "64"};
  auto plan = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"plan"};
    args.insert(args.end(), p.begin(), p.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<CliCase> cases = {
      // sizes: zero, negative, overflowing, too large to address, not numbers
      {{"plan", "--m", "0", "--n", "64", "--k", "64"}, {"M=0", ">= 1"}},
      {{"plan", "--m", "-5", "--n", "64", "--k", "64"}, {"M=-5", ">= 1"}},
      {{"plan", "--m", "64", "--n", "64", "--k", "99999999999999999999"}, {"--k", "99999999999999999999", "out of range"}},
      {{"plan", "--m", "3000000000", "--n", "3000000000", "--k", "3000000000"}, {"M=3000000000", "at most 2147483647", "32 bits"}},
      {{"plan", "--m", "2147483648", "--n", "64", "--k", "64"}, {"M=2147483648", "at most 2147483647"}},
      {{"compile", "--m", "4294967296", "--n", "512", "--k", "512"}, {"M=4294967296", "at most 2147483647"}},
      {{"emit", "--m", "512", "--n", "512", "--k", "64", "--batch", "1073741824", "--persistent", "off", "--arch", "sm_80"},
       {"8589934592 work units", "at most 2147483647"}},
      // tiles past anything a kernel holds: refused, never divided by
      {plan({"--cta-tile", "9223372036854775800,64,64"}), {"9223372036854775800"}},
      {plan({"--arch", "sm_80", "--cta-tile", "128,128,64", "--warp-tile", "9223372036854775792,64"}),
       {"warp tile", "from 1 to 4096"}},
      // output files: a folder that is not there is named, nothing is written
      {{"emit", "--m", "64", "--n", "64", "--k", "64", "-o", "/nonexistent-folder/k.cu"},
       {"-o", "/nonexistent-folder/k.cu", "No such file or directory"}},
      {{"plan", "--m", "2000000000", "--n", "2000000000", "--k", "2000000000", "--batch", "3"},
       {"A (2000000000 x 2000000000", "batch 3", "64-bit"}},
      {{"plan", "--m", "1024", "--n", "1024", "--k", "64", "--batch", "2147483647"}, {"work units", "at most 2147483647"}},
      // leading dimensions and batch strides
      {plan({"--lda", "10"}), {"lda is 10", "less than the 64 contiguous elements"}},
      {plan({"--lda", "-1"}), {"lda is -1", "0 (packed)"}},
      {plan({"--ldc", "4294967296"}), {"ldc is 4294967296", "to 2147483647"}},
      {plan({"--batch", "2", "--stride-c", "100"}), {"batch stride of C is 100", "batch entries would overlap"}},
      {plan({"--batch", "2", "--stride-b", "-4"}), {"batch stride of B is -4"}},
      {{"plan", "--m", "abc", "--n", "64", "--k", "64"}, {"--m", "'abc'", "not an integer"}},
      {{"plan", "--m", "6.5", "--n", "64", "--k", "64"}, {"--m", "'6.5'", "not an integer"}},
      {plan({"--batch", "0"}), {"batch must be from 1 to 2147483647", "got 0"}},
      // unknown names
      {plan({"--dtype", "fp8"}), {"--dtype", "'fp8'", "bf16, fp16, e4m3 or e5m2"}},
      {plan({"--dtype", "fp32"}), {"--dtype", "fp32", "bf16, fp16, e4m3 or e5m2"}},
      {plan({"--out-dtype", "int8"}), {"--out-dtype", "'int8'", "bf16, fp16 or fp32"}},
      {plan({"--dtype", "e4m3", "--out-dtype", "e5m2"}), {"--out-dtype", "'e5m2'", "bf16, fp16 or fp32"}},
      {plan({"--scale", "bogus"}), {"--scale", "'bogus'", "none, tensor, row or block128"}},
      // 8-bit inputs: what wgmma and the scales allow
      {plan({"--dtype", "e4m3", "--layout", "NT"}), {"8-bit operands must both be K-major", "got NT"}},
      {plan({"--dtype", "e5m2", "--arch", "sm_80"}), {"8-bit inputs (e5m2, e5m2)", "sm_90a", "sm_80"}},
      {plan({"--dtype", "bf16", "--b-dtype", "fp16"}), {"same 16-bit dtype", "bf16 and fp16"}},
      {plan({"--dtype", "bf16", "--scale", "tensor"}), {"scales (tensor) dequantize 8-bit inputs", "bf16"}},
      {plan({"--dtype", "e4m3", "--scale", "block128", "--epilogue", "acc * scale_a"}), {"block scales apply", "main loop"}},
      {plan({"--dtype", "e4m3", "--scale", "block128", "--pingpong", "on"}), {"block128", "no ping-pong"}},
      {plan({"--dtype", "e4m3", "--scale", "block128", "--cta-tile", "128,256,128"}), {"n dividing 128", "128x256x128"}},
      {plan({"--dtype", "e4m3", "--epilogue", "relu(acc * scale_a)"}), {"reads scale_a or scale_b", "scale none"}},
      {plan({"--dtype", "e4m3", "--cta-tile", "128,128,96"}), {"128x128x96", "multiple of 64"}},
      {plan({"--layout", "XY"}), {"--layout", "'XY'", "TN, NT, NN or TT"}},
      {plan({"--arch", "sm_75"}), {"--arch", "'sm_75'", "sm_80 or sm_90"}},
      {plan({"--method", "zigzag"}), {"--method", "'zigzag'", "none, split-merge or swizzle-merge"}},
      {plan({"--group", "k"}), {"--group", "'k'", "m or n"}},
      {plan({"--stream-k", "maybe"}), {"--stream-k", "'maybe'", "on or off"}},
      {plan({"--persistent", "off", "--stream-k", "on"}), {"stream_k", "persistent sm_90"}},
      {plan({"--swap-ab", "yes"}), {"--swap-ab", "'yes'", "on or off"}},
      {plan({"--arch", "sm_80", "--swap-ab", "on"}), {"swap_ab", "sm_90 kernels only"}},
      {plan({"--persistent", "1"}), {"--persistent", "'1'", "on or off"}},
      {plan({"--pad-operands", "auto"}), {"--pad-operands", "'auto'", "on or off"}},
      {plan({"--arch", "sm_80", "--mma-order", "diagonal"}), {"--mma-order", "'diagonal'", "rows or columns"}},
      {plan({"--arch", "sm_90", "--mma-order", "columns"}), {"mma_order columns", "sm_90 kernels take rows"}},
      {{"frobnicate"}, {"'frobnicate'", "grid, plan"}},
      {plan({"--frobnicate", "1"}), {"--frobnicate"}},
      {{"grid", "--format", "xml"}, {"--format", "'xml'", "csv, table, json or svg"}},
      // factors
      {plan({"--factor", "0"}), {"--factor", "is 0", ">= 1"}},
      {plan({"--factor", "-2"}), {"--factor", "-2", ">= 1"}},
      {plan({"--factor", "4,0"}), {"--factor", "#2 is 0", ">= 1"}},
      {plan({"--factor", "9223372036854775807"}), {"--factor", "<= 2147483647"}},
      {plan({"--factor", "4,,2"}), {"--factor", "empty entry"}},
      {plan({"--method", "split-merge", "--factor", "8,2"}), {"exactly one factor", "swizzle-merge"}},
      {{"grid", "--tiles", "5,5", "--factor", "0"}, {"--factor", "got 0", "between 1 and"}},
      // malformed layouts, swizzles, tiles
      {{"banks", "--layout", "(32,64)"}, {"'(32,64)'", "(R,C):(S0,S1)"}},
      {{"banks", "--layout", "(32,64):(64,x)"}, {"'(32,64):(64,x)'", "(R,C):(S0,S1)"}},
      {{"banks", "--layout", "(32,64):(64,1)", "--swizzle", "3,4"}, {"--swizzle", "'3,4'", "B,M,S"}},
      {{"banks", "--layout", "(32,64):(64,1)", "--swizzle", "3,4,x"}, {"--swizzle", "'x'", "not an integer"}},
      {plan({"--cta-tile", "128,128"}), {"--cta-tile", "'128,128'", "M,N,K"}},
      {plan({"--cta-tile", "128,x,32"}), {"--cta-tile", "'x'", "not an integer"}},
      {plan({"--cta-tile", "128x128"}), {"--cta-tile", "'128x128'", "M,N,K or MxNxK"}},
      {plan({"--cta-tile", "128xx64"}), {"--cta-tile", "'128xx64'", "empty entry", "M,N,K or MxNxK"}},
      {plan({"--cta-tile", "128x256,64"}), {"--cta-tile", "'128x256'", "not an integer"}},
      {plan({"--warp-tile", "64x64x16"}), {"--warp-tile", "'64x64x16'", "M,N or MxN"}},
      {plan({"--warp-tile", "7,7"}), {"warp_tile 7x7", "divide cta_tile"}},
      // tiles that do not fit shared memory or break instruction shapes
      {plan({"--cta-tile", "128,256,512"}), {"cta_tile 128x256x512", "bytes of shared memory", "allows"}},
      {plan({"--cta-tile", "1024,1024,256"}), {"16 consumer warpgroups", "1 to 4"}},
      {plan({"--cta-tile", "256,256,64"}), {"128 accumulator registers", "narrower cta_tile n"}},
      {plan({"--cta-tile", "256,160,64"}), {"needs 80 accumulator registers", "128-row warpgroup tiles"}},
      {plan({"--cta-tile", "256,160,64", "--warp-tile", "128,160"}), {"160 accumulator registers", "at most 152 for accumulators"}},
      {plan({"--cta-tile", "384,128,64", "--warp-tile", "192,128"}), {"192x128x64", "64 or 128 rows"}},
      {plan({"--arch", "sm_80", "--cta-tile", "100,128,32"}), {"100x128x32", "multiples of 8"}},
      // wider than one wgmma: the schedule holds, the sm_90 emitter refuses it
      {{"emit", "--m", "64", "--n", "300", "--k", "64", "--arch", "sm_90", "--cta-tile", "128,264,64"},
       {"128x264x64", "an n of 8 to 256"}},
      {plan({"--stages", "0"}), {"stages is 0", "2 to 32"}},
      {plan({"--cluster", "3"}), {"cluster 3x1", "powers of two"}},
      {{"emit", "--m", "64", "--n", "64", "--k", "64", "--arch", "sm_90", "--cluster", "8"}, {"1, 2 or 4", "got 8x1"}},
      {{"plan", "--m", "64", "--n", "64", "--k", "64", "--arch", "sm_90", "--cluster", "8"}, {"1, 2 or 4", "got 8x1"}},
      // A warp tile larger than the CTA tile gives no warps: refused before any heuristic divides by them.
      {{"plan", "--m", "512", "--n", "512", "--k", "512", "--arch", "sm_80", "--warp-tile", "128,128", "--cta-tile",
        "64,64,32"},
       {"128x128x32", "must divide cta_tile 64x64x32"}},
      {{"sweep", "--m", "64", "--n", "64", "--k", "64", "--factors", "0"}, {"--factors", "is 0", ">= 1"}},
      {{"bench", "--suite", "bench/suites/shapes.json", "--flush", "sideways"}, {"--flush", "sideways", "write", "read"}},
      {{"run", "--m", "64", "--n", "64", "--k", "64", "--iters", "-1"}, {"--iters", "-1", "0 to 100000"}},
      {{"run", "--m", "64", "--n", "64", "--k", "64", "--reference", "gpu"}, {"--reference", "'gpu'", "cublas or cpu"}},
      {{"run", "--m", "64", "--n", "64", "--k", "64", "--baseline", "torch"}, {"--baseline", "'torch'", "cublas or none"}},
      {{"run", "--m", "64", "--n", "64", "--k", "64", "--flush", "none"}, {"--flush", "'none'", "write or read"}},
  };
  for (const CliCase& c : cases) {
    const auto r = testing::runCli(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined << "\n" << r.out << r.err;
    EXPECT_EQ(r.err.find("bug"), std::string::npos) << joined << ": " << r.err;
    for (const std::string& needle : c.needles) EXPECT_NE(r.err.find(needle), std::string::npos) << joined << ": " << r.err;
  }
}

struct LibraryCase {
  std::string what;
  std::function<void()> call;
  std::vector<std::string> needles;
};

// A device address for the operand checks, which look at nothing but the number.
const void* address(uintptr_t at) { return reinterpret_cast<const void*>(at); }

scheduler::MatmulProblem problem64() {
  scheduler::MatmulProblem p;
  p.m = p.n = p.k = 64;
  return p.validate();
}

// Messages echo what the user gave: control characters come out escaped and a long argument cut, so
// an error cannot rewrite the terminal or flood the log.
TEST(BadInput, EchoedArgumentsAreEscapedAndCut) {
  const auto escaped = testing::runCli({"plan", "--m", "12\x1b[31m\a", "--n", "1", "--k", "1"});
  EXPECT_EQ(escaped.status, 2);
  EXPECT_NE(escaped.err.find("12\\x1b[31m\\x07"), std::string::npos) << escaped.err;
  EXPECT_EQ(escaped.err.find('\x1b'), std::string::npos);
  const auto long_arg = testing::runCli({"plan", "--m", std::string(100000, '7') + "x", "--n", "1", "--k", "1"});
  EXPECT_EQ(long_arg.status, 2);
  EXPECT_LT(long_arg.err.size(), 600u) << long_arg.err.size();
  EXPECT_NE(long_arg.err.find("more characters)"), std::string::npos) << long_arg.err;
}

TEST(BadInput, LibraryThrowsUserErrorsThatSayWhatIsAllowed) {
  const scheduler::DeviceSpec h100 = scheduler::DeviceSpec::preset("sm_90");
  scheduler::DeviceSpec turing = h100;
  turing.name = "Tesla T4";
  turing.cc_major = 7;
  turing.cc_minor = 5;
  const std::vector<LibraryCase> cases = {
      {"k = 0", [] { scheduler::MatmulProblem p; p.m = p.n = 8; p.validate(); }, {"K=0", ">= 1"}},
      {"alignment 3", [] { auto p = problem64(); p.align_a = 3; p.validate(); }, {"alignment of A is 3", "power of two"}},
      {"device older than sm_80", [&] { scheduler::schedule(problem64(), turing); }, {"Tesla T4", "7.5", "sm_80 or newer"}},
      {"unknown device preset", [] { scheduler::DeviceSpec::preset("sm_70"); }, {"sm_70", "sm_80"}},
      {"factor 0", [] { ir::validateSwizzleFactors({8, 0}); }, {"#2 is 0", ">= 1"}},
      {"empty factor list", [] { ir::validateSwizzleFactors({}); }, {"factor"}},
      {"smem overflow",
       [&] {
         scheduler::ScheduleOverrides o;
         o.cta_tile = scheduler::TileShape{128, 256, 128};
         o.stages = 8;
         scheduler::chooseParams(problem64(), h100, o);
       },
       {"128x256x128", "shared memory"}},
      {"ping-pong with stream-K", [&] { scheduler::chooseParams(problem64(), h100, {.stream_k = true, .pingpong = true}); },
       {"ping-pong", "stream-K off", "got stream-K"}},
      {"ping-pong with split-merge",
       [&] { scheduler::chooseParams(problem64(), h100, {.method = scheduler::GridMethod::SplitMerge, .pingpong = true}); },
       {"ping-pong", "none or swizzle-merge", "split-merge"}},
      {"ping-pong tile of 256 rows",
       [&] {
         scheduler::chooseParams(problem64(), h100, {.cta_tile = scheduler::TileShape{256, 128, 64}, .pingpong = true});
       },
       {"256x128x64", "64 or 128 rows"}},
      {"ping-pong on sm_80", [&] { scheduler::chooseParams(problem64(), h100, {.arch = scheduler::Arch::Sm80, .pingpong = true}); },
       {"ping-pong", "sm_90"}},
      {"unknown dump name", [] { runtime::DumpConfig::parse("cuda,assembly"); }, {"'assembly'", "valid names"}},
      {"unknown L2 flush", [] { runtime::parseL2Flush("evict"); }, {"'evict'", "write", "read"}},
      {"malformed layout", [] { scheduler::Layout2D::parse("(4,4):(1)"); }, {"'(4,4):(1)'", "(R,C):(S0,S1)"}},
      {"null pointer", [] { runtime::checkOperands(problem64(), nullptr, address(256), address(512)); }, {"operand A", "null"}},
      {"misaligned pointer",
       [] { runtime::checkOperands(problem64(), address(256), address(0x1002), address(512)); },
       {"operand B", "0x1002", "16-byte aligned", "align_b = 1"}},
  };
  for (const LibraryCase& c : cases) {
    try {
      c.call();
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const UserError& e) {
      for (const std::string& needle : c.needles) EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << c.what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.what << ": threw something other than UserError: " << e.what();
    }
  }
}

}  // namespace
}  // namespace tilegrid
