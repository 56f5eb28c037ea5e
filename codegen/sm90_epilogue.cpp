#include "codegen/sm90_epilogue.h"

#include <fmt/format.h>

#include "codegen/cuda_dtype.h"
#include "codegen/emit_common.h"
#include "ir/error.h"

namespace tilegrid::codegen {
namespace {

using scheduler::DType;

// stmatrix stores four 8x8 blocks of 16-bit elements a warp instruction, 8 contiguous elements per
// lane address. It applies when every 8-element chunk along the slab's contiguous mode (n, or m when
// stored transposed) lies contiguous and 16-byte aligned in every buffer of the scheduled slab, checked
// element by element on the IR, and the x4 blocks (16 columns at a time) tile the slab.
bool stmatrixFits(const ir::TensorDomain& slab, DType out, bool transposed) {
  const SmemOffsets offset(slab);
  if (scheduler::bytes(out) != 2 || offset.cols() % 16 != 0 || offset.rows() % 16 != 0) return false;
  for (int64_t b = 0; b < offset.stages(); ++b) {
    for (int64_t m = 0; m < offset.rows(); m += transposed ? 8 : 1) {
      for (int64_t n = 0; n < offset.cols(); n += transposed ? 1 : 8) {
        const int64_t base = offset(m, n, b);
        if (base % 8 != 0) return false;
        for (int64_t e = 1; e < 8; ++e) {
          if (offset(transposed ? m + e : m, transposed ? n : n + e, b) != base + e) return false;
        }
      }
    }
  }
  return true;
}

// How the fill reaches 64-row block mb of a warpgroup's rows: through the row (`rows`, added to the
// warpgroup's first), or, where every element of block mb sits a constant step past block 0's in every
// buffer (checked on the IR), by adding that step to block 0's offset (`offset`), which ptxas folds
// into the store: 256x152 computing C^T with fp32 out kept block 0's and 1's addresses apart and
// spilled. One block needs neither.
struct BlockAddressing {
  std::string rows, offset;
};

BlockAddressing blockAddressing(const ir::TensorDomain& slab, int64_t warpgroup_rows) {
  if (warpgroup_rows == 64) return {};
  const SmemOffsets offset(slab);
  const int64_t step = offset(64, 0, 0) - offset(0, 0, 0);
  for (int64_t b = 0; b < offset.stages(); ++b) {
    for (int64_t m = 0; m < offset.rows(); ++m) {
      const int64_t block = m % warpgroup_rows / 64;
      for (int64_t n = 0; n < offset.cols(); ++n) {
        if (offset(m, n, b) != offset(m - 64 * block, n, b) + block * step) return {"mb * 64 + ", ""};
      }
    }
  }
  return {"", fmt::format(" + mb * {}", step)};
}

// Code that writes 64-row block mb of the warpgroup's accumulators into the slab. wgmma's accumulator
// layout: in every 8-column block j, thread (warp, lane) holds rows warp * 16 + lane / 4 (+ 8) of the
// block and columns 8 j + 2 (lane % 4) (+ 1), at acc[mb][4 j + 2 half + e].
std::string blockFill(const scheduler::MatmulSchedule& s, int64_t slab_n) {
  const DType out = s.problem.out_dtype;
  const bool transposed = s.params.swap_ab;
  const BlockAddressing block = blockAddressing(s.smem_epilogue, s.params.warp_tile.m);
  const char* pair = cudaDType(out).pair_type;
  const std::string pack = std::string(cudaDType(out).pair_from_floats) + "(v0, v1)";
  if (stmatrixFits(s.smem_epilogue, out, transposed)) {
    // A quarter of the store instructions of element pairs. Lane l addresses row l % 8 of block l / 8
    // as stored: of the warp's rows when straight, of the block's columns when transposed.
    const std::string address =
        transposed ? fmt::format("const int m = consumer * WM + {0}warp * 16 + (lane / 8) % 2 * 8, n = (j + lane / 16) * 8 + lane % 8;\n"
                                 "          tg_stmatrix_x4_trans(smem_c + tg_smem_epilogue(m, n, buffer){1}, r);\n",
                                 block.rows, block.offset)
                   : fmt::format("const int m = consumer * WM + {0}warp * 16 + lane % 8 + (lane / 8) % 2 * 8, n = (j + lane / 16) * 8;\n"
                                 "          tg_stmatrix_x4(smem_c + tg_smem_epilogue(m, n, buffer){1}, r);\n",
                                 block.rows, block.offset);
    return fmt::format(
                      "#pragma unroll\n"
                      "        for (int j = 0; j < {0} / 8; j += 2) {{\n"
                      "          // Blocks (rows 0-7, columns j), (rows 8-15, j), (0-7, j + 1), (8-15, j + 1) of the warp's rows.\n"
                      "          tg_u32 r[4];\n"
                      "#pragma unroll\n"
                      "          for (int b = 0; b < 4; ++b) {{\n"
                      "            const int a = 4 * (col0 / 8 + j + b / 2) + 2 * (b % 2);\n"
                      "            const float v0 = acc[mb][a], v1 = acc[mb][a + 1];\n"
                      "            const {1} p = {2};\n"
                      "            r[b] = *reinterpret_cast<const tg_u32*>(&p);\n"
                      "          }}\n"
                      "          {3}"
                      "        }}\n",
                      slab_n, pair, pack, address);
  }
  if (transposed) {
    // A thread's pair of columns is not contiguous in the transposed slab: one element at a time.
    return fmt::format(
                      "#pragma unroll\n"
                      "        for (int j = 0; j < {0} / 8; ++j) {{\n"
                      "#pragma unroll\n"
                      "          for (int i = 0; i < 4; ++i) {{\n"
                      "            const int m = consumer * WM + {1}warp * 16 + lane / 4 + i / 2 * 8, n = j * 8 + (lane % 4) * 2 + i % 2;\n"
                      "            smem_c[tg_smem_epilogue(m, n, buffer){2}] = tg_convert(acc[mb][4 * (col0 / 8 + j) + i]);\n"
                      "          }}\n"
                      "        }}\n",
                      slab_n, block.rows, block.offset);
  }
  return fmt::format(
                    "#pragma unroll\n"
                    "        for (int j = 0; j < {0} / 8; ++j) {{\n"
                    "#pragma unroll\n"
                    "          for (int half = 0; half < 2; ++half) {{\n"
                    "            const int m = consumer * WM + {3}warp * 16 + lane / 4 + half * 8, n = j * 8 + (lane % 4) * 2;\n"
                    "            const float v0 = acc[mb][4 * (col0 / 8 + j) + 2 * half];\n"
                    "            const float v1 = acc[mb][4 * (col0 / 8 + j) + 2 * half + 1];\n"
                    "            *reinterpret_cast<{1}*>(smem_c + tg_smem_epilogue(m, n, buffer){4}) = {2};\n"
                    "          }}\n"
                    "        }}\n",
                    slab_n, pair, pack, block.rows, block.offset);
}

// Code that writes the slab's accumulators to shared memory buffer `buffer`, a 64-row block at a time.
std::string slabFill(const scheduler::MatmulSchedule& s, int64_t slab_n) {
  return "        const int buffer = epilogue_slabs % 2;\n"
         "#pragma unroll\n"
         "        for (int mb = 0; mb < M_BLOCKS; ++mb) {\n" +
         blockFill(s, slab_n) + "        }\n";
}

// The TMA stores of a filled slab, issued by the warpgroup's first thread: one box of the warpgroup's
// rows straight; stored transposed, one box per atom width of those rows (C's columns).
std::string tmaStores(const scheduler::MatmulSchedule& s, bool batched) {
  const char* store = batched ? "tg_tma_store_3d" : "tg_tma_store_2d";
  const char* batch = batched ? ", batch" : "";
  if (!s.params.swap_ab) {
    return fmt::format(
        "          {}(&tmap_c, tile_n * BN + col0, tile_m * BM + consumer * WM{}, smem_c + tg_smem_epilogue(consumer * WM, 0, buffer));\n",
        store, batch);
  }
  const int64_t width = s.params.smem_epilogue.contiguousElems();
  TG_INTERNAL_CHECK(s.params.warp_tile.m % width == 0)
      << "transposed epilogue atom " << s.params.smem_epilogue.toString() << " does not tile a warpgroup's rows";
  return fmt::format(
      "#pragma unroll\n"
      "          for (int box = 0; box < WM / {0}; ++box) {{\n"
      "            const int m = consumer * WM + box * {0};\n"
      "            {1}(&tmap_c, tile_m * BM + m, tile_n * BN + col0{2}, smem_c + tg_smem_epilogue(m, 0, buffer));\n"
      "          }}\n",
      width, store, batch);
}

// Stores of a filled slab from shared memory when TMA cannot store C: a warp per C row, consecutive
// elements from consecutive lanes. C's rows are the slab's rows straight, its columns transposed.
// Where the IR's algebra shows C's offset stepping by 1 along a row (ir::affineIn on gmem_c), a warp
// computes the row's start once and indexes it by the column (the full offset is a 64-bit product
// with a leading dimension read at launch).
std::string directStores(const scheduler::MatmulSchedule& s, int64_t slab_n) {
  const bool straight = !s.params.swap_ab;
  // Straight, a warp's lanes walk n (axis 1 of gmem_c) along a row m; transposed, they walk m.
  const bool row_start = constantStep(s.gmem_c, straight ? 1 : 0) == 1;
  // The batch entry's offset is added where it is used: a pointer to it kept across the slabs cost
  // the consumers registers.
  const std::string batch =
      "static_cast<long long>(batch) * " + launchValue(s, "batch_stride_c", s.operandLayout('c').batch_stride);
  const std::string row = straight ? "tg_gmem_c(prob, m, 0)" : "tg_gmem_c(prob, 0, n)";
  const std::string setup = row_start ? "          tg_out_t* c_row = C + " + batch + " + " + row + ";\n" : "";
  const std::string at = row_start ? (straight ? "c_row[n]" : "c_row[m]") : "C[" + batch + " + tg_gmem_c(prob, m, n)]";
  if (straight) {
    return fmt::format(
        "#pragma unroll 4\n"
        "        for (int r = warp; r < WM; r += 4) {{\n"
        "          const int m = tile_m * BM + consumer * WM + r;\n"
        "          if (m >= M) break;\n"
        "{1}"
        "#pragma unroll\n"
        "          for (int e = lane; e < {0}; e += 32) {{\n"
        "            const int n = tile_n * BN + col0 + e;\n"
        "            if (n < N) {2} = smem_c[tg_smem_epilogue(consumer * WM + r, e, buffer)];\n"
        "          }}\n"
        "        }}\n",
        slab_n, setup, at);
  }
  return fmt::format(
      "#pragma unroll 4\n"
      "        for (int r = warp; r < {0}; r += 4) {{\n"
      "          const int n = tile_n * BN + col0 + r;\n"
      "          if (n >= N) break;\n"
      "{1}"
      "#pragma unroll\n"
      "          for (int e = lane; e < WM; e += 32) {{\n"
      "            const int m = tile_m * BM + consumer * WM + e;\n"
      "            if (m < M) {2} = smem_c[tg_smem_epilogue(consumer * WM + e, r, buffer)];\n"
      "          }}\n"
      "        }}\n",
      slab_n, setup, at);
}

}  // namespace

// Slabs clip at M and N and drain while the next tile's main loop runs. A tile width that is not a
// whole number of slabs ends on a slab overlapping the one before: its columns are stored twice with
// the same values, and every slab keeps the widest TMA box.
std::string sm90EpilogueCode(const scheduler::MatmulSchedule& s, bool tma_store, bool batched) {
  const int64_t slab_n = s.params.epilogue_tile.n;
  const int64_t width = s.params.warp_tile.n, slabs = scheduler::ceilDiv(width, slab_n);
  const bool overlap = width % slab_n != 0;
  const std::string col0 = overlap ? fmt::format("slab < {} ? slab * {} : {}", slabs - 1, slab_n, width - slab_n)
                                   : fmt::format("slab * {}", slab_n);
  std::string note = s.params.swap_ab ? " Each slab is stored transposed: the kernel computes C^T." : "";
  if (overlap) note += fmt::format(" The last slab starts at column {}, overlapping the one before.", width - slab_n);
  const std::string fill = slabFill(s, slab_n);
  if (tma_store) {
    return fmt::format(
        "// Epilogue: {0}-column slabs through shared memory and TMA stores (clipped at M and N).{1}\n"
        "#pragma unroll\n"
        "      for (int slab = 0; slab < {2}; ++slab, ++epilogue_slabs) {{\n"
        "        const int col0 = {3};\n"
        "        // The store issued from this buffer two slabs ago must have read it.\n"
        "        if (t == 0) tg_tma_store_wait_read<1>();\n"
        "        tg_named_barrier_sync(1 + consumer, 128);\n"
        "{4}"
        "        tg_fence_proxy_async();\n"
        "        tg_named_barrier_sync(1 + consumer, 128);\n"
        "        if (t == 0) {{\n"
        "{5}"
        "          tg_tma_store_commit();\n"
        "        }}\n"
        "      }}",
        slab_n, note, slabs, col0, fill, tmaStores(s, batched));
  }
  return fmt::format(
      "// Epilogue: {0}-column slabs through shared memory, stored back a C row per warp (C's rows are\n"
      "      // not 16-byte aligned for TMA).{1}\n"
      "#pragma unroll\n"
      "      for (int slab = 0; slab < {2}; ++slab, ++epilogue_slabs) {{\n"
      "        const int col0 = {3};\n"
      "{4}"
      "        tg_named_barrier_sync(1 + consumer, 128);\n"
      "{5}"
      "        // The buffer is written again two slabs on; every lane must have read it by then.\n"
      "        tg_named_barrier_sync(1 + consumer, 128);\n"
      "      }}",
      slab_n, note, slabs, col0, fill, directStores(s, slab_n));
}

}  // namespace tilegrid::codegen
