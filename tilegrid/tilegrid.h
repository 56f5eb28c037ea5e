#pragma once
// The tilegrid library: the IterDomain IR, the scheduler, the code generator, and the runtime's
// Gemm and matmul (compiled kernels, their cache). Link tilegrid::tilegrid (find_package(tilegrid)).
// Needs neither the CUDA headers nor Boost.
#include "tilegrid/codegen/cuda_printer.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/ir/ir.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/cuda_toolkit.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/tuning_store.h"
#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/schedule.h"
