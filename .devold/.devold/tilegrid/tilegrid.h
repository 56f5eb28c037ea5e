#pragma once
// The tilegrid library: the IterDomain IR, the scheduler, the code generator, and the runtime's
// Gemm and matmul. Link tilegrid::tilegrid (find_package(tilegrid)). Needs neither the CUDA headers
// nor Boost. The kernel cache, the compiler and the tuning store have headers of their own
// (<tilegrid/runtime/kernel_cache.h>, <tilegrid/runtime/compiler.h>, <tilegrid/runtime/tuning_store.h>).
#include "tilegrid/codegen/cuda_printer.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/ir/ir.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/errors.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/schedule.h"
