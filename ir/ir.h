#pragma once
// Everything in the IterDomain IR.
#include "ir/error.h"
#include "ir/indexer.h"
#include "ir/iter_domain.h"
#include "ir/merge.h"
#include "ir/split.h"
#include "ir/swizzle.h"
#include "ir/swizzle2d.h"
#include "ir/swizzle_merge.h"
#include "ir/tensor_domain.h"
#include "ir/transform.h"
#include "ir/transform_graph.h"
#include "ir/val.h"
