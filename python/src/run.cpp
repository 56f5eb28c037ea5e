// matmul on device pointers: the package reads the tensors (DLPack or __cuda_array_interface__),
// checks them against each other, and passes plain values here.
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bindings.h"
#include "tilegrid/runtime/gemm.h"

namespace tilegrid::python {
namespace {

namespace py = pybind11;

template <typename T>
T field(const py::dict& d, const char* key) {
  if (!d.contains(key)) throw py::key_error(std::string("tilegrid bug: the package passed no '") + key + "'");
  return d[key].cast<T>();
}

std::optional<DType> optionalDType(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return std::nullopt;
  return scheduler::parseDType(d[key].cast<std::string>());
}

const void* pointer(const py::dict& d, const char* key) {
  if (!d.contains(key) || d[key].is_none()) return nullptr;
  return reinterpret_cast<const void*>(d[key].cast<uintptr_t>());
}

MatmulProblem problemFrom(const py::dict& p) {
  MatmulProblem problem;
  problem.m = field<int64_t>(p, "m");
  problem.n = field<int64_t>(p, "n");
  problem.k = field<int64_t>(p, "k");
  problem.batch = field<int64_t>(p, "batch");
  problem.layout = scheduler::parseLayout(field<std::string>(p, "layout"));
  problem.a_dtype = scheduler::parseInputDType(field<std::string>(p, "a_dtype"));
  problem.b_dtype = scheduler::parseInputDType(field<std::string>(p, "b_dtype"));
  problem.out_dtype = scheduler::parseDType(field<std::string>(p, "out_dtype"));
  problem.lda = field<int64_t>(p, "lda");
  problem.ldb = field<int64_t>(p, "ldb");
  problem.ldc = field<int64_t>(p, "ldc");
  problem.stride_a = field<int64_t>(p, "stride_a");
  problem.stride_b = field<int64_t>(p, "stride_b");
  problem.stride_c = field<int64_t>(p, "stride_c");
  problem.align_a = field<int64_t>(p, "align_a");
  problem.align_b = field<int64_t>(p, "align_b");
  problem.align_c = field<int64_t>(p, "align_c");
  const std::string epilogue = field<std::string>(p, "epilogue");
  if (!epilogue.empty()) problem.epilogue = ir::Epilogue::parse(epilogue);
  problem.bias_dtype = optionalDType(p, "bias_dtype");
  problem.c_in_dtype = optionalDType(p, "c_in_dtype");
  problem.residual_dtype = optionalDType(p, "residual_dtype");
  problem.aux_dtype = optionalDType(p, "aux_dtype");
  return problem;
}

EpilogueArgs epilogueFrom(const py::dict& e) {
  EpilogueArgs args;
  args.alpha = field<float>(e, "alpha");
  args.beta = field<float>(e, "beta");
  args.bias = pointer(e, "bias");
  args.bias_batch_stride = field<int64_t>(e, "bias_batch_stride");
  args.c = pointer(e, "c");
  args.ldc = field<int64_t>(e, "ldc");
  args.c_batch_stride = field<int64_t>(e, "c_batch_stride");
  args.residual = pointer(e, "residual");
  args.ld_residual = field<int64_t>(e, "ld_residual");
  args.residual_batch_stride = field<int64_t>(e, "residual_batch_stride");
  args.aux = const_cast<void*>(pointer(e, "aux"));
  args.ld_aux = field<int64_t>(e, "ld_aux");
  args.aux_batch_stride = field<int64_t>(e, "aux_batch_stride");
  return args;
}

GemmOptions optionsFrom(const py::dict& o) {
  GemmOptions options;
  if (o.contains("arch") && !o["arch"].is_none()) options.arch = scheduler::parseArch(o["arch"].cast<std::string>());
  options.specialize_shape = field<bool>(o, "specialize_shape");
  options.deterministic = field<bool>(o, "deterministic");
  if (o.contains("fixed_choices") && !o["fixed_choices"].is_none()) options.fixed_choices = o["fixed_choices"].cast<bool>();
  return options;
}

void matmulOnPointers(const py::dict& problem_fields, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t stream,
                      const py::dict& option_fields, const py::dict& epilogue_fields) {
  const MatmulProblem problem = problemFrom(problem_fields);
  const GemmOptions options = optionsFrom(option_fields);
  const EpilogueArgs epilogue = epilogueFrom(epilogue_fields);
  // Building a Gemm the first time compiles its kernel (seconds): other Python threads run meanwhile.
  py::gil_scoped_release release;
  matmul(problem, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b), reinterpret_cast<void*>(c),
         reinterpret_cast<CUstream_st*>(stream), options, epilogue);
}

// The problem as the library validates it (alignments, leading dimensions filled in), as text.
std::string describe(const py::dict& problem_fields) {
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
