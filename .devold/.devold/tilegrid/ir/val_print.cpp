// Printing a Val as the C++/CUDA expression codegen emits.
#include <sstream>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/val.h"
#include "tilegrid/ir/val_node.h"

namespace tilegrid::ir {
namespace {

// C++ precedence levels (smaller binds tighter), as in the standard's operator table.
int precedence(Op op) {
  switch (op) {
    case Op::Const:
    case Op::Var:
    case Op::CeilDiv:
    case Op::Min:
    case Op::Max:
      return 0;
    case Op::Mul:
    case Op::Div:
    case Op::Mod:
      return 5;
    case Op::Add:
    case Op::Sub:
      return 6;
    case Op::Shl:
    case Op::Shr:
      return 7;
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return 9;
    case Op::Eq:
    case Op::Ne:
      return 10;
    case Op::BitAnd:
      return 11;
    case Op::BitXor:
      return 12;
    case Op::LogicalAnd:
      return 14;
    case Op::Select:
      return 16;
  }
  return 16;
}

const char* infix(Op op) {
  switch (op) {
    case Op::Add: return " + ";
    case Op::Sub: return " - ";
    case Op::Mul: return " * ";
    case Op::Div: return " / ";
    case Op::Mod: return " % ";
    case Op::BitXor: return " ^ ";
    case Op::BitAnd: return " & ";
    case Op::Shl: return " << ";
    case Op::Shr: return " >> ";
    case Op::Lt: return " < ";
    case Op::Le: return " <= ";
    case Op::Gt: return " > ";
    case Op::Ge: return " >= ";
    case Op::Eq: return " == ";
    case Op::Ne: return " != ";
    case Op::LogicalAnd: return " && ";
    default: return nullptr;
  }
}

const char* functionName(Op op) {
  switch (op) {
    case Op::CeilDiv: return "ceilDiv";
    case Op::Min: return "min";
    case Op::Max: return "max";
    default: return nullptr;
  }
}

bool isAssociative(Op op) {
  return op == Op::Add || op == Op::Mul || op == Op::BitXor || op == Op::BitAnd || op == Op::LogicalAnd;
}

bool isBitwise(Op op) { return op == Op::BitXor || op == Op::BitAnd || op == Op::Shl || op == Op::Shr; }

bool isArithmetic(Op op) { return precedence(op) == 5 || precedence(op) == 6; }

void print(std::ostream& os, const Val& v);

// Whether `child`, printed as operand `position` of a `parent` node, needs parentheses.
bool needsParens(Op parent, const Val& child, bool right_operand) {
  const Op c = child.op();
  if (c == Op::Const) return right_operand && *child.constValue() < 0 && !child.isBool();
  if (c == Op::Select) return true;
  const int pc = precedence(c);
  const int pp = precedence(parent);
  if (pc == 0) return false;
  if (pc > pp) return true;
  // Readers (and compilers' warnings) trip over `a ^ b + c` and `a & b << c`: spell them out.
  if (isBitwise(parent) && (isArithmetic(c) || (isBitwise(c) && c != parent))) return true;
  if (pc == pp && right_operand) return !(c == parent && isAssociative(parent));
  return false;
}

void printOperand(std::ostream& os, Op parent, const Val& child, bool right_operand) {
  if (needsParens(parent, child, right_operand)) {
    os << '(';
    print(os, child);
    os << ')';
  } else {
    print(os, child);
  }
}

void print(std::ostream& os, const Val& v) {
  const ValNode& node = *v.node();
  switch (node.op) {
    case Op::Const:
      if (node.is_bool) {
        os << (node.value != 0 ? "true" : "false");
      } else {
        os << node.value;
      }
      return;
    case Op::Var:
      os << node.name;
      return;
    case Op::Select:
      printOperand(os, Op::Select, node.args[0], false);
      os << " ? ";
      printOperand(os, Op::Select, node.args[1], false);
      os << " : ";
      printOperand(os, Op::Select, node.args[2], false);
      return;
    default:
      break;
  }
  if (const char* fn = functionName(node.op)) {
    os << fn << '(';
    print(os, node.args[0]);
    os << ", ";
    print(os, node.args[1]);
    os << ')';
    return;
  }
  const char* symbol = infix(node.op);
  TG_INTERNAL_CHECK(symbol != nullptr) << "no printer for op " << opName(node.op);
  printOperand(os, node.op, node.args[0], false);
  os << symbol;
  printOperand(os, node.op, node.args[1], true);
}

}  // namespace

std::string Val::toString() const {
  std::ostringstream os;
  print(os, *this);
  return os.str();
}

}  // namespace tilegrid::ir
