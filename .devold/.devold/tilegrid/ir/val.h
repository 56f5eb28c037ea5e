#pragma once
// Val: an immutable integer expression, the currency of all index math in tilegrid.
//
// A Val is a cheap handle (a shared pointer) to an expression node. Nodes are never mutated, so
// sharing them is safe, and their lifetime is managed by the handles: there is no raw `new` in user
// code and no leak. Building an expression folds constants and applies the obvious identities at
// construction time (x*1, x+0, x/1, x%1, 0*x, (x*c)/c, ...), so what you build is what codegen prints.
//
// Semantics follow C on int64_t: '/' and '%' truncate. Indices are non-negative in practice, where
// truncation and floor agree.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilegrid::ir {

enum class Op {
  Const,
  Var,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  CeilDiv,
  Min,
  Max,
  BitXor,
  BitAnd,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  LogicalAnd,
  Select,
};

// What a variable stands for. Only the printing of declarations differs; evaluation binds by name.
enum class VarKind {
  Builtin,  // a CUDA built-in such as blockIdx.x
  Param,    // a problem parameter such as M, known at launch: a size, at least 1
  Loop,     // a loop index introduced by codegen or by a test
};

struct ValNode;

class Val {
 public:
  // The constant 0, so that Vals can live in containers.
  Val();
  // Implicit on purpose: `i * 3 + j` reads better than `i * Val::constant(3) + j`.
  Val(int64_t value);  // NOLINT(google-explicit-constructor)
  Val(int value) : Val(static_cast<int64_t>(value)) {}  // NOLINT(google-explicit-constructor)

  static Val constant(int64_t value);
  static Val boolean(bool value);
  static Val var(std::string name, VarKind kind);
  static Val param(std::string name) { return var(std::move(name), VarKind::Param); }
  static Val builtin(std::string name) { return var(std::move(name), VarKind::Builtin); }
  static Val loopIndex(std::string name) { return var(std::move(name), VarKind::Loop); }

  Op op() const;
  bool isConst() const { return op() == Op::Const; }
  std::optional<int64_t> constValue() const;
  // True for comparisons, logical and, and constants folded from them: printed as true/false.
  bool isBool() const;
  // The variable's name (Op::Var only).
  const std::string& name() const;
  VarKind varKind() const;
  // Operands in order: two for binary ops, three for Select (cond, if_true, if_false).
  std::vector<Val> operands() const;

  // Structural equality, not numeric: (a + b) and (b + a) differ.
  bool sameAs(const Val& other) const;
  size_t hash() const;

  // The CUDA expression codegen emits, with parentheses only where C++ precedence needs them.
  std::string toString() const;

  // The names of the free variables, sorted.
  std::vector<std::string> freeVars() const;

  const ValNode* node() const { return node_.get(); }

 private:
  explicit Val(std::shared_ptr<const ValNode> node) : node_(std::move(node)) {}
  friend Val makeNode(Op op, std::vector<Val> args);
  friend class ValBuilder;
  std::shared_ptr<const ValNode> node_;
};

// Values for free variables, by name.
class Bindings {
 public:
  Bindings() = default;
  Bindings(std::initializer_list<std::pair<const std::string, int64_t>> init) : values_(init) {}
  Bindings& set(const std::string& name, int64_t value) {
    values_[name] = value;
    return *this;
  }
  std::optional<int64_t> get(const std::string& name) const;

 private:
  std::map<std::string, int64_t> values_;
};

// Evaluates under the bindings. Throws UserError for an unbound variable or a division by zero.
int64_t evaluate(const Val& v, const Bindings& bindings);

// A Val flattened into straight-line code over numbered slots, for evaluating one expression many
// times (tests over whole domains, benchmarks). Variables are bound by position in `var_order`.
class CompiledVal {
 public:
  CompiledVal(const Val& v, const std::vector<std::string>& var_order);
  int64_t operator()(std::span<const int64_t> var_values) const;

 private:
  struct Instr {
    Op op;
    int64_t value;  // Const: the value; Var: the position in var_values
    int a, b, c;    // operand registers
  };
  std::vector<Instr> code_;
  size_t num_vars_;
  mutable std::vector<int64_t> regs_;
};

Val operator+(const Val& a, const Val& b);
Val operator-(const Val& a, const Val& b);
Val operator*(const Val& a, const Val& b);
Val operator/(const Val& a, const Val& b);
Val operator%(const Val& a, const Val& b);
Val operator^(const Val& a, const Val& b);
Val operator&(const Val& a, const Val& b);
Val operator<<(const Val& a, const Val& b);
Val operator>>(const Val& a, const Val& b);
Val operator<(const Val& a, const Val& b);
Val operator<=(const Val& a, const Val& b);
Val operator>(const Val& a, const Val& b);
Val operator>=(const Val& a, const Val& b);
// Named functions instead of operator== / operator&&, which would confuse containers and lose
// short-circuiting.
Val eq(const Val& a, const Val& b);
Val ne(const Val& a, const Val& b);
Val logicalAnd(const Val& a, const Val& b);
Val ceilDiv(const Val& a, const Val& b);
Val min(const Val& a, const Val& b);
Val max(const Val& a, const Val& b);
Val select(const Val& cond, const Val& if_true, const Val& if_false);

// The conjunction of `terms`, `true` for none.
Val allOf(const std::vector<Val>& terms);

const char* opName(Op op);

}  // namespace tilegrid::ir

namespace tilegrid::ir {

// The operation `op` on `args` (two, three for Select), built as the operators above build it.
Val rebuildOp(Op op, const std::vector<Val>& args);

// `v` with every variable named in `replacements` replaced by its Val (rebuilt, so it simplifies).
Val substitute(const Val& v, const std::map<std::string, Val>& replacements);

// The largest value `v` can take when each variable ranges over [0, max_of[name]], a problem
// parameter (a size) over [1, max_of[name]] (conservative interval arithmetic). Nothing if a variable has no range or a bound overflows int64.
std::optional<int64_t> maxValue(const Val& v, const std::map<std::string, int64_t>& max_of);
// The smallest, by the same analysis.
std::optional<int64_t> minValue(const Val& v, const std::map<std::string, int64_t>& max_of);

}  // namespace tilegrid::ir
