// tilegrid device helpers: wgmma's shared-memory matrix descriptors. Descriptors are computed from
// shared-memory addresses at run time (NVRTC 13.0 was seen to crash on compile-time-constant ones).
// Host code includes this file too: tests/unit/wgmma_desc_test.cpp holds the stepping to the
// descriptor of the stepped address over every shared-memory address.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TG_DESC_FN __host__ __device__ __forceinline__
#else
#define TG_DESC_FN inline
#endif

// The 64-bit descriptor: start address, leading and stride byte offsets (each >> 4, 14 bits), base
// offset (bits 49-51, 0 for pattern-aligned tiles) and layout type (bits 62-63: 0 interleave, 1 128B,
// 2 64B, 3 32B).
TG_DESC_FN unsigned long long tg_wgmma_desc(unsigned smem_addr, unsigned lbo_bytes, unsigned sbo_bytes,
                                            unsigned layout_type) {
  unsigned long long desc = 0;
  desc |= static_cast<unsigned long long>((smem_addr & 0x3FFFF) >> 4);
  desc |= static_cast<unsigned long long>((lbo_bytes & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<unsigned long long>((sbo_bytes & 0x3FFFF) >> 4) << 32;
  desc |= static_cast<unsigned long long>(layout_type & 0x3) << 62;
  return desc;
}

// The descriptor whose start address lies `step` 16-byte units further on. The address sits in the
// low 14 bits and shared memory ends below 256 KiB, so the sum stays inside the field: a 32-bit add
// on the low word, where a 64-bit add of a signed step also costs a sign extension and a carry.
TG_DESC_FN unsigned long long tg_wgmma_desc_advance(unsigned long long desc, unsigned step) {
  const unsigned low = static_cast<unsigned>(desc) + step;
  return (desc & 0xFFFFFFFF00000000ull) | low;
}

#undef TG_DESC_FN
