// matmul on device pointers: the package reads the tensors (DLPack or __cuda_array_interface__),
// checks them against each other, and passes plain values here.
#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "bindings.h"
#include "tilegrid/runtime/gemm.h"

namespace tilegrid::python {
namespace {

namespace py = pybind11;

// The package passes tuples in a fixed order (tilegrid/_matmul.py): unpacking them by position
// costs a fraction of what looking up dictionary keys does, and a call's host time matters for
// small problems.
enum ProblemField {
  kM, kN, kK, kBatch, kLayout, kADType, kBDType, kOutDType, kLda, kLdb, kLdc, kStrideA, kStrideB, kStrideC,
  kAlignA, kAlignB, kAlignC, kEpilogue, kBiasDType, kCInDType, kResidualDType, kAuxDType, kScale, kProblemFields
};
enum EpilogueField {
  kAlpha, kBeta, kBias, kBiasBatchStride, kC, kLdcIn, kCBatchStride, kResidual, kLdResidual, kResidualBatchStride,
  kAux, kLdAux, kAuxBatchStride, kScaleA, kScaleABatchStride, kScaleB, kScaleBBatchStride, kEpilogueFields
};
enum OptionField { kArch, kDeterministic, kSpecializeShape, kFixedChoices, kOverlapPriorKernel, kOptionFields };

void checkArity(const py::tuple& t, size_t fields, const char* what) {
  if (t.size() != fields) {
    throw std::runtime_error(std::string("tilegrid bug: the package passed ") + std::to_string(t.size()) + " " + what +
                             " fields, the module takes " + std::to_string(fields));
  }
}

std::optional<DType> optionalDType(const py::handle& h) {
  if (h.is_none()) return std::nullopt;
  return scheduler::parseDType(h.cast<std::string>());
}

const void* pointer(const py::handle& h) { return h.is_none() ? nullptr : reinterpret_cast<const void*>(h.cast<uintptr_t>()); }

// Epilogues parsed once per text: a call that names one should not pay the parser each time.
const ir::Epilogue& parsedEpilogue(const std::string& text) {
  static std::unordered_map<std::string, ir::Epilogue> parsed;  // the GIL serializes callers
  auto it = parsed.find(text);
  if (it == parsed.end()) it = parsed.emplace(text, ir::Epilogue::parse(text)).first;
  return it->second;
}

MatmulProblem problemFrom(const py::tuple& p) {
  checkArity(p, kProblemFields, "problem");
  MatmulProblem problem;
  problem.m = p[kM].cast<int64_t>();
  problem.n = p[kN].cast<int64_t>();
  problem.k = p[kK].cast<int64_t>();
  problem.batch = p[kBatch].cast<int64_t>();
  problem.layout = scheduler::parseLayout(p[kLayout].cast<std::string>());
  problem.a_dtype = scheduler::parseInputDType(p[kADType].cast<std::string>());
  problem.b_dtype = scheduler::parseInputDType(p[kBDType].cast<std::string>());
  problem.out_dtype = scheduler::parseOutputDType(p[kOutDType].cast<std::string>());
  problem.scale = scheduler::parseScaleMode(p[kScale].cast<std::string>());
  problem.lda = p[kLda].cast<int64_t>();
  problem.ldb = p[kLdb].cast<int64_t>();
  problem.ldc = p[kLdc].cast<int64_t>();
  problem.stride_a = p[kStrideA].cast<int64_t>();
  problem.stride_b = p[kStrideB].cast<int64_t>();
  problem.stride_c = p[kStrideC].cast<int64_t>();
  problem.align_a = p[kAlignA].cast<int64_t>();
  problem.align_b = p[kAlignB].cast<int64_t>();
  problem.align_c = p[kAlignC].cast<int64_t>();
  const std::string epilogue = p[kEpilogue].cast<std::string>();
  if (!epilogue.empty()) problem.epilogue = parsedEpilogue(epilogue);
  problem.bias_dtype = optionalDType(p[kBiasDType]);
  problem.c_in_dtype = optionalDType(p[kCInDType]);
  problem.residual_dtype = optionalDType(p[kResidualDType]);
  problem.aux_dtype = optionalDType(p[kAuxDType]);
  return problem;
}

EpilogueArgs epilogueFrom(const py::tuple& e) {
  checkArity(e, kEpilogueFields, "epilogue");
  EpilogueArgs args;
  args.alpha = e[kAlpha].cast<float>();
  args.beta = e[kBeta].cast<float>();
  args.bias = pointer(e[kBias]);
  args.bias_batch_stride = e[kBiasBatchStride].cast<int64_t>();
  args.c = pointer(e[kC]);
  args.ldc = e[kLdcIn].cast<int64_t>();
  args.c_batch_stride = e[kCBatchStride].cast<int64_t>();
  args.residual = pointer(e[kResidual]);
  args.ld_residual = e[kLdResidual].cast<int64_t>();
  args.residual_batch_stride = e[kResidualBatchStride].cast<int64_t>();
  args.aux = const_cast<void*>(pointer(e[kAux]));
  args.ld_aux = e[kLdAux].cast<int64_t>();
  args.aux_batch_stride = e[kAuxBatchStride].cast<int64_t>();
  args.scale_a = static_cast<const float*>(pointer(e[kScaleA]));
  args.scale_a_batch_stride = e[kScaleABatchStride].cast<int64_t>();
  args.scale_b = static_cast<const float*>(pointer(e[kScaleB]));
  args.scale_b_batch_stride = e[kScaleBBatchStride].cast<int64_t>();
  return args;
}

GemmOptions optionsFrom(const py::tuple& o) {
  checkArity(o, kOptionFields, "option");
  GemmOptions options;
  if (!o[kArch].is_none()) options.arch = scheduler::parseArch(o[kArch].cast<std::string>());
  options.deterministic = o[kDeterministic].cast<bool>();
  options.specialize_shape = o[kSpecializeShape].cast<bool>();
  if (!o[kFixedChoices].is_none()) options.fixed_choices = o[kFixedChoices].cast<bool>();
  options.overlap_prior_kernel = o[kOverlapPriorKernel].cast<bool>();
  return options;
}

void matmulOnPointers(const py::tuple& problem_fields, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t stream,
                      const py::tuple& option_fields, const py::tuple& epilogue_fields) {
  const MatmulProblem problem = problemFrom(problem_fields);
  const GemmOptions options = optionsFrom(option_fields);
  const EpilogueArgs epilogue = epilogueFrom(epilogue_fields);
  // Building a Gemm the first time compiles its kernel (seconds): other Python threads run meanwhile.
  py::gil_scoped_release release;
  matmul(problem, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b), reinterpret_cast<void*>(c),
         reinterpret_cast<CUstream_st*>(stream), options, epilogue);
}

// The problem as the library validates it (alignments, leading dimensions filled in), as text.
std::string describe(const py::tuple& problem_fields) {
  MatmulProblem problem = problemFrom(problem_fields);
  problem.validate();
  return problem.toString();
}

}  // namespace

void bindRun(py::module_& m) {
  m.def("matmul", &matmulOnPointers, py::arg("problem"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("stream"),
        py::arg("options"), py::arg("epilogue"), "C = A * B on device pointers, through tilegrid::matmul's cache.");
  m.def("describe", &describe, py::arg("problem"), "The validated problem, as text.");
}

}  // namespace tilegrid::python
