// tilegrid device helpers: wgmma m64nNk16 (16-bit inputs) and m64nNk32 (8-bit inputs) for every N
// a schedule may pick (8 to 256 in steps of 8), as data: one line per shape. An instruction's
// accumulator registers are asm operands whose numbers are spelled in the PTX string, so each shape
// needs its own list; the lists are built from 4-register chunks by the preprocessor.
// tg_wgmma<N, TypeA, TypeB, TransA, TransB> picks the shape and the input types (TG_WGMMA_* below).
#pragma once

// Input types, as the kernel's configuration names them (WGMMA_TYPE_A, WGMMA_TYPE_B).
#define TG_WGMMA_F16 0
#define TG_WGMMA_BF16 1
#define TG_WGMMA_E4M3 2
#define TG_WGMMA_E5M2 3

template <int N>
struct tg_wgmma_shape;

// D (64 x N fp32; N / 2 registers a thread) += A * B from shared-memory descriptors; scale_d 0
// overwrites D. REGS lists %0 .. %(N/2 - 1) and ACC their operands; DA, DB and SCALE are the operand
// numbers of desc_a, desc_b and scale_d that follow them, TA and TB those of the trans bits (0
// K-major, 1 MN-major), which 16-bit inputs take and 8-bit ones, K-major only, do not.
#define TG_WGMMA_ASM16(N, TYPE, REGS, DA, DB, SCALE, TA, TB, ...)                                              \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #SCALE ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N      \
               "k16.f32." TYPE "." TYPE " {" REGS "}, %" #DA ", %" #DB ", p, 1, 1, %" #TA ", %" #TB ";\n}\n"   \
               : __VA_ARGS__                                                                                    \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define TG_WGMMA_ASM8(N, TYPES, REGS, DA, DB, SCALE, ...)                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #SCALE ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N      \
               "k32.f32." TYPES " {" REGS "}, %" #DA ", %" #DB ", p, 1, 1;\n}\n"                              \
               : __VA_ARGS__                                                                                    \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define TG_WGMMA_SHAPE(N, REGS, DA, DB, SCALE, TA, TB, ACC)                                                     \
  template <>                                                                                                   \
  struct tg_wgmma_shape<N> {                                                                                    \
    template <int TypeA, int TypeB, int TransA, int TransB>                                                     \
    static __device__ __forceinline__ void mma(float (&d)[N / 2], tg_u64 desc_a, tg_u64 desc_b, int scale_d) { \
      if constexpr (TypeA == TG_WGMMA_BF16) {                                                                   \
        TG_WGMMA_ASM16(N, "bf16", REGS, DA, DB, SCALE, TA, TB, ACC);                                            \
      } else if constexpr (TypeA == TG_WGMMA_F16) {                                                             \
        TG_WGMMA_ASM16(N, "f16", REGS, DA, DB, SCALE, TA, TB, ACC);                                             \
      } else if constexpr (TypeA == TG_WGMMA_E4M3 && TypeB == TG_WGMMA_E4M3) {                                  \
        TG_WGMMA_ASM8(N, "e4m3.e4m3", REGS, DA, DB, SCALE, ACC);                                                \
      } else if constexpr (TypeA == TG_WGMMA_E4M3) {                                                            \
        TG_WGMMA_ASM8(N, "e4m3.e5m2", REGS, DA, DB, SCALE, ACC);                                                \
      } else if constexpr (TypeB == TG_WGMMA_E4M3) {                                                            \
        TG_WGMMA_ASM8(N, "e5m2.e4m3", REGS, DA, DB, SCALE, ACC);                                                \
      } else {                                                                                                  \
        TG_WGMMA_ASM8(N, "e5m2.e5m2", REGS, DA, DB, SCALE, ACC);                                                \
      }                                                                                                         \
    }                                                                                                           \
  };
#define TG_WGMMA_QUAD(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])

#define TG_WGMMA_R0 "%0, %1, %2, %3"
#define TG_WGMMA_R1 "%4, %5, %6, %7"
#define TG_WGMMA_R2 "%8, %9, %10, %11"
#define TG_WGMMA_R3 "%12, %13, %14, %15"
#define TG_WGMMA_R4 "%16, %17, %18, %19"
#define TG_WGMMA_R5 "%20, %21, %22, %23"
#define TG_WGMMA_R6 "%24, %25, %26, %27"
#define TG_WGMMA_R7 "%28, %29, %30, %31"
#define TG_WGMMA_R8 "%32, %33, %34, %35"
#define TG_WGMMA_R9 "%36, %37, %38, %39"
#define TG_WGMMA_R10 "%40, %41, %42, %43"
#define TG_WGMMA_R11 "%44, %45, %46, %47"
#define TG_WGMMA_R12 "%48, %49, %50, %51"
#define TG_WGMMA_R13 "%52, %53, %54, %55"
#define TG_WGMMA_R14 "%56, %57, %58, %59"
#define TG_WGMMA_R15 "%60, %61, %62, %63"
#define TG_WGMMA_R16 "%64, %65, %66, %67"
#define TG_WGMMA_R17 "%68, %69, %70, %71"
#define TG_WGMMA_R18 "%72, %73, %74, %75"
#define TG_WGMMA_R19 "%76, %77, %78, %79"
#define TG_WGMMA_R20 "%80, %81, %82, %83"
#define TG_WGMMA_R21 "%84, %85, %86, %87"
#define TG_WGMMA_R22 "%88, %89, %90, %91"
#define TG_WGMMA_R23 "%92, %93, %94, %95"
#define TG_WGMMA_R24 "%96, %97, %98, %99"
#define TG_WGMMA_R25 "%100, %101, %102, %103"
#define TG_WGMMA_R26 "%104, %105, %106, %107"
#define TG_WGMMA_R27 "%108, %109, %110, %111"
#define TG_WGMMA_R28 "%112, %113, %114, %115"
#define TG_WGMMA_R29 "%116, %117, %118, %119"
#define TG_WGMMA_R30 "%120, %121, %122, %123"
#define TG_WGMMA_R31 "%124, %125, %126, %127"
#define TG_WGMMA_REGS1 TG_WGMMA_R0
#define TG_WGMMA_ACC1 TG_WGMMA_QUAD(0)
#define TG_WGMMA_REGS2 TG_WGMMA_REGS1 ", " TG_WGMMA_R1
#define TG_WGMMA_ACC2 TG_WGMMA_ACC1, TG_WGMMA_QUAD(4)
#define TG_WGMMA_REGS3 TG_WGMMA_REGS2 ", " TG_WGMMA_R2
#define TG_WGMMA_ACC3 TG_WGMMA_ACC2, TG_WGMMA_QUAD(8)
#define TG_WGMMA_REGS4 TG_WGMMA_REGS3 ", " TG_WGMMA_R3
#define TG_WGMMA_ACC4 TG_WGMMA_ACC3, TG_WGMMA_QUAD(12)
#define TG_WGMMA_REGS5 TG_WGMMA_REGS4 ", " TG_WGMMA_R4
#define TG_WGMMA_ACC5 TG_WGMMA_ACC4, TG_WGMMA_QUAD(16)
#define TG_WGMMA_REGS6 TG_WGMMA_REGS5 ", " TG_WGMMA_R5
#define TG_WGMMA_ACC6 TG_WGMMA_ACC5, TG_WGMMA_QUAD(20)
#define TG_WGMMA_REGS7 TG_WGMMA_REGS6 ", " TG_WGMMA_R6
#define TG_WGMMA_ACC7 TG_WGMMA_ACC6, TG_WGMMA_QUAD(24)
#define TG_WGMMA_REGS8 TG_WGMMA_REGS7 ", " TG_WGMMA_R7
#define TG_WGMMA_ACC8 TG_WGMMA_ACC7, TG_WGMMA_QUAD(28)
#define TG_WGMMA_REGS9 TG_WGMMA_REGS8 ", " TG_WGMMA_R8
#define TG_WGMMA_ACC9 TG_WGMMA_ACC8, TG_WGMMA_QUAD(32)
#define TG_WGMMA_REGS10 TG_WGMMA_REGS9 ", " TG_WGMMA_R9
#define TG_WGMMA_ACC10 TG_WGMMA_ACC9, TG_WGMMA_QUAD(36)
#define TG_WGMMA_REGS11 TG_WGMMA_REGS10 ", " TG_WGMMA_R10
#define TG_WGMMA_ACC11 TG_WGMMA_ACC10, TG_WGMMA_QUAD(40)
#define TG_WGMMA_REGS12 TG_WGMMA_REGS11 ", " TG_WGMMA_R11
#define TG_WGMMA_ACC12 TG_WGMMA_ACC11, TG_WGMMA_QUAD(44)
#define TG_WGMMA_REGS13 TG_WGMMA_REGS12 ", " TG_WGMMA_R12
#define TG_WGMMA_ACC13 TG_WGMMA_ACC12, TG_WGMMA_QUAD(48)
#define TG_WGMMA_REGS14 TG_WGMMA_REGS13 ", " TG_WGMMA_R13
#define TG_WGMMA_ACC14 TG_WGMMA_ACC13, TG_WGMMA_QUAD(52)
#define TG_WGMMA_REGS15 TG_WGMMA_REGS14 ", " TG_WGMMA_R14
#define TG_WGMMA_ACC15 TG_WGMMA_ACC14, TG_WGMMA_QUAD(56)
#define TG_WGMMA_REGS16 TG_WGMMA_REGS15 ", " TG_WGMMA_R15
#define TG_WGMMA_ACC16 TG_WGMMA_ACC15, TG_WGMMA_QUAD(60)
#define TG_WGMMA_REGS17 TG_WGMMA_REGS16 ", " TG_WGMMA_R16
#define TG_WGMMA_ACC17 TG_WGMMA_ACC16, TG_WGMMA_QUAD(64)
#define TG_WGMMA_REGS18 TG_WGMMA_REGS17 ", " TG_WGMMA_R17
#define TG_WGMMA_ACC18 TG_WGMMA_ACC17, TG_WGMMA_QUAD(68)
#define TG_WGMMA_REGS19 TG_WGMMA_REGS18 ", " TG_WGMMA_R18
#define TG_WGMMA_ACC19 TG_WGMMA_ACC18, TG_WGMMA_QUAD(72)
#define TG_WGMMA_REGS20 TG_WGMMA_REGS19 ", " TG_WGMMA_R19
#define TG_WGMMA_ACC20 TG_WGMMA_ACC19, TG_WGMMA_QUAD(76)
#define TG_WGMMA_REGS21 TG_WGMMA_REGS20 ", " TG_WGMMA_R20
#define TG_WGMMA_ACC21 TG_WGMMA_ACC20, TG_WGMMA_QUAD(80)
#define TG_WGMMA_REGS22 TG_WGMMA_REGS21 ", " TG_WGMMA_R21
#define TG_WGMMA_ACC22 TG_WGMMA_ACC21, TG_WGMMA_QUAD(84)
#define TG_WGMMA_REGS23 TG_WGMMA_REGS22 ", " TG_WGMMA_R22
#define TG_WGMMA_ACC23 TG_WGMMA_ACC22, TG_WGMMA_QUAD(88)
#define TG_WGMMA_REGS24 TG_WGMMA_REGS23 ", " TG_WGMMA_R23
#define TG_WGMMA_ACC24 TG_WGMMA_ACC23, TG_WGMMA_QUAD(92)
#define TG_WGMMA_REGS25 TG_WGMMA_REGS24 ", " TG_WGMMA_R24
#define TG_WGMMA_ACC25 TG_WGMMA_ACC24, TG_WGMMA_QUAD(96)
#define TG_WGMMA_REGS26 TG_WGMMA_REGS25 ", " TG_WGMMA_R25
#define TG_WGMMA_ACC26 TG_WGMMA_ACC25, TG_WGMMA_QUAD(100)
#define TG_WGMMA_REGS27 TG_WGMMA_REGS26 ", " TG_WGMMA_R26
#define TG_WGMMA_ACC27 TG_WGMMA_ACC26, TG_WGMMA_QUAD(104)
#define TG_WGMMA_REGS28 TG_WGMMA_REGS27 ", " TG_WGMMA_R27
#define TG_WGMMA_ACC28 TG_WGMMA_ACC27, TG_WGMMA_QUAD(108)
#define TG_WGMMA_REGS29 TG_WGMMA_REGS28 ", " TG_WGMMA_R28
#define TG_WGMMA_ACC29 TG_WGMMA_ACC28, TG_WGMMA_QUAD(112)
#define TG_WGMMA_REGS30 TG_WGMMA_REGS29 ", " TG_WGMMA_R29
#define TG_WGMMA_ACC30 TG_WGMMA_ACC29, TG_WGMMA_QUAD(116)
#define TG_WGMMA_REGS31 TG_WGMMA_REGS30 ", " TG_WGMMA_R30
#define TG_WGMMA_ACC31 TG_WGMMA_ACC30, TG_WGMMA_QUAD(120)
#define TG_WGMMA_REGS32 TG_WGMMA_REGS31 ", " TG_WGMMA_R31
#define TG_WGMMA_ACC32 TG_WGMMA_ACC31, TG_WGMMA_QUAD(124)

TG_WGMMA_SHAPE(8, TG_WGMMA_REGS1, 4, 5, 6, 7, 8, TG_WGMMA_ACC1)
TG_WGMMA_SHAPE(16, TG_WGMMA_REGS2, 8, 9, 10, 11, 12, TG_WGMMA_ACC2)
TG_WGMMA_SHAPE(24, TG_WGMMA_REGS3, 12, 13, 14, 15, 16, TG_WGMMA_ACC3)
TG_WGMMA_SHAPE(32, TG_WGMMA_REGS4, 16, 17, 18, 19, 20, TG_WGMMA_ACC4)
TG_WGMMA_SHAPE(40, TG_WGMMA_REGS5, 20, 21, 22, 23, 24, TG_WGMMA_ACC5)
TG_WGMMA_SHAPE(48, TG_WGMMA_REGS6, 24, 25, 26, 27, 28, TG_WGMMA_ACC6)
TG_WGMMA_SHAPE(56, TG_WGMMA_REGS7, 28, 29, 30, 31, 32, TG_WGMMA_ACC7)
TG_WGMMA_SHAPE(64, TG_WGMMA_REGS8, 32, 33, 34, 35, 36, TG_WGMMA_ACC8)
TG_WGMMA_SHAPE(72, TG_WGMMA_REGS9, 36, 37, 38, 39, 40, TG_WGMMA_ACC9)
TG_WGMMA_SHAPE(80, TG_WGMMA_REGS10, 40, 41, 42, 43, 44, TG_WGMMA_ACC10)
TG_WGMMA_SHAPE(88, TG_WGMMA_REGS11, 44, 45, 46, 47, 48, TG_WGMMA_ACC11)
TG_WGMMA_SHAPE(96, TG_WGMMA_REGS12, 48, 49, 50, 51, 52, TG_WGMMA_ACC12)
TG_WGMMA_SHAPE(104, TG_WGMMA_REGS13, 52, 53, 54, 55, 56, TG_WGMMA_ACC13)
TG_WGMMA_SHAPE(112, TG_WGMMA_REGS14, 56, 57, 58, 59, 60, TG_WGMMA_ACC14)
TG_WGMMA_SHAPE(120, TG_WGMMA_REGS15, 60, 61, 62, 63, 64, TG_WGMMA_ACC15)
TG_WGMMA_SHAPE(128, TG_WGMMA_REGS16, 64, 65, 66, 67, 68, TG_WGMMA_ACC16)
TG_WGMMA_SHAPE(136, TG_WGMMA_REGS17, 68, 69, 70, 71, 72, TG_WGMMA_ACC17)
TG_WGMMA_SHAPE(144, TG_WGMMA_REGS18, 72, 73, 74, 75, 76, TG_WGMMA_ACC18)
TG_WGMMA_SHAPE(152, TG_WGMMA_REGS19, 76, 77, 78, 79, 80, TG_WGMMA_ACC19)
TG_WGMMA_SHAPE(160, TG_WGMMA_REGS20, 80, 81, 82, 83, 84, TG_WGMMA_ACC20)
TG_WGMMA_SHAPE(168, TG_WGMMA_REGS21, 84, 85, 86, 87, 88, TG_WGMMA_ACC21)
TG_WGMMA_SHAPE(176, TG_WGMMA_REGS22, 88, 89, 90, 91, 92, TG_WGMMA_ACC22)
TG_WGMMA_SHAPE(184, TG_WGMMA_REGS23, 92, 93, 94, 95, 96, TG_WGMMA_ACC23)
TG_WGMMA_SHAPE(192, TG_WGMMA_REGS24, 96, 97, 98, 99, 100, TG_WGMMA_ACC24)
TG_WGMMA_SHAPE(200, TG_WGMMA_REGS25, 100, 101, 102, 103, 104, TG_WGMMA_ACC25)
TG_WGMMA_SHAPE(208, TG_WGMMA_REGS26, 104, 105, 106, 107, 108, TG_WGMMA_ACC26)
TG_WGMMA_SHAPE(216, TG_WGMMA_REGS27, 108, 109, 110, 111, 112, TG_WGMMA_ACC27)
TG_WGMMA_SHAPE(224, TG_WGMMA_REGS28, 112, 113, 114, 115, 116, TG_WGMMA_ACC28)
TG_WGMMA_SHAPE(232, TG_WGMMA_REGS29, 116, 117, 118, 119, 120, TG_WGMMA_ACC29)
TG_WGMMA_SHAPE(240, TG_WGMMA_REGS30, 120, 121, 122, 123, 124, TG_WGMMA_ACC30)
TG_WGMMA_SHAPE(248, TG_WGMMA_REGS31, 124, 125, 126, 127, 128, TG_WGMMA_ACC31)
TG_WGMMA_SHAPE(256, TG_WGMMA_REGS32, 128, 129, 130, 131, 132, TG_WGMMA_ACC32)

template <int N, int TypeA, int TypeB, int TransA, int TransB>
__device__ __forceinline__ void tg_wgmma(float (&d)[N / 2], tg_u64 desc_a, tg_u64 desc_b, bool accumulate) {
  static_assert(TypeA == TypeB || (TypeA >= TG_WGMMA_E4M3 && TypeB >= TG_WGMMA_E4M3),
                "16-bit inputs are of one type; 8-bit ones mix");
  static_assert(TypeA < TG_WGMMA_E4M3 || (TransA == 0 && TransB == 0), "wgmma reads 8-bit operands K-major only");
  tg_wgmma_shape<N>::template mma<TypeA, TypeB, TransA, TransB>(d, desc_a, desc_b, static_cast<int>(accumulate));
}
