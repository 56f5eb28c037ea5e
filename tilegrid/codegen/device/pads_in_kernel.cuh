// tilegrid device helpers: padded copies made inside an sm_90 GEMM (PADS_IN_KERNEL). TMA reads only
// rows that start on 16-byte boundaries, so an operand whose rows do not is read through a copy
// with padded rows (tilegrid/scheduler/operand_padding.h). Here the GEMM makes that copy itself, a
// block at a time, in the order its own tiles need the blocks: the producer warpgroup's spare warps
// walk the CTA's work units as its TMA thread does, claim each block the unit's K tile needs and
// copy the claimed ones, so the copy runs beside the main loop instead of before the launch.
//
// A block is `block_rows` stored rows by `block_bytes` of each row, with a flag in the workspace's
// pad flag area: 0 free, 1 claimed (a warp is copying it), 2 copied. The TMA thread waits for every
// block its box covers to read 2, then loads the padded copy. Whichever CTA claims a block first
// copies it at once, and a CTA's own warps walk every block its TMA thread waits for, so a wait
// always ends, whether or not the CTAs that share a block are resident together. The last warp of
// the launch to finish with the flags clears them (and the count), so the next launch finds zeros,
// as the workspace's contract for its zeroed area says.
#pragma once

// The copies' sources and blocks (tg_pad_source) are problem.cuh's, in the kernel's argument.

// Calls f(flag) for each block of operand `s` that stored rows [r0, r1) and row bytes [b0, b1) of
// batch entry `batch` touch (clipped to the operand).
template <typename F>
__device__ __forceinline__ void tg_for_pad_blocks(const tg_pad_source& s, int batch, int r0, int r1, long long b0,
                                                  long long b1, F&& f) {
  r1 = min(r1, s.rows_per_batch);
  b1 = min(b1, static_cast<long long>(s.row_bytes));
  if (r0 >= r1 || b0 >= b1) return;
  const int first_cb = static_cast<int>(b0 / s.block_bytes), last_cb = static_cast<int>((b1 - 1) / s.block_bytes);
#pragma unroll 1
  for (int rb = r0 / s.block_rows; rb <= (r1 - 1) / s.block_rows; ++rb) {
#pragma unroll 1
    for (int cb = first_cb; cb <= last_cb; ++cb) f(s.first_flag + (batch * s.row_blocks + rb) * s.col_blocks + cb, rb, cb);
  }
}

// The stored rows and row bytes of an operand's TMA box for tile rows [t0, t0 + rows) and K tile kt
// (BK deep): a K-major operand stores the tile's rows, an MN-major one K's.
template <bool KMajor, int BK, int ElemBytes, typename F>
__device__ __forceinline__ void tg_for_box_blocks(const tg_pad_source& s, int batch, int t0, int rows, int kt, F&& f) {
  if (KMajor) {
    tg_for_pad_blocks(s, batch, t0, t0 + rows, static_cast<long long>(kt) * BK * ElemBytes,
                      static_cast<long long>(kt + 1) * BK * ElemBytes, f);
  } else {
    tg_for_pad_blocks(s, batch, kt * BK, (kt + 1) * BK, static_cast<long long>(t0) * ElemBytes,
                      static_cast<long long>(t0 + rows) * ElemBytes, f);
  }
}

// The TMA thread: waits until the block of `flag` is copied, then orders the copy's generic-proxy
// writes before its own async-proxy (TMA) reads.
__device__ __forceinline__ void tg_pad_wait(const unsigned* flags, int flag) {
  unsigned state;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(state) : "l"(flags + flag) : "memory");
  } while (state != 2u);
}
__device__ __forceinline__ void tg_pad_reads_after_waits() { asm volatile("fence.proxy.async.global;" ::: "memory"); }

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

// One warp copies block (rb, cb) of batch entry `batch`: each lane 64-byte pieces of its rows. A call,
// not inlined: the copy needs most of the producer's few registers, and the walk that calls it
// keeps its own state in the stack frame for the call (a few words a block of kilobytes).
__device__ __noinline__ void tg_pad_copy_block(const tg_pad_source& s, int batch, int rb, int cb, int lane) {
  const int r0 = rb * s.block_rows, rows = min(s.block_rows, s.rows_per_batch - r0);
  const int b0 = cb * s.block_bytes, bytes = min(s.block_bytes, s.row_bytes - b0);
  const int pieces = (bytes + 63) / 64;
#pragma unroll 1
  for (int i = lane; i < rows * pieces; i += 32) {
    const int r = r0 + i / pieces, b = b0 + (i % pieces) * 64;
    const long long at = batch * s.src_batch_pitch + r * s.src_pitch + b;
    unsigned char* out = s.dst + (static_cast<long long>(batch) * s.rows_per_batch + r) * s.dst_pitch + b;
    tg_pad_copy_piece(s, at, out, min(64, b0 + bytes - b));
  }
}

// A copy warp: claims the block of `flag` (lane 0) and, if it did, copies it and marks it copied. The
// copy's writes are ordered for the async proxy (the TMA loads that read them) and released at GPU
// scope before the flag says 2.
__device__ __forceinline__ void tg_pad_claim_and_copy(const tg_pad_source& s, unsigned* flags, int flag, int batch,
                                                      int rb, int cb, int lane) {
  unsigned state = 0;
  if (lane == 0) {
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(state) : "l"(flags + flag) : "memory");
    if (state == 0) state = atomicCAS(flags + flag, 0u, 1u);
  }
  if (__shfl_sync(0xffffffffu, state, 0) != 0) return;
  tg_pad_copy_block(s, batch, rb, cb, lane);
  asm volatile("fence.proxy.async.global;" ::: "memory");
  __syncwarp();
  if (lane == 0) asm volatile("fence.acq_rel.gpu;\nst.relaxed.gpu.global.u32 [%0], 2;" ::"l"(flags + flag) : "memory");
}

// Each warp that used the flags counts itself out once it is done with them; the launch's last clears
// them and the count for the next launch. `flag_count` spans both operands' flags.
__device__ __forceinline__ void tg_pad_flags_done(unsigned* count, unsigned* flags, int flag_count, unsigned warps,
                                                  int lane) {
  __syncwarp();
  unsigned seen = 0;
  if (lane == 0) asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(seen) : "l"(count) : "memory");
  if (__shfl_sync(0xffffffffu, seen, 0) != warps - 1) return;
  __syncwarp();
#pragma unroll 1
  for (int i = lane; i < flag_count; i += 32) flags[i] = 0;
  if (lane == 0) *count = 0;
}
