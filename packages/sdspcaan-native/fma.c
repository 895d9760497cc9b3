/*
 * The fast backend's GEMM (fma.h): C[i][j] += sum_l A[i][l] B[j][l] with fused
 * multiply-adds and register-blocked micro-kernels, AVX-512F (12 x 16 tiles, 24
 * accumulators) or AVX2 with FMA (6 x 8 tiles, 12 accumulators), chosen at run time.
 *
 * Every entry is one chain of fused multiply-adds from C's value in l order:
 *
 *   c = C[i][j];  for l = 0 .. p - 1:  c = fma(A[i][l], B[j][l], c);  C[i][j] = c
 *
 * (a panel boundary stores c and loads it back, which rounds nothing). So an entry's bits
 * depend only on its row of A, its row of B and C's value: not on the shape of the
 * product, the blocking, the vector width, the tile it falls in, alignment, or which
 * thread computes which rows. Both widths give the same bits, and a product split by
 * rows over threads gives one thread's. It does not give the exact backend's bits
 * (gemm.c's `gemm`, kernels.wat's order without fusion): results agree to rounding.
 *
 * Blocking (Goto's, as BLIS orders its loops for a broadcast operand in L1): for each
 * block of NC rows of B and each panel of KC of the contraction, B's block is packed
 * into micro-panels of NR rows interleaved by l (kept in L2); then for every MR rows of
 * A their micro-panel is packed (kept in L1) and meets every micro-panel of B. Edges:
 * rows of A by kernels specialised to the row count, columns by masked loads and stores
 * of C (the packed B is zero beyond its rows, and those lanes are never stored).
 */
#include "fma.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#define KC 256
#define NC 384

/* Rows [0, rows) of X from column l0, kc columns, as a micro-panel of `width` rows
 * interleaved by column (kc x width), zero beyond `rows`. */
static void pack_panel(const double *X, int64_t ld, int rows, int kc, int width,
                       double *out) {
  for (int r = 0; r < rows; r++) {
    const double *src = X + (int64_t)r * ld;
    for (int l = 0; l < kc; l++) out[l * width + r] = src[l];
  }
  for (int r = rows; r < width; r++) {
    for (int l = 0; l < kc; l++) out[l * width + r] = 0.0;
  }
}

/* ---- AVX-512F: 12 x 16 tiles (two vectors of 8 per row) ---- */

#define MR512 12
#define NR512 16

__attribute__((target("avx512f"))) static inline __mmask8 mask8(int count) {
  return count >= 8 ? (__mmask8)0xFF : count <= 0 ? (__mmask8)0 : (__mmask8)((1u << count) - 1);
}

/*
 * The tile's R rows (R <= 12, a constant where it is inlined) against a micro-panel of
 * 16 columns: C[r][q] chained over l for q < cols[r]. Ap: kc x 12, Bp: kc x 16 packed.
 */
#define DEFINE_TILE512(R)                                                                    \
  __attribute__((target("avx512f"))) static void tile512_##R(                                \
      int kc, const double *Ap, const double *Bp, double *C, int64_t ldc, const int *cols) { \
    __m512d c0[R], c1[R];                                                                    \
    __mmask8 k0[R], k1[R];                                                                   \
    _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                   \
      k0[r] = mask8(cols[r]);                                                                \
      k1[r] = mask8(cols[r] - 8);                                                            \
      c0[r] = _mm512_maskz_loadu_pd(k0[r], C + r * ldc);                                     \
      c1[r] = _mm512_maskz_loadu_pd(k1[r], C + r * ldc + 8);                                 \
    }                                                                                        \
    for (int l = 0; l < kc; l++) {                                                           \
      const __m512d b0 = _mm512_load_pd(Bp + NR512 * l);                                     \
      const __m512d b1 = _mm512_load_pd(Bp + NR512 * l + 8);                                 \
      const double *a = Ap + MR512 * l;                                                      \
      _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                 \
        const __m512d x = _mm512_set1_pd(a[r]);                                             \
        c0[r] = _mm512_fmadd_pd(x, b0, c0[r]);                                               \
        c1[r] = _mm512_fmadd_pd(x, b1, c1[r]);                                               \
      }                                                                                      \
    }                                                                                        \
    _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                   \
      _mm512_mask_storeu_pd(C + r * ldc, k0[r], c0[r]);                                      \
      _mm512_mask_storeu_pd(C + r * ldc + 8, k1[r], c1[r]);                                  \
    }                                                                                        \
  }

DEFINE_TILE512(1)
DEFINE_TILE512(2)
DEFINE_TILE512(3)
DEFINE_TILE512(4)
DEFINE_TILE512(5)
DEFINE_TILE512(6)
DEFINE_TILE512(7)
DEFINE_TILE512(8)
DEFINE_TILE512(9)
DEFINE_TILE512(10)
DEFINE_TILE512(11)
DEFINE_TILE512(12)

/* ---- AVX2 with FMA: 6 x 8 tiles (two vectors of 4 per row) ---- */

#define MR256 6
#define NR256 8

__attribute__((target("avx2,fma"))) static inline __m256i mask4(int count) {
  const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), lanes);
}

#define DEFINE_TILE256(R)                                                                    \
  __attribute__((target("avx2,fma"))) static void tile256_##R(                               \
      int kc, const double *Ap, const double *Bp, double *C, int64_t ldc, const int *cols) { \
    __m256d c0[R], c1[R];                                                                    \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                    \
      c0[r] = _mm256_maskload_pd(C + r * ldc, mask4(cols[r]));                               \
      c1[r] = _mm256_maskload_pd(C + r * ldc + 4, mask4(cols[r] - 4));                       \
    }                                                                                        \
    for (int l = 0; l < kc; l++) {                                                           \
      const __m256d b0 = _mm256_load_pd(Bp + NR256 * l);                                     \
      const __m256d b1 = _mm256_load_pd(Bp + NR256 * l + 4);                                 \
      const double *a = Ap + MR256 * l;                                                      \
      _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                  \
        const __m256d x = _mm256_broadcast_sd(a + r);                                        \
        c0[r] = _mm256_fmadd_pd(x, b0, c0[r]);                                               \
        c1[r] = _mm256_fmadd_pd(x, b1, c1[r]);                                               \
      }                                                                                      \
    }                                                                                        \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                    \
      _mm256_maskstore_pd(C + r * ldc, mask4(cols[r]), c0[r]);                               \
      _mm256_maskstore_pd(C + r * ldc + 4, mask4(cols[r] - 4), c1[r]);                       \
    }                                                                                        \
  }

DEFINE_TILE256(1)
DEFINE_TILE256(2)
DEFINE_TILE256(3)
DEFINE_TILE256(4)
DEFINE_TILE256(5)
DEFINE_TILE256(6)

typedef void (*tile_fn)(int, const double *, const double *, double *, int64_t, const int *);

static const tile_fn tiles512[MR512 + 1] = {
    NULL,        tile512_1, tile512_2, tile512_3,  tile512_4,  tile512_5, tile512_6,
    tile512_7,   tile512_8, tile512_9, tile512_10, tile512_11, tile512_12,
};
static const tile_fn tiles256[MR256 + 1] = {
    NULL, tile256_1, tile256_2, tile256_3, tile256_4, tile256_5, tile256_6,
};

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t gemm_fma_buffer_doubles(int n, int p) {
  const int kc = p < KC ? p : KC;
  const int nc = n < NC ? n : NC;
  /* B's block rounded up to whole micro-panels of the wider kernel, then one of A's. */
  return (int64_t)kc * (((nc + NR512 - 1) / NR512) * NR512) + (int64_t)kc * MR512 + 8;
}

int gemm_fma(int wide, int m, int n, int p, const double *A, int64_t lda, const double *B,
             int64_t ldb, double *C, int64_t ldc, int base, int block, double *buffer) {
  const int mr = wide ? MR512 : MR256;
  const int nr = wide ? NR512 : NR256;
  const tile_fn *tiles = wide ? tiles512 : tiles256;
  /* 64-byte aligned packing buffers inside `buffer` (gemm_fma_buffer_doubles + 8). */
  double *Bp = (double *)(((uintptr_t)buffer + 63) & ~(uintptr_t)63);
  const int kcMax = p < KC ? p : KC;
  const int ncMax = n < NC ? n : NC;
  double *Ap = Bp + (int64_t)kcMax * (((ncMax + NR512 - 1) / NR512) * NR512);
#define LIMIT(r) \
  (block == 0 ? n : (int)min64(n, (int64_t)base + ((r) / block + 1) * (int64_t)block))
  for (int j0 = 0; j0 < n; j0 += NC) {
    /* The limit grows with the row: the last row's is the largest. */
    if (LIMIT(m - 1) <= j0) break;
    const int nc = n - j0 < NC ? n - j0 : NC;
    for (int l0 = 0; l0 < p; l0 += KC) {
      const int kc = p - l0 < KC ? p - l0 : KC;
      for (int jr = 0; jr < nc; jr += nr) {
        const int cols = nc - jr < nr ? nc - jr : nr;
        pack_panel(B + (int64_t)(j0 + jr) * ldb + l0, ldb, cols, kc, nr, Bp + (int64_t)jr * kc);
      }
      for (int i0 = 0; i0 < m; i0 += mr) {
        const int rows = m - i0 < mr ? m - i0 : mr;
        /* Rows' limits grow with the row: the tile's last row reaches furthest. */
        if (LIMIT(i0 + rows - 1) <= j0) continue;
        pack_panel(A + (int64_t)i0 * lda + l0, lda, rows, kc, mr, Ap);
        for (int jr = 0; jr < nc; jr += nr) {
          const int width = nc - jr < nr ? nc - jr : nr;
          int per_row[MR512];
          for (int r = 0; r < rows; r++) {
            const int room = LIMIT(i0 + r) - (j0 + jr);
            per_row[r] = room <= 0 ? 0 : room < width ? room : width;
          }
          if (per_row[rows - 1] == 0) continue;
          tiles[rows](kc, Ap, Bp + (int64_t)jr * kc, C + (int64_t)i0 * ldc + j0 + jr, ldc,
                      per_row);
        }
      }
    }
  }
#undef LIMIT
  return 0;
}

#else

int64_t gemm_fma_buffer_doubles(int n, int p) {
  (void)n;
  (void)p;
  return 0;
}

int gemm_fma(int wide, int m, int n, int p, const double *A, int64_t lda, const double *B,
             int64_t ldb, double *C, int64_t ldc, int base, int block, double *buffer) {
  (void)wide, (void)m, (void)n, (void)p, (void)A, (void)lda, (void)B, (void)ldb, (void)C;
  (void)ldc, (void)base, (void)block, (void)buffer;
  return -1;
}

#endif
