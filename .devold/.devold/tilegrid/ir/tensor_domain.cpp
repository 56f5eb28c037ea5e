#include "tilegrid/ir/tensor_domain.h"

#include <algorithm>
#include <sstream>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/merge.h"
#include "tilegrid/ir/split.h"
#include "tilegrid/ir/swizzle.h"
#include "tilegrid/ir/swizzle_merge.h"

namespace tilegrid::ir {

TensorDomain::TensorDomain(std::string name, const std::vector<AxisSpec>& logical) : name_(std::move(name)) {
  TG_USER_CHECK(!logical.empty()) << "TensorDomain '" << name_ << "' needs at least one axis";
  for (const AxisSpec& axis : logical) {
    TG_USER_CHECK(!axis.name.empty()) << "every axis of TensorDomain '" << name_ << "' needs a name";
    logical_.push_back(graph_.addIterDomain(axis.name, axis.extent, axis.iter_type));
  }
  loop_ = logical_;
  allocation_ = logical_;
}

size_t TensorDomain::position(int axis, const char* what) const {
  const int n = static_cast<int>(loop_.size());
  TG_USER_CHECK(axis >= -n && axis < n) << what << ": axis " << axis << " is out of range for a loop domain of "
                                        << n << " axes (allowed: " << -n << " to " << n - 1 << ")";
  return static_cast<size_t>(axis < 0 ? axis + n : axis);
}

const IterDomain& TensorDomain::axis(int position) const {
  return graph_.iterDomain(loop_[this->position(position, "axis")]);
}

void TensorDomain::replaceAxes(std::vector<size_t> positions, const std::vector<IterDomainId>& outputs) {
  const size_t insert_at = *std::min_element(positions.begin(), positions.end());
  std::sort(positions.rbegin(), positions.rend());
  for (size_t p : positions) loop_.erase(loop_.begin() + static_cast<std::ptrdiff_t>(p));
  loop_.insert(loop_.begin() + static_cast<std::ptrdiff_t>(insert_at), outputs.begin(), outputs.end());
}

TensorDomain& TensorDomain::split(int axis, const Val& factor, bool inner_split) {
  const size_t p = position(axis, "split");
  const IterDomainId in = loop_[p];
  auto outputs = graph_.addTransform(std::make_unique<Split>(iterDomain(in).extent, factor, inner_split), {in});
  replaceAxes({p}, outputs);
  return *this;
}

TensorDomain& TensorDomain::merge(int axis_outer, int axis_inner) {
  const size_t po = position(axis_outer, "merge");
  const size_t pi = position(axis_inner, "merge");
  TG_USER_CHECK(po != pi) << "merge: cannot merge axis " << axis_outer << " with itself";
  const IterDomainId o = loop_[po];
  const IterDomainId i = loop_[pi];
  auto outputs =
      graph_.addTransform(std::make_unique<Merge>(iterDomain(o).extent, iterDomain(i).extent), {o, i});
  replaceAxes({po, pi}, outputs);
  return *this;
}

TensorDomain& TensorDomain::reorder(const std::map<int, int>& old_to_new) {
  const size_t n = loop_.size();
  std::vector<IterDomainId> result(n);
  std::vector<bool> taken_old(n, false), taken_new(n, false);
  for (auto [from, to] : old_to_new) {
    const size_t f = position(from, "reorder");
    const size_t t = position(to, "reorder");
    TG_USER_CHECK(!taken_old[f]) << "reorder: axis " << from << " is moved twice";
    TG_USER_CHECK(!taken_new[t]) << "reorder: two axes are moved to position " << to;
    taken_old[f] = taken_new[t] = true;
    result[t] = loop_[f];
  }
  size_t next = 0;
  for (size_t f = 0; f < n; ++f) {
    if (taken_old[f]) continue;
    while (taken_new[next]) ++next;
    result[next++] = loop_[f];
  }
  loop_ = std::move(result);
  return *this;
}

TensorDomain& TensorDomain::swizzle(int axis, int bits, int base, int shift) {
  const size_t p = position(axis, "swizzle");
  const IterDomainId in = loop_[p];
  auto outputs = graph_.addTransform(std::make_unique<Swizzle>(iterDomain(in).extent, bits, base, shift), {in});
  replaceAxes({p}, outputs);
  return *this;
}

TensorDomain& TensorDomain::swizzle2d(int axis_x, int axis_y, Swizzle2DKind kind) {
  const size_t px = position(axis_x, "swizzle2d");
  const size_t py = position(axis_y, "swizzle2d");
  TG_USER_CHECK(px != py) << "swizzle2d: x and y must be different axes, both are " << axis_x;
  const IterDomainId x = loop_[px];
  const IterDomainId y = loop_[py];
  auto outputs =
      graph_.addTransform(std::make_unique<Swizzle2D>(iterDomain(x).extent, iterDomain(y).extent, kind), {x, y});
  loop_[px] = outputs[0];
  loop_[py] = outputs[1];
  return *this;
}

TensorDomain& TensorDomain::swizzleMerge(int axis_x, int axis_y, const std::vector<Val>& factors) {
  const size_t px = position(axis_x, "swizzleMerge");
  const size_t py = position(axis_y, "swizzleMerge");
  TG_USER_CHECK(px != py) << "swizzleMerge: x and y must be different axes, both are " << axis_x;
  const IterDomainId x = loop_[px];
  const IterDomainId y = loop_[py];
  auto outputs = graph_.addTransform(
      std::make_unique<SwizzleMerge>(iterDomain(x).extent, iterDomain(y).extent, factors), {x, y});
  replaceAxes({px, py}, outputs);
  return *this;
}

TensorDomain& TensorDomain::parallelize(int axis, ParallelType type) {
  const size_t p = position(axis, "parallelize");
  if (type != ParallelType::Serial && type != ParallelType::Unroll && type != ParallelType::Vectorize) {
    for (size_t q = 0; q < loop_.size(); ++q) {
      TG_USER_CHECK(q == p || iterDomain(loop_[q]).parallel != type)
          << "parallelize: " << ir::toString(type) << " is already bound to loop axis " << q;
    }
  }
  graph_.iterDomain(loop_[p]).parallel = type;
  return *this;
}

void TensorDomain::checkDerivedDomain(const std::vector<IterDomainId>& domain, const char* what) const {
  TG_USER_CHECK(!domain.empty()) << what << ": the domain is empty";
  for (IterDomainId id : domain) {
    TG_USER_CHECK(id.index >= 0 && static_cast<size_t>(id.index) < graph_.numIterDomains())
        << what << ": IterDomain id " << id.index << " does not belong to TensorDomain '" << name_ << "'";
  }
  const std::set<IterDomainId> roots = graph_.roots(domain);
  const std::set<IterDomainId> logical(logical_.begin(), logical_.end());
  TG_USER_CHECK(roots == logical) << what << ": the domain must derive from every logical axis of '" << name_
                                  << "' and from nothing else";
  std::set<IterDomainId> unique(domain.begin(), domain.end());
  TG_USER_CHECK(unique.size() == domain.size()) << what << ": an IterDomain appears twice";
}

TensorDomain& TensorDomain::setLoopDomain(const std::vector<IterDomainId>& domain) {
  checkDerivedDomain(domain, "setLoopDomain");
  loop_ = domain;
  return *this;
}

TensorDomain& TensorDomain::setAllocationDomain(const std::vector<IterDomainId>& domain) {
  checkDerivedDomain(domain, "setAllocationDomain");
  allocation_ = domain;
  allocation_strides_.clear();
  return *this;
}

TensorDomain& TensorDomain::setAllocationStrides(const std::vector<Val>& strides) {
  TG_USER_CHECK(strides.size() == allocation_.size())
      << name_ << ": " << strides.size() << " allocation strides for " << allocation_.size() << " allocation axes";
  allocation_strides_ = strides;
  return *this;
}

namespace {

std::string joined(const TensorDomain& domain, const std::vector<IterDomainId>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) text += (i ? ", " : "") + domain.iterDomain(ids[i]).toString();
  return text;
}

}  // namespace

std::string toString(const TensorDomain& domain, const std::vector<IterDomainId>& ids) {
  return "[" + joined(domain, ids) + "]";
}

std::string TensorDomain::toString() const {
  std::ostringstream os;
  os << "TensorDomain " << name_ << "\n";
  os << "  logical:    " << ir::toString(*this, logical_) << "\n";
  os << "  loop:       " << ir::toString(*this, loop_) << "\n";
  os << "  allocation: " << (allocation_ == logical_ ? std::string("logical") : ir::toString(*this, allocation_))
     << "\n";
  if (!allocation_strides_.empty()) {
    os << "  strides:    [";
    for (size_t i = 0; i < allocation_strides_.size(); ++i) os << (i ? ", " : "") << allocation_strides_[i].toString();
    os << "]\n";
  }
  os << "  transforms:";
  if (graph_.numTransforms() == 0) os << " none";
  os << "\n";
  // Creation order is a topological order too, and the one the user wrote.
  for (size_t t = 0; t < graph_.numTransforms(); ++t) {
    const Transform& transform = graph_.transform(t);
    os << "    " << joined(*this, transform.outputs()) << " = " << transform.kind() << "("
       << joined(*this, transform.inputs());
    const std::string params = transform.params();
    if (!params.empty()) os << ", " << params;
    os << ")\n";
  }
  return os.str();
}

}  // namespace tilegrid::ir
