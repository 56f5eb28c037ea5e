#include "tilegrid/codegen/cuda_printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "tilegrid/ir/check.h"

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

// Constants passed to the two-operand functions (min, max, ceilDiv) as long long literals, so that
// both operands have one type when the other is widened.
ir::Val wideCallConstants(const ir::Val& value) {
  std::vector<ir::Val> args = value.operands();
  if (args.empty()) return value;
  const ir::Op op = value.op();
  const bool call = op == ir::Op::Min || op == ir::Op::Max || op == ir::Op::CeilDiv;
  for (ir::Val& a : args) {
    a = call && a.isConst() && !a.isBool() ? ir::Val::var(std::to_string(*a.constValue()) + "LL", ir::VarKind::Loop)
                                           : wideCallConstants(a);
  }
  return ir::rebuildOp(op, args);
}

// `value` with every variable widened to long long first, so the whole computation is 64-bit.
ir::Val widened(const ir::Val& value) {
  std::map<std::string, ir::Val> wide;
  for (const std::string& name : value.freeVars()) wide.emplace(name, ir::Val::var("(long long)" + name, ir::VarKind::Loop));
  return wideCallConstants(ir::substitute(value, wide));
}

}  // namespace

std::string indexType(const ir::Val& value, const VarRanges& ranges) {
  if (value.isBool()) return "bool";
  return fitsInt32(value, ranges) ? "int" : "long long";
}

std::string printIndex(const ir::Val& value, const VarRanges& ranges) {
  // A predicate is computed wide too where its operands could pass 32 bits.
  if (fitsInt32(value, ranges)) return value.toString();
  return widened(value).toString();
}

std::string declareIndex(const std::string& name, const ir::Val& value, const VarRanges& ranges) {
  TG_USER_CHECK(!name.empty()) << "an index declaration needs a name";
  return "const " + indexType(value, ranges) + " " + name + " = " + printIndex(value, ranges) + ";";
}

std::string emitIndexFunction(const std::string& name, const std::string& comment,
                              const std::vector<IndexFunctionParam>& params,
                              const std::vector<IndexFunctionResult>& results, const std::optional<VarRanges>& shape,
                              const std::vector<IndexFunctionParam>& template_params, const std::string& tag) {
  TG_INTERNAL_CHECK(!results.empty()) << "index function " << name << " computes nothing";
  // Problem parameters are read from the launch's struct: `m` becomes `p.m`, still a size.
  VarRanges ranges;
  std::map<std::string, ir::Val> from_struct;
  std::string signature = tag;
  if (shape) signature += std::string(tag.empty() ? "" : ", ") + "[[maybe_unused]] const tg_problem& p";
  for (const auto& [var, max] : shape.value_or(VarRanges{})) {
    ranges["p." + var] = max;
    from_struct.emplace(var, ir::Val::param("p." + var));
  }
  // A parameter none of the results reads is still taken, so that every configuration's function
  // has one signature (a tile grid without clusters ignores the CTA rank).
  std::set<std::string> read;
  for (const auto& r : results) {
    for (const std::string& var : r.value.freeVars()) read.insert(var);
  }
  for (const auto& t : template_params) {
    TG_INTERNAL_CHECK(!ranges.count(t.name)) << "index function " << name << ": " << t.name << " is a template parameter and a problem field";
    ranges[t.name] = t.max;
  }
  for (const auto& p : params) {
    ranges[p.name] = p.max;
    const char* unused = read.count(p.name) ? "" : "[[maybe_unused]] ";
    signature += (signature.empty() ? "" : ", ") + std::string(unused) + "int " + p.name;
  }
  struct Printed {
    std::string name, type, text;
  };
  std::vector<Printed> printed;
  for (const auto& r : results) {
    const ir::Val v = ir::substitute(r.value, from_struct);
    for (const std::string& var : v.freeVars()) {
      TG_INTERNAL_CHECK(ranges.count(var)) << "index function " << name << " depends on " << var
                                           << ", which is neither its parameter nor a problem parameter it takes";
    }
    const std::string computed = indexType(v, ranges);
    std::string text = printIndex(v, ranges);
    if (!r.type.empty() && r.type != computed) text = "static_cast<" + r.type + ">(" + text + ")";
    printed.push_back({r.name, r.type.empty() ? computed : r.type, text});
  }
  std::string out = "// " + comment + "\n";
  if (!template_params.empty()) {
    std::string list;
    for (const auto& t : template_params) list += (list.empty() ? "int " : ", int ") + t.name;
    out += "template <" + list + ">\n";
  }
  if (printed.size() == 1) {
    const Printed& p = printed.front();
    out += fmt::format("__device__ __forceinline__ {} {}({}) {{\n  return {};\n}}\n", p.type, name, signature, p.text);
    return out;
  }
  std::string body;
  for (const Printed& p : printed) {
    signature += fmt::format("{}{}& {}", signature.empty() ? "" : ", ", p.type, p.name);
    body += fmt::format("  {} = {};\n", p.name, p.text);
  }
  return out + fmt::format("__device__ __forceinline__ void {}({}) {{\n", name, signature) + body + "}\n";
}

}  // namespace tilegrid::codegen
