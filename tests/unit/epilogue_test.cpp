// The epilogue IR: parsing, printing, evaluation, and what the rest of tilegrid makes of it (kernel
// identity, the printed device function, plan's report, launch-argument checks).
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/epilogue_function.h"
#include "tilegrid/ir/epilogue.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/epilogue_args.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/scheduler/epilogue_plan.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::ir {
namespace {

std::string errorOf(const std::string& text) {
  try {
    Epilogue::parse(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(EpilogueIr, PrintedTextParsesBackToTheSameEpilogue) {
  for (const char* text :
       {"acc", "gelu(alpha*acc + bias[n])", "alpha*acc + beta*c", "relu(acc + bias[m]); aux = acc + bias[m]",
        "silu(acc) * 2", "acc - (acc - c)", "acc / (2 / residual)", "-acc * -2", "-(acc + 1.5e-3)", "acc - -c",
        "max(min(acc, 1), -1) + gelu_tanh(exp(tanh(sigmoid(acc))))", "bf16(fp16(acc)) * 0.25;", "(((acc)))"}) {
    const Epilogue e = Epilogue::parse(text);
    const Epilogue again = Epilogue::parse(e.toString());
    EXPECT_EQ(again, e) << text << " printed as " << e.toString();
    EXPECT_EQ(again.toString(), e.toString());
    EXPECT_EQ(again.hash(), e.hash());
  }
}

TEST(EpilogueIr, PrecedenceAndAssociativityFollowArithmetic) {
  const EpLeaves in{3.0, 2.0, 0.5, 7.0, 11.0, 13.0};  // acc alpha beta bias c residual
  const auto value = [&](const char* text) { return Epilogue::parse(text).evaluate(in); };
  EXPECT_DOUBLE_EQ(value("acc - c - bias[n]"), 3.0 - 11.0 - 7.0);
  EXPECT_DOUBLE_EQ(value("acc / alpha / beta"), 3.0 / 2.0 / 0.5);
  EXPECT_DOUBLE_EQ(value("acc + alpha * c"), 3.0 + 2.0 * 11.0);
  EXPECT_DOUBLE_EQ(value("-acc * 2"), -6.0);
  EXPECT_DOUBLE_EQ(value("max(acc, c) - min(residual, 1)"), 11.0 - 1.0);
  EXPECT_DOUBLE_EQ(value("relu(-acc) + relu(acc)"), 3.0);
  EXPECT_NEAR(value("gelu(acc)"), 3.0 * 0.5 * (1 + std::erf(3.0 / std::sqrt(2.0))), 1e-12);
  EXPECT_NEAR(value("silu(acc)"), 3.0 / (1 + std::exp(-3.0)), 1e-12);
  EXPECT_DOUBLE_EQ(value("bf16(1.00390625)"), 1.0);  // halfway between bf16 1 and 1.0078125: rounds to even
  double aux = 0;
  EXPECT_DOUBLE_EQ(Epilogue::parse("relu(acc - c); aux = acc - c").evaluate(in, &aux), 0.0);
  EXPECT_DOUBLE_EQ(aux, -8.0);
}

TEST(EpilogueIr, SharedSubexpressionsAreOneNode) {
  const Epilogue e = Epilogue::parse("relu(acc + bias[m]); aux = acc + bias[m]");
  ASSERT_TRUE(e.aux().has_value());
  EXPECT_EQ(e.nodes()[static_cast<size_t>(e.output())].a, *e.aux());
  EXPECT_EQ(e.nodes().size(), 4u);  // acc, bias[m], +, relu
  EXPECT_TRUE(e.reads(EpOp::BiasM));
  EXPECT_FALSE(e.reads(EpOp::C));
  EXPECT_TRUE(Epilogue().isIdentity());
  EXPECT_TRUE(Epilogue::parse(" acc ").isIdentity());
  EXPECT_FALSE(Epilogue::parse("acc; aux = acc").isIdentity());
}

TEST(EpilogueIr, MalformedTextNamesTheColumnAndWhatWasExpected) {
  EXPECT_NE(errorOf("gelu(acc").find("column 9: expected ')' after the argument of gelu, found the end"), std::string::npos)
      << errorOf("gelu(acc");
  EXPECT_NE(errorOf("acc + foo").find("column 7: expected a known name"), std::string::npos) << errorOf("acc + foo");
  EXPECT_NE(errorOf("acc + foo").find("found 'foo'"), std::string::npos);
  EXPECT_NE(errorOf("bias + acc").find("column 6: expected '[' after bias"), std::string::npos) << errorOf("bias + acc");
  EXPECT_NE(errorOf("bias[k]").find("column 6: expected m or n"), std::string::npos) << errorOf("bias[k]");
  EXPECT_NE(errorOf("bias[m] + bias[n]").find("not both bias[m] and bias[n]"), std::string::npos)
      << errorOf("bias[m] + bias[n]");
  EXPECT_NE(errorOf("max(acc)").find("expected ',' and a second argument of max"), std::string::npos) << errorOf("max(acc)");
  EXPECT_NE(errorOf("acc acc").find("column 5: expected an operator, ';' or the end, found 'a'"), std::string::npos)
      << errorOf("acc acc");
  EXPECT_NE(errorOf("acc; out = acc").find("expected 'aux = <expression>' after ';'"), std::string::npos)
      << errorOf("acc; out = acc");
  EXPECT_NE(errorOf("c(acc)").find("expected an operator after c, which is a value"), std::string::npos) << errorOf("c(acc)");
  EXPECT_NE(errorOf("").find("column 1: expected an expression, found the end"), std::string::npos) << errorOf("");
  EXPECT_NE(errorOf("acc * ").find("expected an expression"), std::string::npos);
  EXPECT_NE(errorOf("acc * 1e300").find("outside float's range"), std::string::npos) << errorOf("acc * 1e300");
}

scheduler::MatmulProblem problemWith(const char* epilogue, int64_t m = 1000, int64_t n = 1032, int64_t k = 512) {
  scheduler::MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.epilogue = Epilogue::parse(epilogue);
  return p.validate();
}

TEST(EpilogueIr, TheEpilogueIsPartOfTheKernelsIdentity) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const auto plain = scheduler::schedule(problemWith("acc"), device);
  const auto gelu = scheduler::schedule(problemWith("gelu(acc)"), device);
  const auto relu = scheduler::schedule(problemWith("relu(acc)"), device);
  EXPECT_NE(codegen::kernelName(gelu), codegen::kernelName(plain));
  EXPECT_NE(codegen::kernelName(gelu), codegen::kernelName(relu));
  EXPECT_NE(codegen::emit(gelu).cuda, codegen::emit(relu).cuda);
  scheduler::MatmulProblem fp32_bias = problemWith("acc + bias[n]");
  scheduler::MatmulProblem bf16_bias = fp32_bias;
  fp32_bias.bias_dtype = scheduler::DType::FP32;
  EXPECT_NE(codegen::kernelName(scheduler::schedule(fp32_bias, device)),
            codegen::kernelName(scheduler::schedule(bf16_bias, device)));
  EXPECT_NE(fp32_bias, bf16_bias);
}

TEST(EpilogueIr, KernelsWithAnEpilogueCompileTheirLaunchChoicesIn) {
  // Each launch choice a kernel reads is another instance of the unrolled epilogue.
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  scheduler::MatmulProblem plain;
  plain.m = plain.n = plain.k = 4096;
  plain.validate();
  scheduler::MatmulProblem fused = plain;
  fused.epilogue = Epilogue::parse("gelu_tanh(acc + bias[n])");
  EXPECT_FALSE(scheduler::schedule(plain, device).params.launch_choices_compiled);
  const auto s = scheduler::schedule(fused, device);
  EXPECT_TRUE(s.params.launch_choices_compiled);
  EXPECT_FALSE(s.storesCBothWays());
  EXPECT_FALSE(s.cOrientationAtLaunch());
  scheduler::ScheduleOverrides read_at_launch;
  read_at_launch.launch_choices_compiled = false;
  EXPECT_FALSE(scheduler::schedule(fused, device, read_at_launch).params.launch_choices_compiled);
}

TEST(EpilogueIr, ThePrintedFunctionHasAStatementPerLiveNode) {
  const std::string text = codegen::printEpilogueFunction(problemWith("relu(alpha * acc + bias[m]); aux = alpha * acc"));
  EXPECT_NE(text.find("const float e1 = ep.alpha;"), std::string::npos) << text;
  EXPECT_NE(text.find("const float e2 = e1 * e0;"), std::string::npos) << text;
  EXPECT_NE(text.find("const float e3 = in.bias;"), std::string::npos) << text;
  EXPECT_NE(text.find("tg_relu(e4)"), std::string::npos) << text;
  EXPECT_NE(text.find("aux = e2;"), std::string::npos) << text;
  EXPECT_NE(text.find("return e5;"), std::string::npos) << text;
}

// The printed function takes the vectors' elements read (in.bias, in.scale_a, in.scale_b); the
// configuration says where each runs, so that the kernel reads each element once for the values
// using it: along m (1), along n (2), or the tensor's one value (3).
TEST(EpilogueIr, TheConfigurationSaysWhereEachVectorRuns) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const auto config_of = [&](scheduler::MatmulProblem p) {
    const std::string cuda = codegen::emit(scheduler::schedule(p, device)).cuda;
    const auto value = [&](const std::string& name) {
      const size_t at = cuda.find("constexpr int " + name + " = ");
      EXPECT_NE(at, std::string::npos) << name;
      return at == std::string::npos ? -1 : std::stoi(cuda.substr(at + name.size() + 17));
    };
    return std::array<int, 3>{value("EPILOGUE_BIAS_AXIS"), value("EPILOGUE_SCALE_A_AXIS"), value("EPILOGUE_SCALE_B_AXIS")};
  };
  EXPECT_EQ(config_of(problemWith("acc")), (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(config_of(problemWith("relu(acc + bias[m])")), (std::array<int, 3>{1, 0, 0}));
  EXPECT_EQ(config_of(problemWith("acc + bias[n]")), (std::array<int, 3>{2, 0, 0}));
  scheduler::MatmulProblem fp8 = problemWith("acc + bias[n]", 1024, 1024, 1024);
  fp8.a_dtype = fp8.b_dtype = scheduler::DType::E4M3;
  fp8.scale = scheduler::ScaleMode::Tensor;
  EXPECT_EQ(config_of(fp8.validate()), (std::array<int, 3>{2, 3, 3}));
  fp8.scale = scheduler::ScaleMode::Row;
  fp8.epilogue = Epilogue::parse("acc * scale_a * scale_b");
  EXPECT_EQ(config_of(fp8.validate()), (std::array<int, 3>{0, 1, 2}));
  const std::string text = codegen::printEpilogueFunction(fp8);
  EXPECT_NE(text.find("in.scale_a"), std::string::npos) << text;
  EXPECT_NE(text.find("in.scale_b"), std::string::npos) << text;
}

TEST(EpilogueIr, PlanReportsTheOperandsAndTheirCost) {
  const scheduler::EpiloguePlan plan = scheduler::planEpilogue(problemWith("relu(acc + bias[n]) + c; aux = acc"));
  ASSERT_EQ(plan.operands.size(), 3u);
  EXPECT_EQ(plan.operands[0].name, "bias[n]");
  EXPECT_DOUBLE_EQ(plan.operands[0].bytes_per_output, 2.0 / 1000);
  EXPECT_EQ(plan.operands[1].name, "c");
  EXPECT_TRUE(plan.operands[2].written);
  EXPECT_DOUBLE_EQ(plan.bytesPerOutput(), 2.0 / 1000 + 4.0);
  EXPECT_NE(plan.toString().find("writes aux (bf16, 2 bytes per output)"), std::string::npos) << plan.toString();
}

TEST(EpilogueIr, LaunchArgumentsAreCheckedAgainstTheEpilogue) {
  const scheduler::MatmulProblem p = problemWith("acc * residual + bias[m]");
  alignas(16) static uint16_t memory[64];
  EpilogueArgs args;
  args.bias = memory;
  const auto error = [&](const EpilogueArgs& a) {
    try {
      runtime::checkEpilogueArgs(p, a);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(args).find("epilogue operand residual"), std::string::npos) << error(args);
  args.residual = reinterpret_cast<const char*>(memory) + 1;
  EXPECT_NE(error(args).find("is not aligned to its bf16 elements"), std::string::npos) << error(args);
  args.residual = memory;
  EXPECT_EQ(error(args), "");
  args.bias_batch_stride = 999;  // under M = 1000
  EXPECT_NE(error(args).find("batch stride 999"), std::string::npos) << error(args);
}

TEST(EpilogueIr, CIsCItselfOnlyWhereEveryElementIsReadBeforeItIsStored) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  scheduler::MatmulProblem p;
  p.m = p.n = 4096;
  p.k = 512;
  p.epilogue = Epilogue::parse("alpha * acc + beta * c");
  p.validate();
  alignas(16) static uint16_t memory[16];
  const auto error = [&](const scheduler::MatmulSchedule& s, const void* c_in, int64_t ldc) {
    EpilogueArgs args;
    args.c = c_in;
    args.ldc = ldc;
    try {
      runtime::checkEpilogueAliasing(s, args, memory);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  scheduler::ScheduleOverrides whole, overlapping;
  whole.cta_tile = scheduler::TileShape{128, 128, 64};
  whole.width_at_launch = false;
  overlapping.cta_tile = scheduler::TileShape{128, 112, 64};
  overlapping.width_at_launch = false;
  const auto s128 = scheduler::schedule(p, device, whole), s112 = scheduler::schedule(p, device, overlapping);
  ASSERT_EQ(s128.params.epilogue_tile.n, 64);
  EXPECT_EQ(error(s128, memory, 0), "");  // in place, slabs of whole 64 columns
  EXPECT_NE(error(s112, memory, 0).find("overlapping slabs of 64"), std::string::npos) << error(s112, memory, 0);
  EXPECT_NE(error(s128, memory, 8192).find("overlaps C without being C itself"), std::string::npos);
  EXPECT_NE(error(s128, memory + 2, 0).find("overlaps C without being C itself"), std::string::npos);
}


// A 2-byte auxiliary output of a straight C with TMA-stored rows gets slab buffers of its own (twice
// C's slab bytes in shared memory, C's boxes and swizzle in its map); computing C^T, with 4-byte
// elements, or where C's rows are not whole 16-byte granules it is stored by the threads, and the
// kernel takes no map of it.
TEST(EpilogueIr, AuxOutputsGoByTmaBesideAStraightCStoredByTma) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const scheduler::MatmulProblem p = problemWith("gelu_tanh(acc + bias[n]); aux = acc + bias[n]", 2048, 2048, 1024);
  const auto s = scheduler::schedule(p, device);
  ASSERT_TRUE(s.params.auxSlab(s.problem));
  scheduler::MatmulParams narrow = s.params;
  narrow.epilogue_tile.n = 8;  // not whole stmatrix blocks
  EXPECT_FALSE(narrow.auxSlab(s.problem));
  // Two buffers of the slab's 2-byte elements beside C's.
  scheduler::MatmulProblem no_aux = s.problem;
  no_aux.epilogue = Epilogue::parse("gelu_tanh(acc + bias[n])");
  EXPECT_EQ(s.params.smemBytes(s.problem) - s.params.smemBytes(no_aux),
            2 * s.params.epilogue_tile.m * s.params.epilogue_tile.n * 2);
  EXPECT_EQ(scheduler::planEpilogue(s.problem, s.params).smem_bytes,
            s.params.smemBytes(s.problem) - s.params.smemBytes(no_aux));
  const codegen::KernelSource source = codegen::emit(s);
  const codegen::KernelArg& map_aux = source.args.at(6);
  ASSERT_EQ(map_aux.name, "tmap_aux");
  ASSERT_TRUE(map_aux.tensor_map.has_value());
  const codegen::KernelArg& map_c = source.args[3];
  ASSERT_TRUE(map_c.tensor_map.has_value());
  EXPECT_EQ(map_aux.buffer, "aux");
  EXPECT_EQ(map_aux.tensor_map->box, map_c.tensor_map->box);
  EXPECT_EQ(map_aux.tensor_map->swizzle, map_c.tensor_map->swizzle);
  EXPECT_TRUE(source.args.back().buffer.empty()) << "no input c";

  const auto stored_by_threads = [&](scheduler::MatmulProblem q, scheduler::ScheduleOverrides o = {}) {
    q.validate();
    const auto t = scheduler::schedule(q, device, o);
    const codegen::KernelSource src = codegen::emit(t);
    return !t.params.auxSlab(t.problem) && src.args.at(6).buffer.empty();
  };
  scheduler::MatmulProblem fp32_aux = p;
  fp32_aux.aux_dtype = scheduler::DType::FP32;
  EXPECT_TRUE(stored_by_threads(fp32_aux));
  EXPECT_TRUE(stored_by_threads(problemWith("gelu_tanh(acc + bias[n]); aux = acc + bias[n]", 2048, 2047, 1024)));
  scheduler::ScheduleOverrides swapped;
  swapped.swap_ab = true;
  EXPECT_TRUE(stored_by_threads(p, swapped));
}

// An input c of 2 bytes beside a straight 2-byte C stored by TMA comes into slab buffers of its own
// by TMA (a third pair of buffers, and two full barriers a consumer warpgroup); not beside an aux
// output that has its own slab, nor where the kernel reads its tile width at launch, nor with a
// residual read too.
TEST(EpilogueIr, InputCComesByTmaBesideAStraightCStoredByTma) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const scheduler::MatmulProblem p = problemWith("alpha * acc + beta * c", 4096, 4096, 1024);
  const auto s = scheduler::schedule(p, device);
  ASSERT_TRUE(s.params.cSlab(s.problem));
  EXPECT_EQ(s.params.epilogueSlabPairs(s.problem), 2);
  scheduler::MatmulProblem no_c = s.problem;
  no_c.epilogue = Epilogue::parse("alpha * acc");
  EXPECT_EQ(s.params.smemBytes(s.problem) - s.params.smemBytes(no_c),
            2 * s.params.epilogue_tile.m * s.params.epilogue_tile.n * 2 + 16 * s.params.mathGroups());
  // plan counts them in the epilogue's shared memory.
  const scheduler::EpiloguePlan plan = scheduler::planEpilogue(s.problem, s.params);
  EXPECT_EQ(plan.smem_bytes, s.params.smemBytes(s.problem) - s.params.smemBytes(no_c));
  ASSERT_EQ(plan.operands.size(), 1u);
  EXPECT_TRUE(plan.operands[0].by_tma);
  EXPECT_NE(plan.toString().find("reads c (bf16, 2 bytes per output, by TMA through slab buffers of its own)"),
            std::string::npos)
      << plan.toString();
  const codegen::KernelSource source = codegen::emit(s);
  ASSERT_EQ(source.args.back().name, "tmap_c_in");
  EXPECT_EQ(source.args.back().buffer, "c");
  ASSERT_TRUE(source.args.back().tensor_map.has_value());
  EXPECT_EQ(source.args.back().tensor_map->box, source.args[3].tensor_map->box);

  scheduler::MatmulParams at_launch = s.params;
  at_launch.width_at_launch = true;
  EXPECT_FALSE(at_launch.cSlab(s.problem));
  for (const char* text : {"alpha * acc + beta * c + residual", "relu(acc + c); aux = acc"}) {
    EXPECT_FALSE(scheduler::cFitsSlab(problemWith(text, 4096, 4096, 1024))) << text;
  }
  scheduler::MatmulProblem fp32_c = p;
  fp32_c.c_in_dtype = scheduler::DType::FP32;
  fp32_c.validate();
  EXPECT_FALSE(scheduler::cFitsSlab(fp32_c));
}

// The map a launch stores aux through: the kernel's, with the launch's strides, where TMA can store
// that aux; none where the pointer, rows or batch entries are off 16 bytes.
TEST(EpilogueIr, TheAuxMapTakesTheLaunchsStridesOrStandsAside) {
  codegen::TensorMapSpec kernel_map;
  kernel_map.dtype = scheduler::DType::BF16;
  kernel_map.dims = {1032, 1000, 2};
  kernel_map.strides_bytes = {1032 * 2, 1032 * 1000 * 2};
  kernel_map.box = {32, 128, 1};
  alignas(16) static uint16_t memory[16];
  tg_epilogue_args args{};
  args.aux = memory;
  args.ld_aux = 1040;
  args.batch_stride_aux = 1040 * 1000 + 8;
  const auto spec = runtime::epilogueTensorMap(kernel_map, args.aux, args.ld_aux, args.batch_stride_aux);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->strides_bytes, (std::vector<uint64_t>{1040 * 2, (1040 * 1000 + 8) * 2}));
  EXPECT_EQ(spec->box, kernel_map.box);
  EXPECT_EQ(spec->dims, kernel_map.dims);
  tg_epilogue_args off = args;
  off.ld_aux = 1035;
  EXPECT_FALSE(runtime::epilogueTensorMap(kernel_map, off.aux, off.ld_aux, off.batch_stride_aux).has_value());
  off = args;
  off.batch_stride_aux = 1040 * 1000 + 3;
  EXPECT_FALSE(runtime::epilogueTensorMap(kernel_map, off.aux, off.ld_aux, off.batch_stride_aux).has_value());
  off = args;
  off.aux = memory + 1;
  EXPECT_FALSE(runtime::epilogueTensorMap(kernel_map, off.aux, off.ld_aux, off.batch_stride_aux).has_value());
  // Unbatched, the batch stride is never used.
  codegen::TensorMapSpec one = kernel_map;
  one.dims.pop_back();
  one.strides_bytes.pop_back();
  one.box.pop_back();
  off = args;
  off.batch_stride_aux = 3;
  EXPECT_TRUE(runtime::epilogueTensorMap(one, off.aux, off.ld_aux, off.batch_stride_aux).has_value());
}

}  // namespace
}  // namespace tilegrid::ir
