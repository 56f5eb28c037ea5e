#include "codegen/cuda_printer.h"

#include <fmt/format.h>

#include <limits>

#include "ir/error.h"

namespace tilegrid::codegen {
namespace {

bool fitsInt32(const ir::Val& value, const VarRanges& ranges) {
  // Bound every subexpression, not just the result: an intermediate product can overflow too.
  if (value.isConst()) return std::abs(*value.constValue()) <= std::numeric_limits<int32_t>::max();
  const auto max = ir::maxValue(value, ranges);
  if (!max || *max > std::numeric_limits<int32_t>::max()) return false;
  for (const ir::Val& operand : value.operands()) {
    if (!fitsInt32(operand, ranges)) return false;
  }
  return true;
}

}  // namespace

std::string indexType(const ir::Val& value, const VarRanges& ranges) {
  if (value.isBool()) return "bool";
  return fitsInt32(value, ranges) ? "int" : "long long";
}

std::string printIndex(const ir::Val& value, const VarRanges& ranges) {
  if (value.isBool() || fitsInt32(value, ranges)) return value.toString();
  std::map<std::string, ir::Val> widened;
  for (const std::string& name : value.freeVars()) {
    widened.emplace(name, ir::Val::var("(long long)" + name, ir::VarKind::Loop));
  }
  return ir::substitute(value, widened).toString();
}

std::string declareIndex(const std::string& name, const ir::Val& value, const VarRanges& ranges) {
  TG_USER_CHECK(!name.empty()) << "an index declaration needs a name";
  return "const " + indexType(value, ranges) + " " + name + " = " + printIndex(value, ranges) + ";";
}

std::string emitIndexFunction(const std::string& name, const std::string& comment,
                              const std::vector<IndexFunctionParam>& params,
                              const std::vector<IndexFunctionResult>& results) {
  TG_INTERNAL_CHECK(!results.empty()) << "index function " << name << " computes nothing";
  VarRanges ranges;
  std::string signature;
  for (const auto& p : params) {
    ranges[p.name] = p.max;
    signature += (signature.empty() ? "" : ", ") + std::string("int ") + p.name;
  }
  std::string out = "// " + comment + "\n";
  if (results.size() == 1) {
    const auto& r = results.front();
    out += fmt::format("__device__ __forceinline__ {} {}({}) {{\n  return {};\n}}\n", indexType(r.value, ranges), name,
                       signature, printIndex(r.value, ranges));
    return out;
  }
  for (const auto& r : results) {
    signature += fmt::format("{}{}& {}", signature.empty() ? "" : ", ", indexType(r.value, ranges), r.name);
  }
  out += fmt::format("__device__ __forceinline__ void {}({}) {{\n", name, signature);
  for (const auto& r : results) out += fmt::format("  {} = {};\n", r.name, printIndex(r.value, ranges));
  return out + "}\n";
}

}  // namespace tilegrid::codegen
