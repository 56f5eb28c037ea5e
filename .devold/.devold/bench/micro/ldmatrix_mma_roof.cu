// What the sm_80 kernel's main loop can reach on this GPU without global memory: 8 warps, 64x64 warp
// tiles of a 128x256x64 CTA tile, fragments double-buffered across k16 steps and read by ldmatrix from
// a 4-stage swizzled smem ring filled once with random bf16 (the tensor pipe's power draw depends on
// the data). Variants: with or without the per-K-tile __syncthreads, and the register-only loop with
// fragments that change every step. Compare with `tilegrid run --arch sm_80` at 4096^3 to see what
// the copies cost. Build: nvcc -O3 -arch=sm_90 -o ldmatrix_mma_roof ldmatrix_mma_roof.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, THREADS = 256;
constexpr int SMEM_BYTES = STAGES * (BM + BN) * BK * 2;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Row-major rows of BK = 64 bf16 (128 bytes); 16-byte chunks XOR-swizzled by the row, as the kernel's
// 128-byte atom does, so ldmatrix is conflict free.
__device__ __forceinline__ unsigned tile_offset(int row, int chunk) { return row * 128 + ((chunk ^ (row % 8)) * 16); }

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <bool Barrier>
__global__ void __launch_bounds__(THREADS, 1) smem_loop(const unsigned* __restrict__ random, float* out, int k_tiles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  for (int i = threadIdx.x; i < SMEM_BYTES / 4; i += THREADS)
    reinterpret_cast<unsigned*>(smem)[i] = random[(blockIdx.x * 977 + i) % (1 << 20)];
  __syncthreads();
  const unsigned base_a = smem_addr(smem), base_b = base_a + STAGES * BM * BK * 2;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm0 = (warp / 4) * 64, wn0 = (warp % 4) * 64;
  float acc[4][8][4] = {};
  unsigned fa[2][4][4], fb[2][8][2];
  auto load = [&](int stage, int kk, unsigned (&a)[4][4], unsigned (&b)[8][2]) {
    const unsigned sa = base_a + stage * BM * BK * 2, sb = base_b + stage * BN * BK * 2;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) ldsm_x4(a[mi], sa + tile_offset(wm0 + mi * 16 + lane % 16, kk / 8 + lane / 16));
#pragma unroll
    for (int nj = 0; nj < 4; ++nj) {
      unsigned r[4];
      ldsm_x4(r, sb + tile_offset(wn0 + nj * 16 + (lane / 16) * 8 + lane % 8, kk / 8 + (lane / 8) % 2));
      b[2 * nj][0] = r[0];
      b[2 * nj][1] = r[1];
      b[2 * nj + 1][0] = r[2];
      b[2 * nj + 1][1] = r[3];
    }
  };
  auto multiply = [&](const unsigned (&a)[4][4], const unsigned (&b)[8][2]) {
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
      for (int ni = 0; ni < 8; ++ni) mma(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
  };
  load(0, 0, fa[0], fb[0]);
#pragma unroll 1
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int stage = kt % STAGES;
#pragma unroll
    for (int step = 0; step < 4; ++step) {
      const int cur = step % 2;
      if (step < 3) {
        load(stage, (step + 1) * 16, fa[cur ^ 1], fb[cur ^ 1]);
        multiply(fa[cur], fb[cur]);
      } else {
        if (Barrier) __syncthreads();
        load((kt + 1) % STAGES, 0, fa[0], fb[0]);
        multiply(fa[cur], fb[cur]);
      }
    }
  }
  float s = 0;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni) s += acc[mi][ni][0] + acc[mi][ni][1] + acc[mi][ni][2] + acc[mi][ni][3];
  if (s == 1.2345f) out[0] = s;
}

// Register-resident fragments that differ every k16 step (eight sets rotate), random bits.
__global__ void __launch_bounds__(THREADS, 1) register_loop(const unsigned* __restrict__ random, float* out, int k_tiles) {
  unsigned a[8][4], b[8][2];
  for (int s = 0; s < 8; ++s) {
    for (int i = 0; i < 4; ++i) a[s][i] = random[(threadIdx.x * 67 + s * 13 + i) % (1 << 20)];
    for (int i = 0; i < 2; ++i) b[s][i] = random[(threadIdx.x * 89 + s * 7 + i + 5000) % (1 << 20)];
  }
  float acc[32][4] = {};
#pragma unroll 1
  for (int kt = 0; kt < k_tiles; ++kt)
#pragma unroll
    for (int step = 0; step < 4; ++step)
#pragma unroll
      for (int j = 0; j < 32; ++j) mma(acc[j], a[(step * 2 + j) % 8], b[(step + j) % 8][0], b[(step + j) % 8][1]);
  float s = 0;
  for (int j = 0; j < 32; ++j) s += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
  if (s == 1.2345f) out[0] = s;
}

int main(int argc, char** argv) {
  const int k_tiles = argc > 1 ? atoi(argv[1]) : 4096;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned* random;
  float* out;
  cudaMalloc(&random, 4 << 20);
  cudaMalloc(&out, 4);
  unsigned* host = static_cast<unsigned*>(malloc(4 << 20));
  unsigned x = 12345;
  for (int i = 0; i < (1 << 20); ++i) {
    x = x * 1664525u + 1013904223u;
    // Two bf16 in [-1, 1): sign, exponent near 127, random mantissa.
    const unsigned lo = ((x >> 16) & 0x807f) | 0x3f00, hi = ((x & 0x807f) | 0x3f00);
    host[i] = lo | (hi << 16);
  }
  cudaMemcpy(random, host, 4 << 20, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(smem_loop<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  cudaFuncSetAttribute(smem_loop<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const double flops = 2.0 * BM * BN * BK * double(k_tiles) * sms;
  for (int round = 0; round < 3; ++round) {
    for (int variant = 0; variant < 3; ++variant) {
      auto launch = [&] {
        if (variant == 0) smem_loop<true><<<sms, THREADS, SMEM_BYTES>>>(random, out, k_tiles);
        if (variant == 1) smem_loop<false><<<sms, THREADS, SMEM_BYTES>>>(random, out, k_tiles);
        if (variant == 2) register_loop<<<sms, THREADS>>>(random, out, k_tiles);
      };
      launch();
      cudaEventRecord(start);
      launch();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      const char* names[] = {"ldmatrix+mma, barrier per K tile", "ldmatrix+mma, no barrier", "registers, random fragments"};
      if (cudaGetLastError() != cudaSuccess) return printf("%s: launch failed\n", names[variant]), 1;
      printf("round %d  %-34s %7.1f TFLOP/s  (%.3f ms)\n", round, names[variant], flops / (ms * 1e-3) / 1e12, ms);
    }
  }
  return 0;
}
