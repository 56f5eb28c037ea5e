// Evaluating Vals: directly under named bindings, or compiled to straight-line code for hot loops.
#include <algorithm>
#include <unordered_map>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/val.h"
#include "tilegrid/ir/val_node.h"

namespace tilegrid::ir {

namespace {

// a op b for +, - and *, refusing results past 64 bits instead of wrapping (undefined behaviour).
int64_t checked(Op op, int64_t a, int64_t b) {
  int64_t result = 0;
  const bool overflow = op == Op::Add   ? __builtin_add_overflow(a, b, &result)
                        : op == Op::Sub ? __builtin_sub_overflow(a, b, &result)
                                        : __builtin_mul_overflow(a, b, &result);
  TG_USER_CHECK(!overflow) << "index arithmetic overflows 64 bits: " << a << (op == Op::Add ? " + " : op == Op::Sub ? " - " : " * ")
                           << b << " (are the sizes or factors that large?)";
  return result;
}

}  // namespace

int64_t applyOp(Op op, int64_t a, int64_t b, int64_t c) {
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul: return checked(op, a, b);
    case Op::Div:
      TG_USER_CHECK(b != 0) << "division by zero while evaluating an index expression";
      return a / b;
    case Op::Mod:
      TG_USER_CHECK(b != 0) << "division by zero while evaluating an index expression";
      return a % b;
    case Op::CeilDiv:
      TG_USER_CHECK(b != 0) << "division by zero while evaluating an index expression";
      return checked(Op::Add, a, b - 1) / b;
    case Op::Min: return std::min(a, b);
    case Op::Max: return std::max(a, b);
    case Op::BitXor: return a ^ b;
    case Op::BitAnd: return a & b;
    case Op::Shl:
      TG_USER_CHECK(b >= 0 && b < 63) << "shift amount " << b << " is outside [0, 63)";
      return a << b;
    case Op::Shr:
      TG_USER_CHECK(b >= 0 && b < 63) << "shift amount " << b << " is outside [0, 63)";
      return a >> b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::LogicalAnd: return (a != 0) && (b != 0);
    case Op::Select: return a != 0 ? b : c;
    default: break;
  }
  TG_INTERNAL_ERROR() << "cannot apply op " << opName(op);
  return 0;
}

std::optional<int64_t> Bindings::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

int64_t evaluate(const Val& v, const Bindings& bindings) {
  const ValNode& node = *v.node();
  switch (node.op) {
    case Op::Const:
      return node.value;
    case Op::Var: {
      auto value = bindings.get(node.name);
      TG_USER_CHECK(value.has_value()) << "no value bound for '" << node.name << "' while evaluating an index expression";
      return *value;
    }
    case Op::LogicalAnd:
      // Short-circuit like C: the right side may divide by an extent the left side checks.
      return evaluate(node.args[0], bindings) != 0 && evaluate(node.args[1], bindings) != 0;
    case Op::Select:
      return evaluate(node.args[0], bindings) != 0 ? evaluate(node.args[1], bindings)
                                                   : evaluate(node.args[2], bindings);
    default:
      return applyOp(node.op, evaluate(node.args[0], bindings), evaluate(node.args[1], bindings), 0);
  }
}

CompiledVal::CompiledVal(const Val& v, const std::vector<std::string>& var_order) : num_vars_(var_order.size()) {
  // Shared subexpressions get one register: index math repeats itself a lot.
  std::unordered_map<const ValNode*, int> reg_of;
  auto emit = [&](auto& self, const Val& val) -> int {
    if (auto it = reg_of.find(val.node()); it != reg_of.end()) return it->second;
    const ValNode& node = *val.node();
    Instr instr{node.op, node.value, -1, -1, -1};
    if (node.op == Op::Var) {
      auto pos = std::find(var_order.begin(), var_order.end(), node.name);
      TG_USER_CHECK(pos != var_order.end()) << "variable '" << node.name << "' is not in the evaluation order";
      instr.value = pos - var_order.begin();
    }
    int* slots[3] = {&instr.a, &instr.b, &instr.c};
    for (size_t i = 0; i < node.args.size(); ++i) *slots[i] = self(self, node.args[i]);
    code_.push_back(instr);
    const int reg = static_cast<int>(code_.size()) - 1;
    reg_of.emplace(val.node(), reg);
    return reg;
  };
  emit(emit, v);
  regs_.resize(code_.size());
}

int64_t CompiledVal::operator()(std::span<const int64_t> var_values) const {
  TG_USER_CHECK(var_values.size() == num_vars_)
      << "compiled expression takes " << num_vars_ << " variables, got " << var_values.size();
  // Straight-line code evaluates both sides of a select; that is safe because every operation is
  // total except division, and a guarded division by zero would only arise from an empty extent.
  for (size_t i = 0; i < code_.size(); ++i) {
    const Instr& in = code_[i];
    switch (in.op) {
      case Op::Const: regs_[i] = in.value; break;
      case Op::Var: regs_[i] = var_values[static_cast<size_t>(in.value)]; break;
      default:
        regs_[i] = applyOp(in.op, regs_[in.a], in.b >= 0 ? regs_[in.b] : 0, in.c >= 0 ? regs_[in.c] : 0);
    }
  }
  return regs_.back();
}

}  // namespace tilegrid::ir
