#include "support/c_expr.h"

#include <cctype>
#include <stdexcept>
#include <vector>

namespace tilegrid::testing {
namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, int64_t>& vars) : text_(text), vars_(vars) {}

  int64_t parseAll() {
    const int64_t value = ternary();
    skipSpace();
    if (pos_ != text_.size()) fail("trailing text");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at offset " + std::to_string(pos_) + " in: " + text_);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `token` if it comes next (and is not the start of a longer operator).
  bool accept(const std::string& token) {
    skipSpace();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    const char after = pos_ + token.size() < text_.size() ? text_[pos_ + token.size()] : '\0';
    // '<' must not eat '<<' or '<=', '&' must not eat '&&', and so on.
    if ((token == "<" || token == ">") && (after == token[0] || after == '=')) return false;
    if (token == "&" && after == '&') return false;
    pos_ += token.size();
    return true;
  }

  void expect(const std::string& token) {
    if (!accept(token)) fail("expected '" + token + "'");
  }

  int64_t ternary() {
    const int64_t cond = binary(0);
    if (!accept("?")) return cond;
    const int64_t a = ternary();
    expect(":");
    const int64_t b = ternary();
    return cond != 0 ? a : b;
  }

  // Binary operators by C precedence, loosest first.
  int64_t binary(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"&&"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    int64_t left = binary(level + 1);
    while (true) {
      std::string op;
      for (const std::string& candidate : levels[static_cast<size_t>(level)]) {
        if (accept(candidate)) {
          op = candidate;
          break;
        }
      }
      if (op.empty()) return left;
      const int64_t right = binary(level + 1);
      left = apply(op, left, right);
    }
  }

  int64_t apply(const std::string& op, int64_t a, int64_t b) const {
    if ((op == "/" || op == "%") && b == 0) fail("division by zero");
    if (op == "&&") return a != 0 && b != 0;
    if (op == "^") return a ^ b;
    if (op == "&") return a & b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    if (op == "<<") return a << b;
    if (op == ">>") return a >> b;
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (op == "/") return a / b;
    return a % b;
  }

  int64_t unary() {
    if (accept("-")) return -unary();
    return primary();
  }

  int64_t primary() {
    skipSpace();
    if (accept("(")) {
      const int64_t value = ternary();
      expect(")");
      return value;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        value = value * 10 + (text_[pos_++] - '0');
      }
      return value;
    }
    std::string name;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '.')) {
      name += text_[pos_++];
    }
    if (name.empty()) fail("expected an operand");
    if (name == "true") return 1;
    if (name == "false") return 0;
    if (name == "ceilDiv" || name == "min" || name == "max") {
      expect("(");
      const int64_t a = ternary();
      expect(",");
      const int64_t b = ternary();
      expect(")");
      if (name == "min") return a < b ? a : b;
      if (name == "max") return a > b ? a : b;
      if (b == 0) fail("division by zero");
      return (a + b - 1) / b;
    }
    auto it = vars_.find(name);
    if (it == vars_.end()) fail("unbound name '" + name + "'");
    return it->second;
  }

  const std::string& text_;
  const std::map<std::string, int64_t>& vars_;
  size_t pos_ = 0;
};

}  // namespace

int64_t evalCExpr(const std::string& text, const std::map<std::string, int64_t>& vars) {
  return Parser(text, vars).parseAll();
}

}  // namespace tilegrid::testing
