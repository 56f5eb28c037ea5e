// tilegrid device helpers: how TMA boxes cover an operand's stage tile. Host code includes this file
// too: the emitter checks every element the boxes land (tilegrid/codegen/sm90_emitter.cpp) with the function
// the kernel loads them by.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TG_BOX_FN __host__ __device__ inline constexpr
#else
#define TG_BOX_FN inline constexpr
#endif

// The tile's rows (along the mode the box does not span one swizzle row of) are cut into `parts`
// boxes of `box_rows` rows, one per CTA sharing the tile. Where the rows do not split evenly, the last
// box overlaps the one before: its rows land twice, with the same bytes.
TG_BOX_FN int tg_box_first_row(int part, int box_rows, int tile_rows) {
  return part * box_rows < tile_rows - box_rows ? part * box_rows : tile_rows - box_rows;
}

#undef TG_BOX_FN
