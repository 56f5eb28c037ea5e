#pragma once
// Epilogue: a pointwise expression applied to each fp32 value a kernel computes before it is stored,
// as a small DAG of float operations over named leaves. Plain data, like the rest of the IR: it
// prints (back to the text it parses from), hashes, compares, and evaluates on the host (the
// reference the tests hold generated code to).
//
// Leaves, for an output element at (m, n) of batch entry b:
//   acc            the value computed for (m, n) (a GEMM's fp32 accumulator)
//   alpha, beta    scalars, passed at launch
//   bias[m]        a vector along the output's rows (one value per m), or
//   bias[n]        along its columns: one bias vector per epilogue, along one of the two
//   c, residual    matrices of the output's shape, read at (m, n)
//   scale_a        the scale of A's row m, or A's one scale (the problem's scale mode says which)
//   scale_b        the scale of B's column n, or B's one scale
// Operators: + - * / and unary -, max(x, y), min(x, y), relu, gelu (erf form), gelu_tanh (tanh
// form), silu, sigmoid, tanh, exp, and bf16(x) / fp16(x), which round to that type and back.
// Text: "expr" or "expr; aux = expr": the value stored, and optionally an auxiliary output stored
// beside it (such as the pre-activation value a backward pass needs). Identical subexpressions are
// one node, so the output and aux share their common part.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilegrid::ir {

enum class EpOp {
  // leaves
  Acc, Alpha, Beta, Constant, BiasM, BiasN, C, Residual, ScaleA, ScaleB,
  // unary
  Neg, Relu, Gelu, GeluTanh, Silu, Sigmoid, Tanh, Exp, RoundBf16, RoundFp16,
  // binary
  Add, Sub, Mul, Div, Max, Min,
};

// How many operands an op takes (0 for leaves).
int arity(EpOp op);
// The name an op has in epilogue text: "acc", "bias[m]", "+", "gelu", ...
const char* toString(EpOp op);

struct EpNode {
  EpOp op = EpOp::Acc;
  double value = 0;  // Constant only
  int a = -1, b = -1;  // operands: indices of earlier nodes
  bool operator==(const EpNode&) const = default;
};

// The leaves of one output element, for Epilogue::evaluate.
struct EpLeaves {
  double acc = 0, alpha = 1, beta = 0, bias = 0, c = 0, residual = 0, scale_a = 1, scale_b = 1;
};

class Epilogue {
 public:
  // The identity: the value is stored as computed.
  Epilogue();
  // Parses epilogue text (grammar above). Throws UserError naming the column and what was expected,
  // an unknown name with the names allowed, or a misuse (bias without its axis, two bias axes).
  static Epilogue parse(const std::string& text);

  // Builders (hash-consed: an equal node is returned, not added). Operand indices must be earlier
  // nodes; arity must match.
  int leaf(EpOp op);
  int constant(double value);
  int unary(EpOp op, int a);
  int binary(EpOp op, int a, int b);
  void setOutput(int node);
  void setAux(int node);

  const std::vector<EpNode>& nodes() const { return nodes_; }
  int output() const { return output_; }
  std::optional<int> aux() const { return aux_ < 0 ? std::nullopt : std::optional<int>(aux_); }

  // Whether the output is the accumulator itself and there is no aux.
  bool isIdentity() const;
  // Whether a leaf op is read by the output or aux (an unreachable node reads nothing). Kept as a
  // mask from setOutput and setAux, so that a launch asks without allocating.
  bool reads(EpOp leaf) const;
  // Whether a node is reached from the output or aux.
  std::vector<bool> live() const;

  // Canonical text: parse(toString()) == *this.
  std::string toString() const;
  // The text of one node's expression, parenthesised where precedence needs it.
  std::string toString(int node) const;
  size_t hash() const;

  // The output (and aux) of one element in double precision; rounding nodes round as the device does.
  double evaluate(const EpLeaves& leaves, double* aux = nullptr) const;

  bool operator==(const Epilogue& other) const;

 private:
  int add(EpNode node);
  void updateReads();
  std::vector<EpNode> nodes_;
  int output_ = 0, aux_ = -1;
  uint32_t reads_ = 0;  // bit i: leaf EpOp i is live
};

// `epilogue` with its accumulator leaf read as acc * scale_a * scale_b: what dequantizes a product
// of scaled 8-bit inputs before the rest of the expression sees it.
Epilogue scaleAccumulator(const Epilogue& epilogue);

}  // namespace tilegrid::ir
