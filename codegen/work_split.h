#pragma once
// The persistent kernels' work split (device/work_split.cuh) compiled for the host, so that tests
// and `tilegrid plan` use the kernel's own arithmetic rather than a copy of it.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#error "codegen/work_split.h is the host view; device code includes device/work_split.cuh directly"
#endif
#define __host__
#define __device__
#include "codegen/device/work_split.cuh"
#undef __host__
#undef __device__
