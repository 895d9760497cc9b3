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
 * into micro-panels of NR rows interleaved by l (kept in L2); then every MR rows of A
 * (kept in L1) meet every micro-panel of B. A's rows are read where they lie, or packed
 * first where they meet many micro-panels of B and lie a multiple of 4 KiB apart (their
 * MR streams would share cache sets). With at most 8 columns the AVX-512 tiles are one
 * vector wide. Edges: rows of A by kernels specialised to the row count, columns by
 * masked loads and stores of C (the packed B is zero beyond its rows, and those lanes
 * are never stored). None of this changes an entry's bits.
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
 * A tile of R rows (a constant where it is inlined) against a micro-panel of V vectors of
 * 8 columns (Bp: kc x 8 V packed): C[r][q] chained over l for q < cols[r]. The rows of A
 * come packed (kc x 12, lda unused) or straight from A (rows lda apart), which pays
 * where a micro-panel of A would meet only one or two of B's.
 */
#define AP_PACKED(A, lda, l, r) (A)[12 * (l) + (r)]
#define AP_DIRECT(A, lda, l, r) (A)[(r) * (lda) + (l)]

#define DEFINE_TILE512(NAME, R, V, AT)                                                        \
  __attribute__((target("avx512f"))) static void NAME(int kc, const double *A, int64_t lda,  \
                                                      const double *Bp, double *C,           \
                                                      int64_t ldc, const int *cols) {        \
    (void)lda;                                                                                \
    __m512d c[R][V];                                                                          \
    __mmask8 k[R][V];                                                                         \
    _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                    \
      _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) {                                   \
        k[r][v] = mask8(cols[r] - 8 * v);                                                     \
        c[r][v] = _mm512_maskz_loadu_pd(k[r][v], C + r * ldc + 8 * v);                        \
      }                                                                                       \
    }                                                                                         \
    for (int l = 0; l < kc; l++) {                                                            \
      __m512d b[V];                                                                           \
      _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) b[v] =                              \
          _mm512_load_pd(Bp + 8 * V * l + 8 * v);                                             \
      _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                  \
        const __m512d x = _mm512_set1_pd(AT(A, lda, l, r));                                   \
        _Pragma("GCC unroll 2") for (int v = 0; v < V; v++) c[r][v] =                         \
            _mm512_fmadd_pd(x, b[v], c[r][v]);                                                \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 12") for (int r = 0; r < R; r++) {                                    \
      _Pragma("GCC unroll 2") for (int v = 0; v < V; v++)                                     \
          _mm512_mask_storeu_pd(C + r * ldc + 8 * v, k[r][v], c[r][v]);                       \
    }                                                                                         \
  }

#define DEFINE_TILES512(R)                                      \
  DEFINE_TILE512(tile512p_##R, R, 2, AP_PACKED)                 \
  DEFINE_TILE512(tile512d_##R, R, 2, AP_DIRECT)                 \
  DEFINE_TILE512(tile512n_##R, R, 1, AP_DIRECT)

DEFINE_TILES512(1)
DEFINE_TILES512(2)
DEFINE_TILES512(3)
DEFINE_TILES512(4)
DEFINE_TILES512(5)
DEFINE_TILES512(6)
DEFINE_TILES512(7)
DEFINE_TILES512(8)
DEFINE_TILES512(9)
DEFINE_TILES512(10)
DEFINE_TILES512(11)
DEFINE_TILES512(12)

/* ---- AVX2 with FMA: 6 x 8 tiles (two vectors of 4 per row) ---- */

#define MR256 6
#define NR256 8

__attribute__((target("avx2,fma"))) static inline __m256i mask4(int count) {
  const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), lanes);
}

#define AP6_PACKED(A, lda, l, r) (A)[6 * (l) + (r)]

#define DEFINE_TILE256(NAME, R, AT)                                                           \
  __attribute__((target("avx2,fma"))) static void NAME(int kc, const double *A, int64_t lda, \
                                                       const double *Bp, double *C,          \
                                                       int64_t ldc, const int *cols) {       \
    (void)lda;                                                                                \
    __m256d c0[R], c1[R];                                                                     \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                     \
      c0[r] = _mm256_maskload_pd(C + r * ldc, mask4(cols[r]));                                \
      c1[r] = _mm256_maskload_pd(C + r * ldc + 4, mask4(cols[r] - 4));                        \
    }                                                                                         \
    for (int l = 0; l < kc; l++) {                                                            \
      const __m256d b0 = _mm256_load_pd(Bp + NR256 * l);                                      \
      const __m256d b1 = _mm256_load_pd(Bp + NR256 * l + 4);                                  \
      _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                   \
        const __m256d x = _mm256_broadcast_sd(&AT(A, lda, l, r));                             \
        c0[r] = _mm256_fmadd_pd(x, b0, c0[r]);                                                \
        c1[r] = _mm256_fmadd_pd(x, b1, c1[r]);                                                \
      }                                                                                       \
    }                                                                                         \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; r++) {                                     \
      _mm256_maskstore_pd(C + r * ldc, mask4(cols[r]), c0[r]);                                \
      _mm256_maskstore_pd(C + r * ldc + 4, mask4(cols[r] - 4), c1[r]);                        \
    }                                                                                         \
  }

#define DEFINE_TILES256(R)                          \
  DEFINE_TILE256(tile256p_##R, R, AP6_PACKED)       \
  DEFINE_TILE256(tile256d_##R, R, AP_DIRECT)

DEFINE_TILES256(1)
DEFINE_TILES256(2)
DEFINE_TILES256(3)
DEFINE_TILES256(4)
DEFINE_TILES256(5)
DEFINE_TILES256(6)

typedef void (*tile_fn)(int, const double *, int64_t, const double *, double *, int64_t,
                        const int *);

/* By layout: [0] A packed, [1] A direct, [2] A direct against 8-column panels (AVX-512). */
static const tile_fn tiles512[3][MR512 + 1] = {
    {NULL, tile512p_1, tile512p_2, tile512p_3, tile512p_4, tile512p_5, tile512p_6, tile512p_7,
     tile512p_8, tile512p_9, tile512p_10, tile512p_11, tile512p_12},
    {NULL, tile512d_1, tile512d_2, tile512d_3, tile512d_4, tile512d_5, tile512d_6, tile512d_7,
     tile512d_8, tile512d_9, tile512d_10, tile512d_11, tile512d_12},
    {NULL, tile512n_1, tile512n_2, tile512n_3, tile512n_4, tile512n_5, tile512n_6, tile512n_7,
     tile512n_8, tile512n_9, tile512n_10, tile512n_11, tile512n_12},
};
static const tile_fn tiles256[2][MR256 + 1] = {
    {NULL, tile256p_1, tile256p_2, tile256p_3, tile256p_4, tile256p_5, tile256p_6},
    {NULL, tile256d_1, tile256d_2, tile256d_3, tile256d_4, tile256d_5, tile256d_6},
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
  /* A few columns: AVX-512 tiles one vector wide (8 columns, none wasted on padding). */
  const int narrow = wide && n <= 8;
  const int nr = narrow ? 8 : wide ? NR512 : NR256;
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
    /* A's micro-panels are read where they lie unless they meet many of B's (packing
     * them costs about what a few tiles do with them) and A's rows lie a multiple of
     * 4 KiB apart, so that the tile's 12 (or 6) rows would share cache sets. */
    const int direct = nc <= 8 * nr || lda % 512 != 0;
    const tile_fn *tiles = wide ? tiles512[narrow ? 2 : direct] : tiles256[direct];
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
        const double *Ai = A + (int64_t)i0 * lda + l0;
        if (!direct) pack_panel(Ai, lda, rows, kc, mr, Ap);
        for (int jr = 0; jr < nc; jr += nr) {
          const int width = nc - jr < nr ? nc - jr : nr;
          int per_row[MR512];
          for (int r = 0; r < rows; r++) {
            const int room = LIMIT(i0 + r) - (j0 + jr);
            per_row[r] = room <= 0 ? 0 : room < width ? room : width;
          }
          if (per_row[rows - 1] == 0) continue;
          tiles[rows](kc, direct ? Ai : Ap, lda, Bp + (int64_t)jr * kc,
                      C + (int64_t)i0 * ldc + j0 + jr, ldc, per_row);
        }
      }
    }
  }
#undef LIMIT
  return 0;
}

/* ---- symv: y += S x for the stored triangle, fused ---- */

/*
 * The 8-lane partial sums t of a column's dot product with x, added in one fixed order,
 * so that both widths give the same bits.
 */
static inline double sum8(const double *t) {
  return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

/* The 4 x 4 diagonal block of columns j .. j + 3 (or the last columns, `count` of them):
 * for each column q, S(j + q, j + q) x and the entries below it within the block. */
__attribute__((target("fma"))) static inline void symv_diagonal(const double *a, int64_t lda,
                                                                int j, int count,
                                                                const double *x, double *y) {
  for (int q = 0; q < count; q++) {
    const double *col = a + (int64_t)(j + q) * lda;
    const double xq = x[j + q];
    double t = col[j + q] * xq;
    for (int r = j + q + 1; r < j + count; r++) {
      y[r] = __builtin_fma(col[r], xq, y[r]);
      t = __builtin_fma(col[r], x[r], t);
    }
    y[j + q] += t;
  }
}

#define DEFINE_SYMV(NAME, TARGET, VEC, MASK, LANES, LOAD, STORE, LOADM, STOREM, MASKOF, FMA,  \
                    SET1, ZERO)                                                            \
  __attribute__((target(TARGET))) static void NAME(const double *a, int64_t lda, int m,      \
                                                   const double *x, double *y) {           \
    int j = 0;                                                                             \
    for (; j + 3 < m; j += 4) {                                                            \
      symv_diagonal(a, lda, j, 4, x, y);                                                   \
      const double *c0 = a + (int64_t)j * lda, *c1 = c0 + lda, *c2 = c1 + lda,            \
                   *c3 = c2 + lda;                                                         \
      const VEC x0 = SET1(x[j]), x1 = SET1(x[j + 1]), x2 = SET1(x[j + 2]),                 \
                x3 = SET1(x[j + 3]);                                                       \
      VEC t0[8 / LANES], t1[8 / LANES], t2[8 / LANES], t3[8 / LANES];                      \
      for (int h = 0; h < 8 / LANES; h++) t0[h] = t1[h] = t2[h] = t3[h] = ZERO();          \
      /* Rows from j + 4 in blocks of 8, lane (r - j - 4) % 8 of each column's sum; the  \
       * last block masked. */                                                             \
      for (int r = j + 4; r < m; r += 8) {                                                 \
        for (int h = 0; h < 8 / LANES; h++) {                                              \
          const int o = r + h * LANES;                                                     \
          if (r + 8 <= m) {                                                                \
            const VEC xr = LOAD(x + o), v0 = LOAD(c0 + o), v1 = LOAD(c1 + o),              \
                      v2 = LOAD(c2 + o), v3 = LOAD(c3 + o);                                \
            STORE(y + o, FMA(v3, x3, FMA(v2, x2, FMA(v1, x1, FMA(v0, x0, LOAD(y + o))))));  \
            t0[h] = FMA(v0, xr, t0[h]);                                                    \
            t1[h] = FMA(v1, xr, t1[h]);                                                    \
            t2[h] = FMA(v2, xr, t2[h]);                                                    \
            t3[h] = FMA(v3, xr, t3[h]);                                                    \
          } else {                                                                         \
            const MASK k = MASKOF(m - o);                                                  \
            const VEC xr = LOADM(x + o, k), v0 = LOADM(c0 + o, k), v1 = LOADM(c1 + o, k),  \
                      v2 = LOADM(c2 + o, k), v3 = LOADM(c3 + o, k);                        \
            STOREM(y + o, k,                                                               \
                   FMA(v3, x3, FMA(v2, x2, FMA(v1, x1, FMA(v0, x0, LOADM(y + o, k))))));    \
            t0[h] = FMA(v0, xr, t0[h]);                                                    \
            t1[h] = FMA(v1, xr, t1[h]);                                                    \
            t2[h] = FMA(v2, xr, t2[h]);                                                    \
            t3[h] = FMA(v3, xr, t3[h]);                                                    \
          }                                                                                \
        }                                                                                  \
      }                                                                                    \
      double l0[8], l1[8], l2[8], l3[8];                                                   \
      for (int h = 0; h < 8 / LANES; h++) {                                                \
        STORE(l0 + h * LANES, t0[h]);                                                      \
        STORE(l1 + h * LANES, t1[h]);                                                      \
        STORE(l2 + h * LANES, t2[h]);                                                      \
        STORE(l3 + h * LANES, t3[h]);                                                      \
      }                                                                                    \
      y[j] += sum8(l0);                                                                    \
      y[j + 1] += sum8(l1);                                                                \
      y[j + 2] += sum8(l2);                                                                \
      y[j + 3] += sum8(l3);                                                                \
    }                                                                                      \
    /* The last m % 4 columns: their diagonal block is all of them. */                     \
    if (j < m) symv_diagonal(a, lda, j, m - j, x, y);                                      \
  }

/* Masked forms for the last partial block of 8 rows (masked-out lanes load zeros, which
 * leave every lane's sum as it is, and are not stored). */
#define LOAD512_MASKED(p, k) _mm512_maskz_loadu_pd((k), (p))
#define STORE512_MASKED(p, k, v) _mm512_mask_storeu_pd((p), (k), (v))
#define LOAD256_MASKED(p, k) _mm256_maskload_pd((p), (k))
#define STORE256_MASKED(p, k, v) _mm256_maskstore_pd((p), (k), (v))

DEFINE_SYMV(symv512, "avx512f,fma", __m512d, __mmask8, 8, _mm512_loadu_pd, _mm512_storeu_pd,
            LOAD512_MASKED, STORE512_MASKED, mask8, _mm512_fmadd_pd, _mm512_set1_pd,
            _mm512_setzero_pd)
DEFINE_SYMV(symv256, "avx2,fma", __m256d, __m256i, 4, _mm256_loadu_pd, _mm256_storeu_pd,
            LOAD256_MASKED, STORE256_MASKED, mask4, _mm256_fmadd_pd, _mm256_set1_pd,
            _mm256_setzero_pd)

int symv_fma(int wide, const double *a, int64_t lda, int m, const double *x, double *y) {
  if (wide) symv512(a, lda, m, x, y);
  else symv256(a, lda, m, x, y);
  return 0;
}

/* ---- combine2 and dots2: the panel corrections of the blocked reduction, fused ---- */

/*
 * combine2: t[r] = fma(w_l[r], -cw[l], fma(v_l[r], -cv[l], t[r])) for l = 0, 1, .., in
 * order, each r on its own (so any width gives the same bits); rows by chunks of 32.
 */
#define DEFINE_COMBINE(NAME, TARGET, VEC, MASK, LANES, LOADM, STOREM, MASKOF, FMA, SET1)      \
  __attribute__((target(TARGET))) static void NAME(double *t, int len, const double *v,       \
                                                   int64_t ldv, const double *w, int64_t ldw, \
                                                   int count, const double *cv,              \
                                                   const double *cw) {                       \
    for (int r0 = 0; r0 < len; r0 += 32) {                                                  \
      VEC acc[32 / LANES];                                                                  \
      MASK k[32 / LANES];                                                                   \
      for (int h = 0; h < 32 / LANES; h++) {                                                \
        k[h] = MASKOF(len - r0 - h * LANES);                                                \
        acc[h] = LOADM(t + r0 + h * LANES, k[h]);                                           \
      }                                                                                     \
      for (int l = 0; l < count; l++) {                                                     \
        const VEC p = SET1(-cv[l]), q = SET1(-cw[l]);                                       \
        const double *vl = v + (int64_t)l * ldv + r0, *wl = w + (int64_t)l * ldw + r0;      \
        for (int h = 0; h < 32 / LANES; h++) {                                              \
          acc[h] = FMA(LOADM(vl + h * LANES, k[h]), p, acc[h]);                             \
          acc[h] = FMA(LOADM(wl + h * LANES, k[h]), q, acc[h]);                             \
        }                                                                                   \
      }                                                                                     \
      for (int h = 0; h < 32 / LANES; h++) STOREM(t + r0 + h * LANES, k[h], acc[h]);        \
    }                                                                                       \
  }

/*
 * dots2: ov[l] = v_l . x and ow[l] = w_l . x, each in 32 lanes (lane r % 32) of fused
 * multiply-adds in r order, the lanes added in a fixed order (so any width gives the
 * same bits).
 */
#define DEFINE_DOTS(NAME, TARGET, VEC, MASK, LANES, LOADM, STORE, MASKOF, FMA, ZERO)          \
  __attribute__((target(TARGET))) static void NAME(const double *v, int64_t ldv,              \
                                                   const double *w, int64_t ldw, int count,  \
                                                   const double *x, int len, double *ov,     \
                                                   double *ow) {                             \
    for (int l = 0; l < count; l++) {                                                       \
      const double *vl = v + (int64_t)l * ldv, *wl = w + (int64_t)l * ldw;                  \
      VEC sv[32 / LANES], sw[32 / LANES];                                                   \
      for (int h = 0; h < 32 / LANES; h++) sv[h] = sw[h] = ZERO();                          \
      for (int r0 = 0; r0 < len; r0 += 32) {                                                \
        for (int h = 0; h < 32 / LANES; h++) {                                              \
          const int o = r0 + h * LANES;                                                     \
          const MASK k = MASKOF(len - o);                                                   \
          const VEC xr = LOADM(x + o, k);                                                   \
          sv[h] = FMA(LOADM(vl + o, k), xr, sv[h]);                                         \
          sw[h] = FMA(LOADM(wl + o, k), xr, sw[h]);                                         \
        }                                                                                   \
      }                                                                                     \
      double lv[32], lw[32];                                                                \
      for (int h = 0; h < 32 / LANES; h++) {                                                \
        STORE(lv + h * LANES, sv[h]);                                                       \
        STORE(lw + h * LANES, sw[h]);                                                       \
      }                                                                                     \
      ov[l] = (sum8(lv) + sum8(lv + 8)) + (sum8(lv + 16) + sum8(lv + 24));                  \
      ow[l] = (sum8(lw) + sum8(lw + 8)) + (sum8(lw + 16) + sum8(lw + 24));                  \
    }                                                                                       \
  }

DEFINE_COMBINE(combine512, "avx512f,fma", __m512d, __mmask8, 8, LOAD512_MASKED, STORE512_MASKED,
               mask8, _mm512_fmadd_pd, _mm512_set1_pd)
DEFINE_COMBINE(combine256, "avx2,fma", __m256d, __m256i, 4, LOAD256_MASKED, STORE256_MASKED,
               mask4, _mm256_fmadd_pd, _mm256_set1_pd)
DEFINE_DOTS(dots512, "avx512f,fma", __m512d, __mmask8, 8, LOAD512_MASKED, _mm512_storeu_pd,
            mask8, _mm512_fmadd_pd, _mm512_setzero_pd)
DEFINE_DOTS(dots256, "avx2,fma", __m256d, __m256i, 4, LOAD256_MASKED, _mm256_storeu_pd, mask4,
            _mm256_fmadd_pd, _mm256_setzero_pd)

int combine2_fma(int wide, double *t, int len, const double *v, int64_t ldv, const double *w,
                 int64_t ldw, int count, const double *cv, const double *cw) {
  if (wide) combine512(t, len, v, ldv, w, ldw, count, cv, cw);
  else combine256(t, len, v, ldv, w, ldw, count, cv, cw);
  return 0;
}

int dots2_fma(int wide, const double *v, int64_t ldv, const double *w, int64_t ldw, int count,
              const double *x, int len, double *ov, double *ow) {
  if (wide) dots512(v, ldv, w, ldw, count, x, len, ov, ow);
  else dots256(v, ldv, w, ldw, count, x, len, ov, ow);
  return 0;
}

/*
 * The panel of the blocked Householder reduction (dlatrd, lower), householder.ts's
 * reducePanel in one call: the same operations in the same order as that TypeScript
 * loop, its three kernels (combine2, dots2, symv) being the fused ones above, so the
 * same bits as the loop with them; the scalar steps (the reflector's norm and scaling,
 * W's scaling and correction) are plain double arithmetic (this file is compiled
 * without contraction), as in TypeScript.
 */
#include <math.h>

int latrd_fma(int wide, double *a, int64_t lda, int n, int i0, int nb, double *e, double *tau,
              double *w, double *coef) {
  double *coefV = coef, *coefW = coef + nb;
  const double *V = a + (int64_t)i0 * lda;
  for (int ii = 0; ii < nb; ii++) {
    const int c = i0 + ii;
    double *col = a + (int64_t)c * lda;
    for (int l = 0; l < ii; l++) {
      coefV[l] = w[(int64_t)l * n + c];
      coefW[l] = V[(int64_t)l * lda + c];
    }
    /* Column c brought up to date with the panel's earlier reflectors. */
    if (ii > 0 && c < n) combine2_fma(wide, col + c, n - c, V + c, lda, w + c, n, ii, coefV, coefW);
    if (c >= n - 1) continue;
    const int o = c + 1, m = n - o;
    /* dlarfg on col[o], col[o + 1 ..]. */
    const double alpha = col[o];
    double ss = 0;
    for (int r = 0; r < m - 1; r++) ss += col[o + 1 + r] * col[o + 1 + r];
    double beta = alpha, ti = 0;
    if (ss != 0) {
      const double norm = sqrt(alpha * alpha + ss);
      beta = alpha >= 0 ? -norm : norm;
      ti = (beta - alpha) / beta;
      const double scale = 1 / (alpha - beta);
      for (int r = 0; r < m - 1; r++) col[o + 1 + r] *= scale;
    }
    e[c] = beta;
    tau[c] = ti;
    col[o] = 1;
    double *wrow = w + (int64_t)ii * n;
    for (int r = o; r < n; r++) wrow[r] = 0;
    symv_fma(wide, a + (int64_t)o * lda + o, lda, m, col + o, wrow + o);
    if (ii > 0) {
      dots2_fma(wide, V + o, lda, w + o, n, ii, col + o, m, coefW, coefV);
      combine2_fma(wide, wrow + o, m, V + o, lda, w + o, n, ii, coefV, coefW);
    }
    double wv = 0;
    for (int r = o; r < n; r++) {
      wrow[r] *= ti;
      wv += wrow[r] * col[r];
    }
    const double shift = -0.5 * ti * wv;
    for (int r = o; r < n; r++) wrow[r] += shift * col[r];
  }
  return 0;
}

#else

int latrd_fma(int wide, double *a, int64_t lda, int n, int i0, int nb, double *e, double *tau,
              double *w, double *coef) {
  (void)wide, (void)a, (void)lda, (void)n, (void)i0, (void)nb, (void)e, (void)tau, (void)w;
  (void)coef;
  return -1;
}

int symv_fma(int wide, const double *a, int64_t lda, int m, const double *x, double *y) {
  (void)wide, (void)a, (void)lda, (void)m, (void)x, (void)y;
  return -1;
}

int combine2_fma(int wide, double *t, int len, const double *v, int64_t ldv, const double *w,
                 int64_t ldw, int count, const double *cv, const double *cw) {
  (void)wide, (void)t, (void)len, (void)v, (void)ldv, (void)w, (void)ldw, (void)count;
  (void)cv, (void)cw;
  return -1;
}

int dots2_fma(int wide, const double *v, int64_t ldv, const double *w, int64_t ldw, int count,
              const double *x, int len, double *ov, double *ow) {
  (void)wide, (void)v, (void)ldv, (void)w, (void)ldw, (void)count, (void)x, (void)len;
  (void)ov, (void)ow;
  return -1;
}

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
