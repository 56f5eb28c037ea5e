#include "tilegrid/ir/transform.h"

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {

void Transform::checkArity(const std::vector<Val>& values, size_t expected, const char* what) const {
  TG_INTERNAL_CHECK(values.size() == expected)
      << kind() << "::" << what << " takes " << expected << " indices, got " << values.size();
}

bool provablyEqual(const Val& a, const Val& b) {
  if (a.sameAs(b)) return true;
  auto ca = a.constValue();
  auto cb = b.constValue();
  return ca && cb && *ca == *cb;
}

}  // namespace tilegrid::ir
