#pragma once
// The whole tilegrid library: the IterDomain IR, the scheduler, the code generator and the runtime.
// Link tilegrid::tilegrid (find_package(tilegrid)).
#include "codegen/cuda_printer.h"
#include "codegen/emit.h"
#include "ir/ir.h"
#include "runtime/cuda_toolkit.h"
#include "runtime/device.h"
#include "runtime/grid_sweep.h"
#include "runtime/kernel_cache.h"
#include "runtime/launcher.h"
#include "runtime/matmul_run.h"
#include "runtime/tuning_store.h"
#include "scheduler/grid_traversal.h"
#include "scheduler/schedule.h"
