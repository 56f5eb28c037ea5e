#include "tilegrid/scheduler/row_classes.h"

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/operand_padding.h"

namespace tilegrid::scheduler {

int64_t classedRow(int64_t position) {
  const int64_t in_block = position % kClassBlockRows;
  return position - in_block + kRowClasses * (in_block % kRowClasses) + in_block / kRowClasses;
}

ir::TensorDomain buildClassOrder(const std::string& name, int64_t rows, bool classed) {
  ir::TensorDomain order(name, {{"row", ir::Val(rows)}});
  if (!classed) return order;
  TG_INTERNAL_CHECK(rows % kClassBlockRows == 0) << name << ": " << rows << " rows are not whole blocks of classes";
  // row = 64 b + 8 i + j -> [b, i, j]; a block lands class by class: position = 64 b + 8 j + i.
  order.split(0, ir::Val(kRowClasses)).split(0, ir::Val(kClassBlockRows / kRowClasses));
  order.reorder({{1, 2}, {2, 1}}).merge(0).merge(0);
  return order;
}

namespace {

// The rows the operand's tile has along the mode its rows run: M or N for a K-major operand, K for an
// MN-major one.
int64_t tileRows(const MatmulParams& p, bool k_major, char operand) {
  if (!k_major) return p.cta_tile.k;
  return operand == 'a' ? p.cta_tile.m : p.compiledTile().n;
}

}  // namespace

std::optional<std::string> rowClassesRefusal(const MatmulProblem& kernel, const MatmulParams& p, char operand) {
  TG_INTERNAL_CHECK(operand == 'a' || operand == 'b') << "operand '" << operand << "': only A and B have row classes";
  const bool a = operand == 'a';
  if (p.arch != Arch::Sm90) return "sm_80 kernels load rows of any alignment without TMA";
  const DType type = a ? kernel.a_dtype : kernel.b_dtype;
  const int64_t esize = bytes(type);
  const int64_t ld = a ? kernel.leadingDimA() : kernel.leadingDimB();
  const int64_t rows = a ? kernel.rowsA() : kernel.rowsB();
  const Major major = a ? majorOfA(kernel.layout) : majorOfB(kernel.layout);
  const Major other = a ? majorOfB(kernel.layout) : majorOfA(kernel.layout);
  if (ld * esize % 2 != 0) {
    return "rows of an odd number of bytes: a class's rows (8 apart) are not 16 bytes apart";
  }
  // A class map's rows run 8 operand rows at a time, so its last row may reach past a batch entry's
  // end: its extent would overlap the next entry's, which tensor maps are not encoded with.
  if (kernel.batch > 1) return "batches (a class map's rows would overlap the next batch entry's)";
  if (rows < kRowClasses) return "fewer rows than classes";
  if (kernel.scale == ScaleMode::Block128) return "block scales, which the main loop reads per row of the tile";
  const int64_t tile_rows = tileRows(p, major == Major::K, operand);
  if (tile_rows % kClassBlockRows != 0) {
    return "a tile of " + std::to_string(tile_rows) + (major == Major::K ? " rows" : " K") + ", not whole blocks of " +
           std::to_string(kClassBlockRows);
  }
  if (major == Major::MN) {
    // The classes permute K, which the other operand must share.
    if (other != Major::MN) return "an MN-major operand beside a K-major one: classes would permute K for it alone";
    return std::nullopt;
  }
  if (!a) {
    // Classes of B permute the accumulators' columns within blocks of 64.
    if (p.width_at_launch) return "a kernel holding several tile widths";
    // The epilogue computes pairs of adjacent columns; it may do so on permuted ones where it reads
    // nothing per row or column.
    const ir::Epilogue& e = kernel.epilogue;
    if (e.reads(ir::EpOp::BiasM) || e.reads(ir::EpOp::BiasN) || e.reads(ir::EpOp::C) || e.reads(ir::EpOp::Residual) ||
        e.aux() || kernel.scale == ScaleMode::Row) {
      return "a fused epilogue reading or writing matrices or vectors, for pairs of adjacent columns";
    }
    if (p.epilogue_tile.n % kClassBlockRows != 0) {
      return "epilogue slabs of " + std::to_string(p.epilogue_tile.n) + " columns, which split blocks of classes";
    }
  }
  return std::nullopt;
}

std::string chooseRowClasses(const MatmulProblem& kernel, MatmulParams& p) {
  if (p.arch != Arch::Sm90 || (!p.pad_a && !p.pad_b)) return "no misaligned operand";
  const auto refusal_a = rowClassesRefusal(kernel, p, 'a'), refusal_b = rowClassesRefusal(kernel, p, 'b');
  const bool both_mn = majorOfA(kernel.layout) == Major::MN && majorOfB(kernel.layout) == Major::MN;
  if (both_mn) {
    // K is permuted alike in both tiles, so both are classed or neither.
    if (!refusal_a && !refusal_b) {
      p.row_classes_a = p.row_classes_b = true;
      p.pad_a = p.pad_b = false;
      return "both operands MN-major: both read in classes of K rows, permuting K alike";
    }
    return "padded: " + (refusal_a ? *refusal_a : *refusal_b);
  }
  std::string why;
  for (const char operand : {'a', 'b'}) {
    bool& pad = operand == 'a' ? p.pad_a : p.pad_b;
    const auto& refusal = operand == 'a' ? refusal_a : refusal_b;
    if (!pad) continue;
    if (!why.empty()) why += "; ";
    why += operand == 'a' ? "A " : "B ";
    if (refusal) {
      why += "padded: " + *refusal;
    } else {
      (operand == 'a' ? p.row_classes_a : p.row_classes_b) = true;
      pad = false;
      why += "in row classes";
    }
  }
  return why;
}

}  // namespace tilegrid::scheduler
