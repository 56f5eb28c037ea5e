// Which global-address offsets ptxas folds into LDGSTS as immediates: eight 16-byte cp.async per
// thread, OFF elements apart. Build with -DOFF=<elements> -cubin and read the SASS (cuobjdump -sass);
// bench/micro/sm80_roofs.sh does it for a few offsets. On CUDA 13.0 (sm_90) offsets up to about 2 KB fold
// ([R.64+0x400]); 8 KB and more take an address register pair per copy.
#include <cuda_bf16.h>
extern "C" __global__ void k(const __nv_bfloat16* __restrict__ A, int kt_count) {
  extern __shared__ __align__(128) unsigned char sm[];
  unsigned s = (unsigned)__cvta_generic_to_shared(sm) + threadIdx.x * 16;
  const __nv_bfloat16* p = A + threadIdx.x * 8;
  for (int kt = 0; kt < kt_count; ++kt) {
#pragma unroll
    for (int it = 0; it < 8; ++it)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s + it * 4096), "l"(p + kt * 64 + it * OFF) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
}
