#include "tilegrid/ir/val.h"

#include <functional>
#include <set>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/val_node.h"

namespace tilegrid::ir {
namespace {

size_t combineHash(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

bool isCommutative(Op op) {
  switch (op) {
    case Op::Add:
    case Op::Mul:
    case Op::Min:
    case Op::Max:
    case Op::BitXor:
    case Op::BitAnd:
    case Op::Eq:
    case Op::Ne:
    case Op::LogicalAnd:
      return true;
    default:
      return false;
  }
}

bool isComparison(Op op) {
  return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne;
}

bool isConstValue(const Val& v, int64_t c) {
  auto value = v.constValue();
  return value && *value == c;
}

// The rewrite rules applied when a binary node is built. Each returns the simplified Val, or
// nothing to build the node as given. Operands are already simplified.
std::optional<Val> simplifyBinary(Op op, const Val& a, const Val& b) {
  const auto ca = a.constValue();
  const auto cb = b.constValue();
  if (ca && cb) {
    const int64_t folded = applyOp(op, *ca, *cb, 0);
    return (isComparison(op) || op == Op::LogicalAnd) ? Val::boolean(folded != 0) : Val(folded);
  }
  switch (op) {
    case Op::Add:
      if (isConstValue(b, 0)) return a;
      if (a.op() == Op::Mul && b.op() == Op::Mod) {
        // x / c * c + x % c -> x (C's definition of % makes this exact for every x)
        auto mul = a.operands();
        auto mod = b.operands();
        if (mul[0].op() == Op::Div && mul[1].sameAs(mod[1]) && mul[0].operands()[0].sameAs(mod[0]) &&
            mul[0].operands()[1].sameAs(mod[1])) {
          return mod[0];
        }
      }
      if (a.op() == Op::Add) {
        // (p + q) + r -> p + (q + r) when q + r simplifies: brings split pieces back together.
        auto ops = a.operands();
        if (!ops[1].isConst()) {
          if (auto merged = simplifyBinary(Op::Add, ops[1], b)) return ops[0] + *merged;
        }
      }
      // (x + c1) + c2 -> x + (c1 + c2)
      if (cb && a.op() == Op::Add) {
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue()) return ops[0] + Val(*c1 + *cb);
      }
      break;
    case Op::Sub:
      if (isConstValue(b, 0)) return a;
      if (a.sameAs(b)) return Val(0);
      if (b.op() == Op::Mul) {
        // x - x / d * d -> x % d: the remainder, as C defines it for any sign.
        auto ops = b.operands();
        if (ops[0].op() == Op::Div) {
          auto div = ops[0].operands();
          if (div[0].sameAs(a) && div[1].sameAs(ops[1])) return a % ops[1];
        }
      }
      break;
    case Op::Mul:
      if (isConstValue(b, 1)) return a;
      if (isConstValue(b, 0)) return Val(0);
      // (p + q) * c -> p * c + q * c: normal form for linear index math, so that the rules above
      // can recombine what splits and merges took apart.
      if (cb && (a.op() == Op::Add || a.op() == Op::Sub)) {
        auto ops = a.operands();
        return a.op() == Op::Add ? ops[0] * b + ops[1] * b : ops[0] * b - ops[1] * b;
      }
      // (x * c1) * c2 -> x * (c1 * c2)
      if (cb && a.op() == Op::Mul) {
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue()) return ops[0] * Val(*c1 * *cb);
      }
      break;
    case Op::Div:
      if (isConstValue(b, 1)) return a;
      if (isConstValue(a, 0)) return Val(0);
      TG_USER_CHECK(!isConstValue(b, 0)) << "division by zero in index expression " << a.toString() << " / 0";
      if (cb && *cb > 0 && a.op() == Op::Mul) {
        // (x * c1) / c2 -> x * (c1 / c2) when c2 divides c1: exact for every integer x.
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue(); c1 && *c1 % *cb == 0) return ops[0] * Val(*c1 / *cb);
      }
      if (cb && *cb > 0 && a.op() == Op::Div) {
        // (x / c1) / c2 -> x / (c1 * c2) for positive c1, c2 (true under truncation too).
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue(); c1 && *c1 > 0) return ops[0] / Val(*c1 * *cb);
      }
      break;
    case Op::Mod:
      if (isConstValue(b, 1)) return Val(0);
      if (isConstValue(a, 0)) return Val(0);
      TG_USER_CHECK(!isConstValue(b, 0)) << "division by zero in index expression " << a.toString() << " % 0";
      if (cb && *cb > 0 && a.op() == Op::Mul) {
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue(); c1 && *c1 % *cb == 0) return Val(0);
      }
      if (cb && *cb > 0 && a.op() == Op::Mod) {
        // (x % c1) % c2 -> x % c2 when c2 divides c1 (true under truncation too).
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue(); c1 && *c1 > 0 && *c1 % *cb == 0) return ops[0] % b;
      }
      break;
    case Op::CeilDiv:
      if (isConstValue(b, 1)) return a;
      if (isConstValue(a, 0)) return Val(0);
      TG_USER_CHECK(!isConstValue(b, 0)) << "division by zero in index expression ceilDiv(" << a.toString() << ", 0)";
      if (cb && *cb > 0 && a.op() == Op::Mul) {
        auto ops = a.operands();
        if (auto c1 = ops[1].constValue(); c1 && *c1 % *cb == 0) return ops[0] * Val(*c1 / *cb);
      }
      break;
    case Op::Min:
    case Op::Max:
      if (a.sameAs(b)) return a;
      break;
    case Op::BitXor:
      if (isConstValue(b, 0)) return a;
      if (a.sameAs(b)) return Val(0);
      break;
    case Op::BitAnd:
      if (isConstValue(b, 0)) return Val(0);
      if (a.sameAs(b)) return a;
      break;
    case Op::Shl:
    case Op::Shr:
      if (isConstValue(b, 0)) return a;
      if (isConstValue(a, 0)) return Val(0);
      break;
    case Op::Lt:
    case Op::Gt:
    case Op::Ne:
      if (a.sameAs(b)) return Val::boolean(false);
      break;
    case Op::Le:
    case Op::Ge:
    case Op::Eq:
      if (a.sameAs(b)) return Val::boolean(true);
      break;
    case Op::LogicalAnd:
      if (cb) return *cb != 0 ? a : Val::boolean(false);
      if (a.sameAs(b)) return a;
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

class ValBuilder {
 public:
  static Val build(ValNode node) {
    size_t h = std::hash<int>()(static_cast<int>(node.op));
    h = combineHash(h, std::hash<int64_t>()(node.value));
    h = combineHash(h, std::hash<std::string>()(node.name));
    for (const Val& arg : node.args) h = combineHash(h, arg.hash());
    node.hash = h;
    return Val(std::make_shared<const ValNode>(std::move(node)));
  }
};

Val makeNode(Op op, std::vector<Val> args) {
  ValNode node;
  node.op = op;
  // A select between two truth values is one too.
  node.is_bool = isComparison(op) || op == Op::LogicalAnd ||
                 (op == Op::Select && args.size() == 3 && args[1].isBool() && args[2].isBool());
  node.args = std::move(args);
  return ValBuilder::build(std::move(node));
}

namespace {

Val binary(Op op, Val a, Val b) {
  // Constants go on the right of commutative ops: `i * 3 + 2`, never `2 + 3 * i`.
  if (isCommutative(op) && a.isConst() && !b.isConst()) std::swap(a, b);
  if (auto simplified = simplifyBinary(op, a, b)) return *simplified;
  return makeNode(op, {std::move(a), std::move(b)});
}

}  // namespace

Val::Val() : Val(int64_t{0}) {}

Val::Val(int64_t value) {
  ValNode node;
  node.op = Op::Const;
  node.value = value;
  *this = ValBuilder::build(std::move(node));
}

Val Val::constant(int64_t value) { return Val(value); }

Val Val::boolean(bool value) {
  ValNode node;
  node.op = Op::Const;
  node.value = value ? 1 : 0;
  node.is_bool = true;
  return ValBuilder::build(std::move(node));
}

Val Val::var(std::string name, VarKind kind) {
  TG_USER_CHECK(!name.empty()) << "a variable needs a name";
  ValNode node;
  node.op = Op::Var;
  node.name = std::move(name);
  node.var_kind = kind;
  return ValBuilder::build(std::move(node));
}

Op Val::op() const { return node_->op; }

std::optional<int64_t> Val::constValue() const {
  if (node_->op != Op::Const) return std::nullopt;
  return node_->value;
}

bool Val::isBool() const { return node_->is_bool; }

const std::string& Val::name() const {
  TG_INTERNAL_CHECK(node_->op == Op::Var) << "name() on a " << opName(node_->op) << " node";
  return node_->name;
}

VarKind Val::varKind() const {
  TG_INTERNAL_CHECK(node_->op == Op::Var) << "varKind() on a " << opName(node_->op) << " node";
  return node_->var_kind;
}

std::vector<Val> Val::operands() const { return node_->args; }

size_t Val::hash() const { return node_->hash; }

bool Val::sameAs(const Val& other) const {
  if (node_ == other.node_) return true;
  const ValNode& x = *node_;
  const ValNode& y = *other.node_;
  if (x.hash != y.hash || x.op != y.op || x.value != y.value || x.is_bool != y.is_bool || x.name != y.name ||
      x.args.size() != y.args.size()) {
    return false;
  }
  for (size_t i = 0; i < x.args.size(); ++i) {
    if (!x.args[i].sameAs(y.args[i])) return false;
  }
  return true;
}

std::vector<std::string> Val::freeVars() const {
  std::set<std::string> names;
  std::function<void(const Val&)> walk = [&](const Val& v) {
    if (v.op() == Op::Var) names.insert(v.name());
    for (const Val& arg : v.node_->args) walk(arg);
  };
  walk(*this);
  return {names.begin(), names.end()};
}

Val operator+(const Val& a, const Val& b) { return binary(Op::Add, a, b); }
Val operator-(const Val& a, const Val& b) { return binary(Op::Sub, a, b); }
Val operator*(const Val& a, const Val& b) { return binary(Op::Mul, a, b); }
Val operator/(const Val& a, const Val& b) { return binary(Op::Div, a, b); }
Val operator%(const Val& a, const Val& b) { return binary(Op::Mod, a, b); }
Val operator^(const Val& a, const Val& b) { return binary(Op::BitXor, a, b); }
Val operator&(const Val& a, const Val& b) { return binary(Op::BitAnd, a, b); }
Val operator<<(const Val& a, const Val& b) { return binary(Op::Shl, a, b); }
Val operator>>(const Val& a, const Val& b) { return binary(Op::Shr, a, b); }
Val operator<(const Val& a, const Val& b) { return binary(Op::Lt, a, b); }
Val operator<=(const Val& a, const Val& b) { return binary(Op::Le, a, b); }
Val operator>(const Val& a, const Val& b) { return binary(Op::Gt, a, b); }
Val operator>=(const Val& a, const Val& b) { return binary(Op::Ge, a, b); }
Val eq(const Val& a, const Val& b) { return binary(Op::Eq, a, b); }
Val ne(const Val& a, const Val& b) { return binary(Op::Ne, a, b); }
Val logicalAnd(const Val& a, const Val& b) { return binary(Op::LogicalAnd, a, b); }
Val ceilDiv(const Val& a, const Val& b) { return binary(Op::CeilDiv, a, b); }
Val min(const Val& a, const Val& b) { return binary(Op::Min, a, b); }
Val max(const Val& a, const Val& b) { return binary(Op::Max, a, b); }

Val select(const Val& cond, const Val& if_true, const Val& if_false) {
  if (auto c = cond.constValue()) return *c != 0 ? if_true : if_false;
  if (if_true.sameAs(if_false)) return if_true;
  return makeNode(Op::Select, {cond, if_true, if_false});
}

Val allOf(const std::vector<Val>& terms) {
  Val result = Val::boolean(true);
  for (const Val& term : terms) {
    // Skip terms already present: predicates from nested splits often repeat the logical bound.
    bool seen = false;
    std::function<void(const Val&)> find = [&](const Val& v) {
      if (seen) return;
      if (v.sameAs(term)) {
        seen = true;
      } else if (v.op() == Op::LogicalAnd) {
        for (const Val& operand : v.operands()) find(operand);
      }
    };
    find(result);
    if (seen) continue;
    result = (result.constValue() && *result.constValue() != 0) ? term : logicalAnd(result, term);
  }
  return result;
}

const char* opName(Op op) {
  switch (op) {
    case Op::Const: return "Const";
    case Op::Var: return "Var";
    case Op::Add: return "Add";
    case Op::Sub: return "Sub";
    case Op::Mul: return "Mul";
    case Op::Div: return "Div";
    case Op::Mod: return "Mod";
    case Op::CeilDiv: return "CeilDiv";
    case Op::Min: return "Min";
    case Op::Max: return "Max";
    case Op::BitXor: return "BitXor";
    case Op::BitAnd: return "BitAnd";
    case Op::Shl: return "Shl";
    case Op::Shr: return "Shr";
    case Op::Lt: return "Lt";
    case Op::Le: return "Le";
    case Op::Gt: return "Gt";
    case Op::Ge: return "Ge";
    case Op::Eq: return "Eq";
    case Op::Ne: return "Ne";
    case Op::LogicalAnd: return "LogicalAnd";
    case Op::Select: return "Select";
  }
  return "?";
}

}  // namespace tilegrid::ir
