#pragma once
// A small evaluator for the C expressions tilegrid prints, written independently of the printer so
// tests can check that the *printed text* (precedence, parentheses, functions) means what the Val
// means.
#include <cstdint>
#include <map>
#include <string>

namespace tilegrid::testing {

// Evaluates `text` (integers, names such as blockIdx.x, + - * / % << >> < <= > >= == != & ^ &&,
// ?:, unary -, true/false, ceilDiv/min/max calls) with C semantics on int64_t. Throws
// std::runtime_error on malformed text or an unbound name.
int64_t evalCExpr(const std::string& text, const std::map<std::string, int64_t>& vars);

}  // namespace tilegrid::testing
