// Epilogue text to IR, by recursive descent:
//   program := expr [';' 'aux' '=' expr] [';']
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := number | name | name '[' ('m' | 'n') ']' | function '(' expr [',' expr] ')' | '(' expr ')'
// Errors name the 1-based column and what was expected there.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/epilogue.h"

namespace tilegrid::ir {
namespace {

struct NamedOp {
  const char* name;
  EpOp op;
};

constexpr NamedOp kLeaves[] = {{"acc", EpOp::Acc}, {"alpha", EpOp::Alpha}, {"beta", EpOp::Beta},
                               {"c", EpOp::C},     {"residual", EpOp::Residual},
                               {"scale_a", EpOp::ScaleA}, {"scale_b", EpOp::ScaleB}};
constexpr NamedOp kFunctions[] = {{"relu", EpOp::Relu},       {"gelu", EpOp::Gelu},   {"gelu_tanh", EpOp::GeluTanh},
                                  {"silu", EpOp::Silu},       {"sigmoid", EpOp::Sigmoid}, {"tanh", EpOp::Tanh},
                                  {"exp", EpOp::Exp},         {"bf16", EpOp::RoundBf16}, {"fp16", EpOp::RoundFp16},
                                  {"max", EpOp::Max},         {"min", EpOp::Min}};
constexpr const char* kAllowed =
    "acc, alpha, beta, c, residual, bias[m], bias[n], scale_a, scale_b, numbers, and the functions relu, gelu, gelu_tanh, silu, "
    "sigmoid, tanh, exp, bf16, fp16, max, min";

class Parser {
 public:
  Parser(const std::string& text, Epilogue& out) : text_(text), out_(out) {}

  void program() {
    out_.setOutput(expr());
    if (accept(';')) {
      skipSpace();
      if (pos_ < text_.size()) {
        const size_t at = pos_;
        const std::string name = identifier();
        if (name != "aux") fail(at, "'aux = <expression>' after ';'", name.empty() ? describeHere() : "'" + name + "'");
        expect('=', "'=' after aux");
        out_.setAux(expr());
        accept(';');
      }
    }
    skipSpace();
    if (pos_ < text_.size()) fail(pos_, "an operator, ';' or the end", describeHere());
  }

 private:
  int expr() { return chain(&Parser::term, {{'+', EpOp::Add}, {'-', EpOp::Sub}}); }

  int term() { return chain(&Parser::unary, {{'*', EpOp::Mul}, {'/', EpOp::Div}}); }

  // Operands read by `next`, joined left to right by the operators of `ops`.
  int chain(int (Parser::*next)(), std::initializer_list<std::pair<char, EpOp>> ops) {
    int left = (this->*next)();
    for (;;) {
      const auto op = std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return accept(o.first); });
      if (op == ops.end()) return left;
      left = out_.binary(op->second, left, (this->*next)());
    }
  }

  int unary() {
    if (!accept('-')) return primary();
    skipSpace();
    // A minus before a number is part of the number, so that printed constants read back as themselves.
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      return out_.constant(-number());
    }
    return out_.unary(EpOp::Neg, unary());
  }

  int primary() {
    skipSpace();
    if (pos_ >= text_.size()) fail(pos_, "an expression", "the end");
    const char ch = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(ch)) || ch == '.') return out_.constant(number());
    if (accept('(')) {
      const int inner = expr();
      expect(')', "')'");
      return inner;
    }
    const size_t at = pos_;
    const std::string name = identifier();
    if (name.empty()) fail(at, "an expression", describeHere());
    if (name == "bias") {
      expect('[', "'[' after bias (bias[m] or bias[n])");
      skipSpace();
      const size_t axis_at = pos_;
      const std::string axis = identifier();
      if (axis != "m" && axis != "n") fail(axis_at, "m or n (bias[m] or bias[n])", axis.empty() ? describeHere() : "'" + axis + "'");
      expect(']', "']'");
      try {
        return out_.leaf(axis == "m" ? EpOp::BiasM : EpOp::BiasN);
      } catch (const UserError& e) {
        fail(at, "one bias axis", std::string("bias[") + axis + "]: " + e.what());
      }
    }
    for (const NamedOp& l : kLeaves) {
      if (name == l.name) {
        skipSpace();
        if (pos_ < text_.size() && (text_[pos_] == '(' || text_[pos_] == '['))
          fail(pos_, std::string("an operator after ") + l.name + ", which is a value", describeHere());
        return out_.leaf(l.op);
      }
    }
    for (const NamedOp& f : kFunctions) {
      if (name != f.name) continue;
      expect('(', std::string("'(' after ") + f.name);
      const int a = expr();
      if (arity(f.op) == 2) {
        expect(',', std::string("',' and a second argument of ") + f.name);
        const int b = expr();
        expect(')', std::string("')' after the arguments of ") + f.name);
        return out_.binary(f.op, a, b);
      }
      expect(')', std::string("')' after the argument of ") + f.name);
      return out_.unary(f.op, a);
    }
    fail(at, std::string("a known name (") + kAllowed + ")", "'" + name + "'");
  }

  double number() {
    skipSpace();
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin) fail(pos_, "a number", describeHere());
    pos_ += static_cast<size_t>(end - begin);
    return v;
  }

  std::string identifier() {
    skipSpace();
    const size_t begin = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char ch) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ch) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char ch, const std::string& what) {
    if (!accept(ch)) fail(pos_, what, describeHere());
  }

  std::string describeHere() const {
    if (pos_ >= text_.size()) return "the end";
    return "'" + text_.substr(pos_, 1) + "'";
  }

  [[noreturn]] void fail(size_t at, const std::string& expected, const std::string& found) const {
    TG_USER_ERROR() << "epilogue \"" << text_ << "\", column " << at + 1 << ": expected " << expected << ", found "
                    << found;
    throw UserError("unreachable");
  }

  const std::string& text_;
  Epilogue& out_;
  size_t pos_ = 0;
};

}  // namespace

Epilogue Epilogue::parse(const std::string& text) {
  Epilogue e;
  Parser(text, e).program();
  return e;
}

}  // namespace tilegrid::ir
