// Where a TMA box may start along the contiguous dimension: one 8-row box of a bf16 tensor map
// (128-byte swizzle, a 16-byte aligned row stride) loaded from a given base offset at a given first
// coordinate, reporting whether the load completes or faults. The tensor map's base need only be
// 16-byte aligned, but the box's first element must also lie on a 16-byte boundary: a first
// coordinate of 1 or 3 elements is an illegal instruction (H100, CUDA 13.0), whatever the base and
// extent. So TMA cannot read a row that starts off 16 bytes from any map, and tilegrid's sm_90
// kernels read such operands through padded copies (tilegrid/scheduler/operand_padding.h).
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o tma_box_start tma_box_start.cu -lcuda
// Usage: tma_box_start BASE_OFFSET_BYTES FIRST_COORDINATE    (one case a process: a fault ends the context)
//   for c in "0 0" "16 0" "2000 0" "0 1" "0 8" "2000 1" "512 3"; do ./tma_box_start $c; done
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void loadOneBox(const __grid_constant__ CUtensorMap map, int first, float* sum) {
  __shared__ __align__(1024) unsigned short tile[8 * 64];
  __shared__ __align__(8) unsigned long long barrier;
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x != 0) return;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  asm volatile("fence.mbarrier_init.release.cluster;");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(8 * 64 * 2));
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(&map), "r"(first), "r"(0), "r"(bar)
      : "memory");
  asm volatile("{\n.reg .pred done;\nwait: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n@!done bra wait;\n}" ::"r"(bar));
  float s = 0;
  for (int i = 0; i < 8 * 64; ++i) s += tile[i];
  *sum = s;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s BASE_OFFSET_BYTES FIRST_COORDINATE\n", argv[0]);
    return 2;
  }
  const long offset = std::atol(argv[1]);
  const int first = std::atoi(argv[2]);
  if (offset < 0 || offset % 16 != 0 || first < 0) {
    std::fprintf(stderr, "the base offset must be a non-negative multiple of 16 (TMA's rule), the coordinate non-negative\n");
    return 2;
  }
  cuInit(0);
  CUdevice device;
  cuDeviceGet(&device, 0);
  CUcontext context;
  cuDevicePrimaryCtxRetain(&context, device);
  cuCtxSetCurrent(context);
  CUdeviceptr buffer, sum;
  cuMemAlloc(&buffer, 1 << 20);
  cuMemsetD8(buffer, 1, 1 << 20);
  cuMemAlloc(&sum, sizeof(float));
  // 1001 bf16 a row, rows 16016 bytes apart (8 rows of 1001 elements: one class of rows 8 apart).
  CUtensorMap map;
  cuuint64_t dims[2] = {1001, 32}, strides[1] = {16016};
  cuuint32_t box[2] = {64, 8}, element_strides[2] = {1, 1};
  const CUresult encoded = cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, reinterpret_cast<void*>(buffer + offset), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (encoded != CUDA_SUCCESS) {
    std::printf("base +%ld, first %d: the driver refuses the map (%d)\n", offset, first, static_cast<int>(encoded));
    return 1;
  }
  loadOneBox<<<1, 32>>>(map, first, reinterpret_cast<float*>(sum));
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("base +%ld bytes, first coordinate %d (%d bytes): %s\n", offset, first, first * 2,
              status == cudaSuccess ? "loaded" : cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
