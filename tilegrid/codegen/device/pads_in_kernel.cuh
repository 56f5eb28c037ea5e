// tilegrid device helpers: padded copies made inside an sm_90 GEMM (PADS_IN_KERNEL). TMA reads only
// rows that start on 16-byte boundaries, so an operand whose rows do not is read through a copy
// with padded rows (tilegrid/scheduler/operand_padding.h). Here the GEMM makes that copy itself, so
// that the copy's reads and writes overlap the math instead of preceding it: the producer
// warpgroup's spare warps of every CTA copy the blocks of both operands in the order the main loops
// need them, K block by K block (every wave walks K from its start), each warp every W-th block of
// the launch's W copy warps, prefetching its next block into L2 while it copies one. Each K block
// has a count in the workspace's pad area of the blocks copied; the TMA thread waits for the counts
// of the K blocks a K tile spans, and only until they are ahead. The copy warps wait for nothing, so
// every wait ends (all CTAs of a persistent launch are resident). The last warp of the launch to
// finish with the counts clears them for the next launch, as the workspace's contract for its
// zeroed area says.
#pragma once

// The copies' sources and blocks (tg_pad_source, tg_pad_sources) are problem.cuh's, in the kernel's
// argument. A block spans tg_config::PAD_BLOCK_K elements of K.

// The stored rows [r0, r1) and row bytes [b0, b1) of block `j`'s share of operand `o`: false where
// the block is the other operand's.
__device__ __forceinline__ bool tg_pad_block_of(const tg_pad_sources& pads, int j, int o, int elem_bytes, int& batch,
                                                int& r0, int& r1, int& b0, int& b1) {
  const tg_pad_source& s = pads.operand[o];
  const int kb = j / pads.per_k_block, g = j % pads.per_k_block;
  const bool second = pads.operand[1].src != nullptr && g >= pads.operand[1].first;
  if (s.src == nullptr || second != (o == 1)) return false;
  const int i = g - s.first;
  batch = i / s.across_blocks;
  const int across = i % s.across_blocks;
  if (s.k_major) {
    r0 = across * s.across, r1 = min(r0 + s.across, s.rows_per_batch);
    b0 = kb * tg_config::PAD_BLOCK_K * elem_bytes, b1 = min(b0 + tg_config::PAD_BLOCK_K * elem_bytes, s.row_bytes);
  } else {
    r0 = kb * tg_config::PAD_BLOCK_K, r1 = min(r0 + tg_config::PAD_BLOCK_K, s.rows_per_batch);
    b0 = across * s.across, b1 = min(b0 + s.across, s.row_bytes);
  }
  return true;
}

// The TMA thread, before loading K tile kt (BK deep): waits until every block of the K blocks it
// spans is copied, and remembers in `ready` the K blocks known copied (they only complete), so that
// once the copies are ahead it reads no counter at all. Then it orders the copies' generic-proxy
// writes before its async-proxy (TMA) reads.
template <int BK>
__device__ __forceinline__ void tg_pad_wait_k_tile(const tg_pad_sources& pads, const unsigned* counts, int kt, int& ready) {
  const int last = min(pads.k_blocks, ceilDiv((kt + 1) * BK, tg_config::PAD_BLOCK_K)) - 1;
  if (last <= ready) return;
#pragma unroll 1
  for (int kb = ready + 1; kb <= last; ++kb) {
    unsigned copied;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(copied) : "l"(counts + kb) : "memory");
    } while (copied < static_cast<unsigned>(pads.per_k_block));
  }
  ready = last;
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// 64 bytes of one row: from `at` in the caller's operand to the 16-byte aligned `out`. Five aligned
// 16-byte loads cover any start; each output word is funnel-shifted from two of their words. A piece
// whose loads would leave the operand's span is read byte by byte.
__device__ __forceinline__ void tg_pad_copy_piece(const tg_pad_source& s, long long at, unsigned char* out, int bytes) {
  const unsigned long long begin = reinterpret_cast<unsigned long long>(s.src);
  const unsigned long long p = begin + static_cast<unsigned long long>(at), base = p & ~15ull;
  unsigned w[20];
  if (base + 80 <= begin + static_cast<unsigned long long>(s.src_bytes)) {
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(base) + i);
      w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
    }
    const unsigned o = static_cast<unsigned>(p & 15), q = o >> 2, shift = (o & 3) * 8;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      unsigned r[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int i = 4 * c + k;
        const unsigned lo = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
        const unsigned hi = q == 0 ? w[i + 1] : q == 1 ? w[i + 2] : q == 2 ? w[i + 3] : w[i + 4];
        r[k] = __funnelshift_r(lo, hi, shift);
      }
      if (16 * c < bytes) *reinterpret_cast<uint4*>(out + 16 * c) = make_uint4(r[0], r[1], r[2], r[3]);
    }
  } else {
#pragma unroll 1
    for (int c = 0; c < bytes; c += 4) {
      unsigned word = 0;
      for (int b = 0; b < 4; ++b) {
        if (at + c + b < s.src_bytes) word |= static_cast<unsigned>(s.src[at + c + b]) << (8 * b);
      }
      *reinterpret_cast<unsigned*>(out + c) = word;
    }
  }
}

// Asks L2 for the caller's bytes of block rows [r0, r1), bytes [b0, b1) (16-byte aligned spans, as
// bulk prefetches take them), so that the block's copy reads from L2.
__device__ __forceinline__ void tg_pad_prefetch(const tg_pad_source& s, int batch, int r0, int r1, int b0, int b1, int lane) {
  const unsigned long long end = (reinterpret_cast<unsigned long long>(s.src) + s.src_bytes + 15) & ~15ull;
#pragma unroll 1
  for (int r = r0 + lane; r < r1; r += 32) {
    const unsigned long long at = reinterpret_cast<unsigned long long>(s.src) + batch * s.src_batch_pitch + r * s.src_pitch;
    const unsigned long long first = (at + b0) & ~15ull, last = min((at + b1 + 15) & ~15ull, end);
    if (last > first) {
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(first), "r"(static_cast<unsigned>(last - first))
                   : "memory");
    }
  }
}

// One warp copies rows [r0, r1), bytes [b0, b1) of batch entry `batch`: each lane 64-byte pieces. A
// call, not inlined: the copy needs most of the producer's few registers.
__device__ __noinline__ void tg_pad_copy_block(const tg_pad_source& s, int batch, int r0, int r1, int b0, int b1, int lane) {
  const int pieces = (b1 - b0 + 63) / 64;
#pragma unroll 1
  for (int i = lane; i < (r1 - r0) * pieces; i += 32) {
    const int r = r0 + i / pieces, b = b0 + (i % pieces) * 64;
    const long long at = batch * s.src_batch_pitch + r * s.src_pitch + b;
    unsigned char* out = s.dst + (static_cast<long long>(batch) * s.rows_per_batch + r) * s.dst_pitch + b;
    tg_pad_copy_piece(s, at, out, min(64, b1 - b));
  }
}

// Copy warp `warp` of `warps` in the launch: copies blocks warp, warp + warps, ... in order, each
// after prefetching the next, and counts each into its K block's count once its writes are ordered
// for the async proxy (the TMA loads that read them) and released at GPU scope.
template <int ElemBytes>
__device__ __forceinline__ void tg_pad_copy_blocks(const tg_pad_sources& pads, unsigned* counts, int warp, int warps,
                                                   int lane) {
  const int blocks = pads.k_blocks * pads.per_k_block;
  const auto visit = [&](int j, bool copy) TG_INLINE {
#pragma unroll
    for (int o = 0; o < 2; ++o) {
      int batch, r0, r1, b0, b1;
      if (!tg_pad_block_of(pads, j, o, ElemBytes, batch, r0, r1, b0, b1)) continue;
      if (copy) {
        tg_pad_copy_block(pads.operand[o], batch, r0, r1, b0, b1, lane);
      } else {
        tg_pad_prefetch(pads.operand[o], batch, r0, r1, b0, b1, lane);
      }
    }
  };
  if (warp < blocks) visit(warp, false);
#pragma unroll 1
  for (int j = warp; j < blocks; j += warps) {
    if (j + warps < blocks) visit(j + warps, false);
    visit(j, true);
    asm volatile("fence.proxy.async.global;" ::: "memory");
    __syncwarp();
    if (lane == 0) {
      asm volatile("fence.acq_rel.gpu;\nred.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(counts + j / pads.per_k_block)
                   : "memory");
    }
  }
}

// Each warp that used the counts counts itself out once it is done with them (in `done`); the
// launch's last clears them and `done` for the next launch.
__device__ __forceinline__ void tg_pad_counts_done(const tg_pad_sources& pads, unsigned* done, unsigned* counts,
                                                   unsigned warps, int lane) {
  __syncwarp();
  unsigned seen = 0;
  if (lane == 0) asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(seen) : "l"(done) : "memory");
  if (__shfl_sync(0xffffffffu, seen, 0) != warps - 1) return;
  __syncwarp();
#pragma unroll 1
  for (int i = lane; i < pads.k_blocks; i += 32) counts[i] = 0;
  if (lane == 0) *done = 0;
}
