#pragma once
// The whole tilegrid library: the IterDomain IR, the scheduler, the code generator and the runtime.
#include "codegen/cuda_printer.h"
#include "ir/ir.h"
#include "runtime/cuda_toolkit.h"
#include "scheduler/grid_traversal.h"
