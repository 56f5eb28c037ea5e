#include "tilegrid/ir/epilogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/half_float.h"

namespace tilegrid::ir {

int arity(EpOp op) {
  switch (op) {
    case EpOp::Acc:
    case EpOp::Alpha:
    case EpOp::Beta:
    case EpOp::Constant:
    case EpOp::BiasM:
    case EpOp::BiasN:
    case EpOp::C:
    case EpOp::Residual:
    case EpOp::ScaleA:
    case EpOp::ScaleB: return 0;
    case EpOp::Add:
    case EpOp::Sub:
    case EpOp::Mul:
    case EpOp::Div:
    case EpOp::Max:
    case EpOp::Min: return 2;
    default: return 1;
  }
}

const char* toString(EpOp op) {
  switch (op) {
    case EpOp::Acc: return "acc";
    case EpOp::Alpha: return "alpha";
    case EpOp::Beta: return "beta";
    case EpOp::Constant: return "constant";
    case EpOp::BiasM: return "bias[m]";
    case EpOp::BiasN: return "bias[n]";
    case EpOp::C: return "c";
    case EpOp::Residual: return "residual";
    case EpOp::ScaleA: return "scale_a";
    case EpOp::ScaleB: return "scale_b";
    case EpOp::Neg: return "-";
    case EpOp::Relu: return "relu";
    case EpOp::Gelu: return "gelu";
    case EpOp::GeluTanh: return "gelu_tanh";
    case EpOp::Silu: return "silu";
    case EpOp::Sigmoid: return "sigmoid";
    case EpOp::Tanh: return "tanh";
    case EpOp::Exp: return "exp";
    case EpOp::RoundBf16: return "bf16";
    case EpOp::RoundFp16: return "fp16";
    case EpOp::Add: return "+";
    case EpOp::Sub: return "-";
    case EpOp::Mul: return "*";
    case EpOp::Div: return "/";
    case EpOp::Max: return "max";
    case EpOp::Min: return "min";
  }
  return "?";
}

Epilogue::Epilogue() { setOutput(leaf(EpOp::Acc)); }

int Epilogue::add(EpNode node) {
  const int ops = arity(node.op);
  TG_INTERNAL_CHECK((ops >= 1) == (node.a >= 0) && (ops == 2) == (node.b >= 0))
      << "epilogue node " << ir::toString(node.op) << " takes " << ops << " operands";
  TG_INTERNAL_CHECK(node.a < static_cast<int>(nodes_.size()) && node.b < static_cast<int>(nodes_.size()))
      << "epilogue node " << ir::toString(node.op) << " reads a node that does not exist yet";
  const auto same = std::find(nodes_.begin(), nodes_.end(), node);
  if (same != nodes_.end()) return static_cast<int>(same - nodes_.begin());
  nodes_.push_back(node);
  return static_cast<int>(nodes_.size()) - 1;
}

int Epilogue::leaf(EpOp op) {
  TG_INTERNAL_CHECK(arity(op) == 0 && op != EpOp::Constant) << ir::toString(op) << " is not a named leaf";
  // One bias vector per epilogue: a kernel reads it along one axis.
  const EpOp other = op == EpOp::BiasM ? EpOp::BiasN : op == EpOp::BiasN ? EpOp::BiasM : op;
  TG_USER_CHECK(other == op || std::none_of(nodes_.begin(), nodes_.end(), [&](const EpNode& n) { return n.op == other; }))
      << "an epilogue reads one bias vector, along m or along n, not both bias[m] and bias[n]";
  return add({op, 0, -1, -1});
}

int Epilogue::constant(double value) {
  TG_USER_CHECK(std::isfinite(value) && std::fabs(value) <= std::numeric_limits<float>::max())
      << "epilogue constant " << value << " is outside float's range (the epilogue computes in fp32)";
  return add({EpOp::Constant, value, -1, -1});
}

int Epilogue::unary(EpOp op, int a) { return add({op, 0, a, -1}); }

int Epilogue::binary(EpOp op, int a, int b) { return add({op, 0, a, b}); }

void Epilogue::setOutput(int node) {
  TG_INTERNAL_CHECK(node >= 0 && node < static_cast<int>(nodes_.size())) << "epilogue output " << node;
  output_ = node;
  updateReads();
}

void Epilogue::setAux(int node) {
  TG_INTERNAL_CHECK(node >= 0 && node < static_cast<int>(nodes_.size())) << "epilogue aux " << node;
  aux_ = node;
  updateReads();
}

void Epilogue::updateReads() {
  const std::vector<bool> l = live();
  reads_ = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (l[i] && arity(nodes_[i].op) == 0) reads_ |= uint32_t{1} << static_cast<int>(nodes_[i].op);
  }
}

std::vector<bool> Epilogue::live() const {
  std::vector<bool> live(nodes_.size(), false);
  live[output_] = true;
  if (aux_ >= 0) live[aux_] = true;
  // Operands precede their users: one pass from the end reaches everything.
  for (size_t i = nodes_.size(); i-- > 0;) {
    if (!live[i]) continue;
    if (nodes_[i].a >= 0) live[nodes_[i].a] = true;
    if (nodes_[i].b >= 0) live[nodes_[i].b] = true;
  }
  return live;
}

bool Epilogue::isIdentity() const { return aux_ < 0 && nodes_[output_].op == EpOp::Acc; }

bool Epilogue::reads(EpOp leaf_op) const { return (reads_ >> static_cast<int>(leaf_op) & 1) != 0; }

namespace {

// Binding strength in text: sums 1, products 2, a leading minus 3, calls and leaves 4.
int precedence(EpOp op) {
  switch (op) {
    case EpOp::Add:
    case EpOp::Sub: return 1;
    case EpOp::Mul:
    case EpOp::Div: return 2;
    case EpOp::Neg: return 3;
    default: return 4;
  }
}

std::string number(double v) {
  std::string text = fmt::format("{}", v);
  return text;
}

}  // namespace

std::string Epilogue::toString(int node) const {
  const EpNode& n = nodes_.at(static_cast<size_t>(node));
  const int ops = arity(n.op);
  if (n.op == EpOp::Constant) return n.value < 0 ? "(" + number(n.value) + ")" : number(n.value);
  if (ops == 0) return ir::toString(n.op);
  // An operand is parenthesised where it binds more loosely than its user, and on the right where it
  // binds equally: text reads left to right, so a - (b - c), and a * (b * c) too, which is another
  // DAG than a * b * c (and rounds differently in fp32).
  const auto operand = [&](int i, bool right) {
    const int p = precedence(nodes_[i].op), q = precedence(n.op);
    const std::string text = toString(i);
    return p < q || (right && p == q && arity(n.op) == 2) ? "(" + text + ")" : text;
  };
  switch (n.op) {
    case EpOp::Neg: return "-" + operand(n.a, false);
    case EpOp::Add:
    case EpOp::Sub:
    case EpOp::Mul:
    case EpOp::Div: return operand(n.a, false) + " " + ir::toString(n.op) + " " + operand(n.b, true);
    case EpOp::Max:
    case EpOp::Min: return fmt::format("{}({}, {})", ir::toString(n.op), toString(n.a), toString(n.b));
    default: return fmt::format("{}({})", ir::toString(n.op), toString(n.a));
  }
}

std::string Epilogue::toString() const {
  std::string text = toString(output_);
  if (aux_ >= 0) text += "; aux = " + toString(aux_);
  return text;
}

size_t Epilogue::hash() const {
  // FNV-1a over the nodes, without allocating (matmul() keys its cache on it).
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const EpNode& n : nodes_) {
    uint64_t bits = 0;
    static_assert(sizeof(bits) == sizeof(n.value));
    std::memcpy(&bits, &n.value, sizeof(bits));
    mix(static_cast<uint64_t>(n.op));
    mix(bits);
    mix(static_cast<uint64_t>(n.a + 1));
    mix(static_cast<uint64_t>(n.b + 1));
  }
  mix(static_cast<uint64_t>(output_));
  mix(static_cast<uint64_t>(aux_ + 1));
  return static_cast<size_t>(h);
}

bool Epilogue::operator==(const Epilogue& other) const {
  return nodes_ == other.nodes_ && output_ == other.output_ && aux_ == other.aux_;
}

namespace {

double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

double Epilogue::evaluate(const EpLeaves& in, double* aux) const {
  std::vector<double> v(nodes_.size(), 0.0);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const EpNode& n = nodes_[i];
    const double a = n.a >= 0 ? v[n.a] : 0, b = n.b >= 0 ? v[n.b] : 0;
    switch (n.op) {
      case EpOp::Acc: v[i] = in.acc; break;
      case EpOp::Alpha: v[i] = in.alpha; break;
      case EpOp::Beta: v[i] = in.beta; break;
      case EpOp::Constant: v[i] = n.value; break;
      case EpOp::BiasM:
      case EpOp::BiasN: v[i] = in.bias; break;
      case EpOp::C: v[i] = in.c; break;
      case EpOp::Residual: v[i] = in.residual; break;
      case EpOp::ScaleA: v[i] = in.scale_a; break;
      case EpOp::ScaleB: v[i] = in.scale_b; break;
      case EpOp::Neg: v[i] = -a; break;
      case EpOp::Relu: v[i] = std::max(a, 0.0); break;
      case EpOp::Gelu: v[i] = gelu(a); break;
      case EpOp::GeluTanh: v[i] = geluTanh(a); break;
      case EpOp::Silu: v[i] = a * sigmoid(a); break;
      case EpOp::Sigmoid: v[i] = sigmoid(a); break;
      case EpOp::Tanh: v[i] = std::tanh(a); break;
      case EpOp::Exp: v[i] = std::exp(a); break;
      case EpOp::RoundBf16: v[i] = bf16ToFloat(floatToBf16(static_cast<float>(a))); break;
      case EpOp::RoundFp16: v[i] = halfToFloat(floatToHalf(static_cast<float>(a))); break;
      case EpOp::Add: v[i] = a + b; break;
      case EpOp::Sub: v[i] = a - b; break;
      case EpOp::Mul: v[i] = a * b; break;
      case EpOp::Div: v[i] = a / b; break;
      case EpOp::Max: v[i] = std::max(a, b); break;
      case EpOp::Min: v[i] = std::min(a, b); break;
    }
  }
  if (aux != nullptr) *aux = aux_ >= 0 ? v[aux_] : 0;
  return v[output_];
}

Epilogue scaleAccumulator(const Epilogue& e) {
  Epilogue out;
  const int acc = out.leaf(EpOp::Acc);
  const int scaled = out.binary(EpOp::Mul, out.binary(EpOp::Mul, acc, out.leaf(EpOp::ScaleA)), out.leaf(EpOp::ScaleB));
  // Operands precede their users: one pass rebuilds every node over the new ones.
  std::vector<int> at(e.nodes().size(), -1);
  for (size_t i = 0; i < e.nodes().size(); ++i) {
    const EpNode& n = e.nodes()[i];
    if (n.op == EpOp::Acc) {
      at[i] = scaled;
    } else if (n.op == EpOp::Constant) {
      at[i] = out.constant(n.value);
    } else if (arity(n.op) == 0) {
      at[i] = out.leaf(n.op);
    } else if (arity(n.op) == 1) {
      at[i] = out.unary(n.op, at[n.a]);
    } else {
      at[i] = out.binary(n.op, at[n.a], at[n.b]);
    }
  }
  out.setOutput(at[e.output()]);
  if (e.aux()) out.setAux(at[*e.aux()]);
  // In the order parsing its text builds the nodes: equal epilogues are equal data.
  return Epilogue::parse(out.toString());
}

}  // namespace tilegrid::ir
