/*
 * The double-precision GEMM of the WebAssembly kernels (kernels.wat, `gemm`) as a
 * Node-API addon with 256- or 512-bit vectors: four or eight doubles per instruction
 * against two in WebAssembly SIMD. Node only (src/linalg/kernels/nativeGemm.node.ts
 * loads it and installs it under the wasm module's `gemm`); browsers keep the wasm
 * kernel.
 *
 *   gemm(memory, m, n, p, A, lda, B, ldb, C, ldc): C[i][j] += sum_l A[i][l] B[j][l]
 *
 * for i < m, j < n, l < p, on a WebAssembly memory's ArrayBuffer with A, B, C byte
 * offsets into it and leading dimensions in elements: the wasm export's signature, so
 * every caller's memory handling stays as it is.
 *
 * The same bits as the wasm kernel. Each entry is summed in kernels.wat's order: the
 * contraction is cut into panels of 256 from l = 0; in a panel of length kc the even
 * and the odd l < (kc & ~1) are accumulated in two running sums, each product rounded
 * and then added (no fused multiply-add), the two sums are added, then the last product
 * when kc is odd, and the panel's sum is added to C. Only the way entries are grouped
 * into vectors differs (here one entry per lane, there the even and odd sums of one
 * entry in one f64x2), which changes no operation. So everything that reproduces the
 * wasm kernel's sums (the screened search's exact distances, pruned scans, threaded
 * splits) holds unchanged, and results do not depend on whether the addon is used.
 * The file is compiled with -ffp-contract=off so that the compiler fuses nothing.
 *
 * Blocking (Goto's): per panel, blocks of 256 rows of B are packed into micro-panels of
 * NR rows interleaved by l, and blocks of 96 rows of A into micro-panels of 6; a 6 x NR
 * micro-kernel keeps 12 vector accumulators (6 rows, even and odd l). Edges are packed
 * with zeros: padded rows and columns are computed and dropped. AVX-512F (NR = 8) where
 * the CPU has it, else AVX2 (NR = 4); the kernels carry target attributes, so the addon
 * loads on any x86-64 CPU, and `isa` says which one runs ("" when neither can, and the
 * loader keeps wasm).
 *
 * The fast backend's GEMM is here too (`gemmFma`, `gemmLowerFma`; kernels in fma.c):
 * the same contract with fused multiply-adds, each entry one chain of them in l order,
 * so not these bits (they agree to rounding) but bits of its own that no shape,
 * blocking, width or thread split changes; `fusedIsa` says which width it runs.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"
#include "fma.h"

#if SDSPCAAN_X64
#include <immintrin.h>
#endif

#define KC 256 /* the contraction's panel (fixes the summation order) */
#define NC 256 /* rows of B per packed block */
#define MC 96  /* rows of A per packed block (a multiple of MR) */
#define MR 6  /* rows of A per micro-panel */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

#if SDSPCAAN_X64

/* acc += x * y, rounded twice (no fused multiply-add), as f64x2.mul then f64x2.add. */
#define MULADD(add, mul, acc, x, y) acc = add(acc, mul(x, y))

/*
 * C[r][q] += the panel's sum of Ap[l][r] Bp[l][q] for r < rows, q < cols (a tile of at
 * most 6 x 8; Ap: kc x 6 and Bp: kc x 8 packed, Bp 64-byte aligned), in the order of
 * the file's comment.
 */
__attribute__((target("avx512f"))) static void kernel_avx512(int kc, const double *Ap,
                                                             const double *Bp, double *C,
                                                             int64_t ldc, int rows,
                                                             const int *cols) {
  __m512d e0 = _mm512_setzero_pd(), e1 = e0, e2 = e0, e3 = e0, e4 = e0, e5 = e0;
  __m512d o0 = e0, o1 = e0, o2 = e0, o3 = e0, o4 = e0, o5 = e0;
  const int k2 = kc & ~1;
  for (int l = 0; l < k2; l += 2) {
    const __m512d b = _mm512_load_pd(Bp + 8 * l);
    const __m512d c = _mm512_load_pd(Bp + 8 * l + 8);
    const double *a = Ap + 6 * l;
    MULADD(_mm512_add_pd, _mm512_mul_pd, e0, _mm512_set1_pd(a[0]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, e1, _mm512_set1_pd(a[1]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, e2, _mm512_set1_pd(a[2]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, e3, _mm512_set1_pd(a[3]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, e4, _mm512_set1_pd(a[4]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, e5, _mm512_set1_pd(a[5]), b);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o0, _mm512_set1_pd(a[6]), c);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o1, _mm512_set1_pd(a[7]), c);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o2, _mm512_set1_pd(a[8]), c);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o3, _mm512_set1_pd(a[9]), c);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o4, _mm512_set1_pd(a[10]), c);
    MULADD(_mm512_add_pd, _mm512_mul_pd, o5, _mm512_set1_pd(a[11]), c);
  }
  __m512d s[6] = {_mm512_add_pd(e0, o0), _mm512_add_pd(e1, o1), _mm512_add_pd(e2, o2),
                  _mm512_add_pd(e3, o3), _mm512_add_pd(e4, o4), _mm512_add_pd(e5, o5)};
  if (kc & 1) {
    const __m512d b = _mm512_load_pd(Bp + 8 * k2);
    for (int r = 0; r < 6; r++) {
      MULADD(_mm512_add_pd, _mm512_mul_pd, s[r], _mm512_set1_pd(Ap[6 * k2 + r]), b);
    }
  }
  double t[8];
  for (int r = 0; r < rows; r++) {
    double *cr = C + r * ldc;
    if (cols[r] == 8) {
      _mm512_storeu_pd(cr, _mm512_add_pd(_mm512_loadu_pd(cr), s[r]));
    } else {
      _mm512_storeu_pd(t, s[r]);
      for (int q = 0; q < cols[r]; q++) cr[q] += t[q];
    }
  }
}

/* kernel_avx512 with four columns per vector (tiles of at most 6 x 4). */
__attribute__((target("avx2"))) static void kernel_avx2(int kc, const double *Ap,
                                                        const double *Bp, double *C,
                                                        int64_t ldc, int rows,
                                                        const int *cols) {
  __m256d e0 = _mm256_setzero_pd(), e1 = e0, e2 = e0, e3 = e0, e4 = e0, e5 = e0;
  __m256d o0 = e0, o1 = e0, o2 = e0, o3 = e0, o4 = e0, o5 = e0;
  const int k2 = kc & ~1;
  for (int l = 0; l < k2; l += 2) {
    const __m256d b = _mm256_load_pd(Bp + 4 * l);
    const __m256d c = _mm256_load_pd(Bp + 4 * l + 4);
    const double *a = Ap + 6 * l;
    MULADD(_mm256_add_pd, _mm256_mul_pd, e0, _mm256_broadcast_sd(a), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, e1, _mm256_broadcast_sd(a + 1), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, e2, _mm256_broadcast_sd(a + 2), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, e3, _mm256_broadcast_sd(a + 3), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, e4, _mm256_broadcast_sd(a + 4), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, e5, _mm256_broadcast_sd(a + 5), b);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o0, _mm256_broadcast_sd(a + 6), c);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o1, _mm256_broadcast_sd(a + 7), c);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o2, _mm256_broadcast_sd(a + 8), c);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o3, _mm256_broadcast_sd(a + 9), c);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o4, _mm256_broadcast_sd(a + 10), c);
    MULADD(_mm256_add_pd, _mm256_mul_pd, o5, _mm256_broadcast_sd(a + 11), c);
  }
  __m256d s[6] = {_mm256_add_pd(e0, o0), _mm256_add_pd(e1, o1), _mm256_add_pd(e2, o2),
                  _mm256_add_pd(e3, o3), _mm256_add_pd(e4, o4), _mm256_add_pd(e5, o5)};
  if (kc & 1) {
    const __m256d b = _mm256_load_pd(Bp + 4 * k2);
    for (int r = 0; r < 6; r++) {
      MULADD(_mm256_add_pd, _mm256_mul_pd, s[r], _mm256_broadcast_sd(Ap + 6 * k2 + r), b);
    }
  }
  double t[4];
  for (int r = 0; r < rows; r++) {
    double *cr = C + r * ldc;
    if (cols[r] == 4) {
      _mm256_storeu_pd(cr, _mm256_add_pd(_mm256_loadu_pd(cr), s[r]));
    } else {
      _mm256_storeu_pd(t, s[r]);
      for (int q = 0; q < cols[r]; q++) cr[q] += t[q];
    }
  }
}

typedef void (*micro_kernel)(int, const double *, const double *, double *, int64_t, int,
                             const int *);

/* Rows [0, count) of X (leading dimension ld), columns [0, kc), into micro-panels of
 * `width` rows interleaved by column (kc x width each), zero beyond `count`. */
static void pack(const double *X, int64_t ld, int count, int kc, int width, double *out) {
  for (int r0 = 0; r0 < count; r0 += width) {
    const int rows = count - r0 < width ? count - r0 : width;
    double *dst = out + (int64_t)r0 * kc;
    for (int r = 0; r < width; r++) {
      if (r < rows) {
        const double *src = X + (int64_t)(r0 + r) * ld;
        for (int l = 0; l < kc; l++) dst[l * width + r] = src[l];
      } else {
        for (int l = 0; l < kc; l++) dst[l * width + r] = 0.0;
      }
    }
  }
}

/*
 * C += A B^T on rows [0, m) of A and C and rows [0, n) of B, where row r of C only takes
 * columns [0, limit(r)): limit(r) = n for the full product (block = 0), else
 * min(n, base + (r / block + 1) * block), the lower block rows of gemm.ts's
 * lowerBlockRowsInArena (row r's block row and every block left of it, the row's
 * diagonal block whole). Tiles wholly right of their rows' limits are skipped, and B's
 * and A's blocks that no kept entry needs are not packed. Each kept entry is summed over
 * the same panels in the same order as by the full product, so it has its bits; the
 * entries beyond the limits are left as they were.
 * 0, or -1 when the packing buffers could not be allocated.
 */
static int gemm_blocked(micro_kernel kernel, int nr, int m, int n, int p, const double *A,
                        int64_t lda, const double *B, int64_t ldb, double *C, int64_t ldc,
                        int base, int block) {
  double *Ap = aligned_alloc(64, sizeof(double) * (MC + MR) * KC);
  double *Bp = aligned_alloc(64, sizeof(double) * (NC + 8) * KC);
  if (Ap == NULL || Bp == NULL) {
    free(Ap);
    free(Bp);
    return -1;
  }
#define LIMIT(r) (block == 0 ? n : (int)min64(n, (int64_t)base + ((r) / block + 1) * (int64_t)block))
  for (int l0 = 0; l0 < p; l0 += KC) {
    const int kc = p - l0 < KC ? p - l0 : KC;
    for (int j0 = 0; j0 < n; j0 += NC) {
      /* The limit grows with the row: the last row's is the largest. */
      if (LIMIT(m - 1) <= j0) break;
      const int nc = n - j0 < NC ? n - j0 : NC;
      pack(B + j0 * ldb + l0, ldb, nc, kc, nr, Bp);
      for (int i0 = 0; i0 < m; i0 += MC) {
        const int mc = m - i0 < MC ? m - i0 : MC;
        if (LIMIT(i0 + mc - 1) <= j0) continue;
        pack(A + i0 * lda + l0, lda, mc, kc, MR, Ap);
        for (int jr = 0; jr < nc; jr += nr) {
          const int cols = nc - jr < nr ? nc - jr : nr;
          for (int ir = 0; ir < mc; ir += MR) {
            const int rows = mc - ir < MR ? mc - ir : MR;
            int per_row[MR];
            for (int r = 0; r < rows; r++) {
              const int room = LIMIT(i0 + ir + r) - (j0 + jr);
              per_row[r] = room <= 0 ? 0 : room < cols ? room : cols;
            }
            if (per_row[rows - 1] == 0) continue;
            kernel(kc, Ap + (int64_t)ir * kc, Bp + (int64_t)jr * kc, C + (i0 + ir) * ldc + j0 + jr,
                   ldc, rows, per_row);
          }
        }
      }
    }
  }
#undef LIMIT
  free(Ap);
  free(Bp);
  return 0;
}

/*
 * The single-precision screen (kernels.wat's `gemm32`): C[i][j] = sum_l A[i][l] B[j][l]
 * with A and B in single precision and C in double, overwritten. Unlike `gemm` it does
 * not reproduce the module's bits, and need not: gemm32 only screens candidates, and its
 * caller (src/linalg/kernels/screenedSearch.ts) bounds the error of any summation order
 * of the p terms, with or without fused multiply-adds (Higham, Accuracy and Stability,
 * 3.1), before it decides every distance exactly in double precision. So the
 * neighbours found are the same; only which pairs are looked at exactly may differ.
 * Here the products are fused (FMA) and each entry is summed in single precision in
 * 16 (AVX-512) or 8 (AVX2) lanes over l, the lanes added at the end, then the tail.
 *
 * The screen's shapes are a few rows of A (a block of 16 to 256 rows) against up to n
 * rows of B, so nothing is packed (packing B would cost about what the product does):
 * each entry is a dot product along the rows, 4 x 4 entries at a time in 16 vector
 * accumulators, the lanes summed at the end and then the p % width tail.
 */

/* The dot product of a and b over p floats (edge entries). */
__attribute__((target("avx512f"))) static float dot32_avx512(const float *a, const float *b,
                                                             int p) {
  __m512 s = _mm512_setzero_ps();
  const int p16 = p & ~15;
  for (int l = 0; l < p16; l += 16) {
    s = _mm512_fmadd_ps(_mm512_loadu_ps(a + l), _mm512_loadu_ps(b + l), s);
  }
  float t = _mm512_reduce_add_ps(s);
  for (int l = p16; l < p; l++) t += a[l] * b[l];
  return t;
}

/* C[i][j] for i < 4, j < 4 (rows a, a + lda, ..; b, b + ldb, ..). */
__attribute__((target("avx512f"))) static void tile32_avx512(const float *a, int64_t lda,
                                                             const float *b, int64_t ldb,
                                                             int p, double *C, int64_t ldc) {
  __m512 s[4][4];
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) s[i][j] = _mm512_setzero_ps();
  }
  const int p16 = p & ~15;
  for (int l = 0; l < p16; l += 16) {
    const __m512 x0 = _mm512_loadu_ps(a + l), x1 = _mm512_loadu_ps(a + lda + l),
                 x2 = _mm512_loadu_ps(a + 2 * lda + l), x3 = _mm512_loadu_ps(a + 3 * lda + l);
    for (int j = 0; j < 4; j++) {
      const __m512 y = _mm512_loadu_ps(b + j * ldb + l);
      s[0][j] = _mm512_fmadd_ps(x0, y, s[0][j]);
      s[1][j] = _mm512_fmadd_ps(x1, y, s[1][j]);
      s[2][j] = _mm512_fmadd_ps(x2, y, s[2][j]);
      s[3][j] = _mm512_fmadd_ps(x3, y, s[3][j]);
    }
  }
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      float t = _mm512_reduce_add_ps(s[i][j]);
      const float *ai = a + i * lda, *bj = b + j * ldb;
      for (int l = p16; l < p; l++) t += ai[l] * bj[l];
      C[i * ldc + j] = (double)t;
    }
  }
}

__attribute__((target("avx2,fma"))) static float hsum256(__m256 s) {
  const __m128 q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  const __m128 h = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));
}

__attribute__((target("avx2,fma"))) static float dot32_avx2(const float *a, const float *b,
                                                            int p) {
  __m256 s = _mm256_setzero_ps();
  const int p8 = p & ~7;
  for (int l = 0; l < p8; l += 8) {
    s = _mm256_fmadd_ps(_mm256_loadu_ps(a + l), _mm256_loadu_ps(b + l), s);
  }
  float t = hsum256(s);
  for (int l = p8; l < p; l++) t += a[l] * b[l];
  return t;
}

__attribute__((target("avx2,fma"))) static void tile32_avx2(const float *a, int64_t lda,
                                                            const float *b, int64_t ldb, int p,
                                                            double *C, int64_t ldc) {
  __m256 s[4][4];
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) s[i][j] = _mm256_setzero_ps();
  }
  const int p8 = p & ~7;
  for (int l = 0; l < p8; l += 8) {
    const __m256 x0 = _mm256_loadu_ps(a + l), x1 = _mm256_loadu_ps(a + lda + l),
                 x2 = _mm256_loadu_ps(a + 2 * lda + l), x3 = _mm256_loadu_ps(a + 3 * lda + l);
    for (int j = 0; j < 4; j++) {
      const __m256 y = _mm256_loadu_ps(b + j * ldb + l);
      s[0][j] = _mm256_fmadd_ps(x0, y, s[0][j]);
      s[1][j] = _mm256_fmadd_ps(x1, y, s[1][j]);
      s[2][j] = _mm256_fmadd_ps(x2, y, s[2][j]);
      s[3][j] = _mm256_fmadd_ps(x3, y, s[3][j]);
    }
  }
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      float t = hsum256(s[i][j]);
      const float *ai = a + i * lda, *bj = b + j * ldb;
      for (int l = p8; l < p; l++) t += ai[l] * bj[l];
      C[i * ldc + j] = (double)t;
    }
  }
}

typedef void (*tile_kernel32)(const float *, int64_t, const float *, int64_t, int, double *,
                              int64_t);
typedef float (*dot_kernel32)(const float *, const float *, int);

/* Rows of B by blocks of 4 (held in L1 while every row of A meets them), rows of A by 4. */
static void gemm32_tiles(tile_kernel32 tile, dot_kernel32 dot, int m, int n, int p,
                         const float *A, int64_t lda, const float *B, int64_t ldb, double *C,
                         int64_t ldc) {
  const int m4 = m & ~3, n4 = n & ~3;
  for (int j = 0; j < n; j += 4) {
    const float *b = B + (int64_t)j * ldb;
    for (int i = 0; i < m; i += 4) {
      const float *a = A + (int64_t)i * lda;
      double *c = C + (int64_t)i * ldc + j;
      if (i < m4 && j < n4) {
        tile(a, lda, b, ldb, p, c, ldc);
      } else {
        for (int r = 0; r < 4 && i + r < m; r++) {
          for (int q = 0; q < 4 && j + q < n; q++) {
            c[r * ldc + q] = (double)dot(a + r * lda, b + q * ldb, p);
          }
        }
      }
    }
  }
}

/* "avx512", "avx2" or "" (neither: the addon cannot run here). */
const char *cpu_isa(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  return "";
}

/* The fused kernels' width: AVX-512F carries its own FMA; AVX2 needs the FMA extension. */
const char *cpu_fused_isa(void) {
  const char *isa = cpu_isa();
  if (isa[0] == 'a' && strcmp(isa, "avx2") == 0 && !__builtin_cpu_supports("fma")) return "";
  return isa;
}

#else

const char *cpu_isa(void) { return ""; }
const char *cpu_fused_isa(void) { return ""; }

#endif

napi_value throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, NULL, message);
  return NULL;
}

/* Whether [offset, offset + size * ((rows - 1) * ld + cols)) lies in a buffer of `length`
 * bytes, offset aligned to `size`. */
int inside_sized(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t length,
                        int64_t size) {
  if (rows == 0 || cols == 0) return offset >= 0 && offset <= length;
  return offset >= 0 && offset % size == 0 && ld >= cols &&
         offset + size * ((rows - 1) * ld + cols) <= length;
}

int inside(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t length) {
  return inside_sized(offset, rows, cols, ld, length, 8);
}

/*
 * The arguments every call shares, checked: argc must be `expected` (the memory, then
 * expected - 1 integers into v, each an int32 >= 0). 0, or -1 with a RangeError thrown
 * that names `name` and `signature`.
 */
int read_arguments(napi_env env, napi_callback_info info, const char *name,
                          const char *signature, size_t expected, void **data, size_t *length,
                          int64_t *v) {
  size_t argc = 12;
  napi_value argv[12];
  char message[160];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != expected) {
    snprintf(message, sizeof message, "%s: expected %s", name, signature);
    throw_range(env, message);
    return -1;
  }
  if (napi_get_arraybuffer_info(env, argv[0], data, length) != napi_ok) {
    snprintf(message, sizeof message, "%s: the first argument must be an ArrayBuffer", name);
    throw_range(env, message);
    return -1;
  }
  for (size_t t = 0; t + 1 < expected; t++) {
    if (napi_get_value_int64(env, argv[t + 1], &v[t]) != napi_ok || v[t] < 0 ||
        v[t] > INT32_MAX) {
      snprintf(message, sizeof message,
               "%s: sizes, offsets and leading dimensions must be int32 >= 0", name);
      throw_range(env, message);
      return -1;
    }
  }
  return 0;
}

/* The name of the kernel that ran, so that tests can tell the dispatch worked. */
napi_value kernel_name(napi_env env, int wide) {
  napi_value used;
  napi_create_string_utf8(env, wide ? "avx512" : "avx2", NAPI_AUTO_LENGTH, &used);
  return used;
}

/*
 * A packing buffer per Node environment (the main thread and each worker thread has its
 * own), kept between calls and grown when a call needs more: allocating it per call
 * would map and fault its pages in every time. Freed with the environment.
 */
typedef struct {
  double *data;
  int64_t doubles;
} packing_buffer;

static void free_packing_buffer(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  packing_buffer *buffer = (packing_buffer *)data;
  free(buffer->data);
  free(buffer);
}

/* The environment's buffer with room for `doubles`, or NULL when memory is short. */
static double *packing_space(napi_env env, int64_t doubles) {
  packing_buffer *buffer = NULL;
  if (napi_get_instance_data(env, (void **)&buffer) != napi_ok || buffer == NULL) {
    buffer = calloc(1, sizeof *buffer);
    if (buffer == NULL) return NULL;
    if (napi_set_instance_data(env, buffer, free_packing_buffer, NULL) != napi_ok) {
      free(buffer);
      return NULL;
    }
  }
  if (buffer->doubles < doubles) {
    free(buffer->data);
    buffer->data = malloc(sizeof(double) * (size_t)doubles);
    buffer->doubles = buffer->data == NULL ? 0 : doubles;
  }
  return buffer->data;
}

/* gemm's arguments checked (and gemmLower's two more), then the product on `isa`
 * ("avx512" or "avx2"), with the module's bits or (`fused`) fma.c's chains; returns
 * the name of the kernel that ran (undefined for an empty product). */
static napi_value run(napi_env env, napi_callback_info info, const char *isa, int lower,
                      int fused) {
  void *data = NULL;
  size_t length = 0;
  int64_t v[11];
  if (read_arguments(env, info, lower ? "gemmLower" : "gemm",
                     lower ? "(memory, m, n, p, A, lda, B, ldb, C, ldc, base, block)"
                           : "(memory, m, n, p, A, lda, B, ldb, C, ldc)",
                     lower ? 12 : 10, &data, &length, v) != 0) {
    return NULL;
  }
  const int64_t m = v[0], n = v[1], p = v[2], A = v[3], lda = v[4], B = v[5], ldb = v[6],
                C = v[7], ldc = v[8];
  const int64_t base = lower ? v[9] : 0, block = lower ? v[10] : 0;
  if (lower && block == 0) return throw_range(env, "gemmLower: the block must be positive");
  const int64_t len = (int64_t)length;
  if (!inside(A, m, p, lda, len) || !inside(B, n, p, ldb, len) || !inside(C, m, n, ldc, len)) {
    return throw_range(env, "gemm: an operand lies outside the memory");
  }
  if (m == 0 || n == 0 || p == 0) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "gemm: this CPU has neither AVX2 nor AVX-512");
  const int wide = strcmp(isa, "avx512") == 0;
  char *mem = (char *)data;
  if (fused) {
    double *buffer = packing_space(env, gemm_fma_buffer_doubles((int)n, (int)p));
    if (buffer == NULL ||
        gemm_fma(wide, (int)m, (int)n, (int)p, (const double *)(mem + A), lda,
                 (const double *)(mem + B), ldb, (double *)(mem + C), ldc, (int)base,
                 (int)block, buffer) != 0) {
      return throw_range(env, "gemm: no memory for the packing buffers");
    }
    return kernel_name(env, wide);
  }
  if (gemm_blocked(wide ? kernel_avx512 : kernel_avx2, wide ? 8 : 4, (int)m, (int)n, (int)p,
                   (const double *)(mem + A), lda, (const double *)(mem + B), ldb,
                   (double *)(mem + C), ldc, (int)base, (int)block) != 0) {
    return throw_range(env, "gemm: no memory for the packing buffers");
  }
  return kernel_name(env, wide);
#else
  (void)data;
  (void)isa;
  (void)base;
  (void)block;
  (void)fused;
  return throw_range(env, "gemm: built without the x86-64 kernels");
#endif
  return NULL;
}

/* The widest kernel this CPU runs. */
static napi_value gemm(napi_env env, napi_callback_info info) {
  return run(env, info, cpu_isa(), 0, 0);
}

/* The AVX2 kernel even where AVX-512 runs (for tests and measurements: the same bits). */
static napi_value gemm_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_isa();
  return run(env, info, isa[0] == '\0' ? "" : "avx2", 0, 0);
}

/*
 * gemmFma(memory, m, n, p, A, lda, B, ldb, C, ldc): the fast backend's product (fma.c:
 * every entry one chain of fused multiply-adds, so both widths give the same bits).
 */
static napi_value gemm_fma_call(napi_env env, napi_callback_info info) {
  return run(env, info, cpu_fused_isa(), 0, 1);
}

static napi_value gemm_fma_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run(env, info, isa[0] == '\0' ? "" : "avx2", 0, 1);
}

/* gemmLowerFma: gemmFma on the lower block rows (gemmLower's contract, gemmFma's bits). */
static napi_value gemm_lower_fma(napi_env env, napi_callback_info info) {
  return run(env, info, cpu_fused_isa(), 1, 1);
}

static napi_value gemm_lower_fma_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run(env, info, isa[0] == '\0' ? "" : "avx2", 1, 1);
}

/*
 * gemmLower(memory, m, n, p, A, lda, B, ldb, C, ldc, base, block): gemm restricted to
 * the lower block rows (row r of C to columns [0, min(n, base + (r / block + 1) block))),
 * in one call: B's blocks are packed once for all block rows, where one gemm call per
 * block row packs them again for every row. Each kept entry has gemm's bits.
 */
static napi_value gemm_lower(napi_env env, napi_callback_info info) {
  return run(env, info, cpu_isa(), 1, 0);
}

static napi_value gemm_lower_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_isa();
  return run(env, info, isa[0] == '\0' ? "" : "avx2", 1, 0);
}

/* gemm32(memory, m, n, p, A, lda, B, ldb, C, ldc): the single-precision screen (A and B
 * floats, C doubles, overwritten); returns the kernel that ran. */
static napi_value run32(napi_env env, napi_callback_info info, const char *isa) {
  void *data = NULL;
  size_t length = 0;
  int64_t v[9];
  if (read_arguments(env, info, "gemm32", "(memory, m, n, p, A, lda, B, ldb, C, ldc)", 10,
                     &data, &length, v) != 0) {
    return NULL;
  }
  const int64_t m = v[0], n = v[1], p = v[2], A = v[3], lda = v[4], B = v[5], ldb = v[6],
                C = v[7], ldc = v[8];
  const int64_t len = (int64_t)length;
  if (!inside_sized(A, m, p, lda, len, 4) || !inside_sized(B, n, p, ldb, len, 4) ||
      !inside(C, m, n, ldc, len)) {
    return throw_range(env, "gemm32: an operand lies outside the memory");
  }
  if (m == 0 || n == 0) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "gemm32: this CPU has neither AVX2 nor AVX-512");
  char *mem = (char *)data;
  if (p == 0) {
    for (int64_t i = 0; i < m; i++) memset(mem + C + 8 * i * ldc, 0, 8 * (size_t)n);
    return NULL;
  }
  const int wide = strcmp(isa, "avx512") == 0;
  gemm32_tiles(wide ? tile32_avx512 : tile32_avx2, wide ? dot32_avx512 : dot32_avx2, (int)m,
               (int)n, (int)p, (const float *)(mem + A), lda, (const float *)(mem + B), ldb,
               (double *)(mem + C), ldc);
  return kernel_name(env, wide);
#else
  (void)data;
  (void)isa;
  return throw_range(env, "gemm32: built without the x86-64 kernels");
#endif
  return NULL;
}

static napi_value gemm32(napi_env env, napi_callback_info info) {
  return run32(env, info, cpu_isa());
}

static napi_value gemm32_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_isa();
  return run32(env, info, isa[0] == '\0' ? "" : "avx2");
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  static const struct {
    const char *name;
    napi_callback call;
  } functions[] = {
      {"gemm", gemm},           {"gemmAvx2", gemm_avx2}, {"gemmLower", gemm_lower},
      {"gemmLowerAvx2", gemm_lower_avx2}, {"gemm32", gemm32}, {"gemm32Avx2", gemm32_avx2},
      {"gemmFma", gemm_fma_call}, {"gemmFmaAvx2", gemm_fma_avx2},
      {"gemmLowerFma", gemm_lower_fma}, {"gemmLowerFmaAvx2", gemm_lower_fma_avx2},
      {"symvFma", symv_call}, {"symvFmaAvx2", symv_avx2},
      {"combine2Fma", combine2_call}, {"combine2FmaAvx2", combine2_avx2},
      {"dots2Fma", dots2_call}, {"dots2FmaAvx2", dots2_avx2},
      {"latrdFma", latrd_call}, {"latrdFmaAvx2", latrd_avx2},
  };
  napi_value value;
  for (size_t t = 0; t < sizeof functions / sizeof functions[0]; t++) {
    napi_create_function(env, functions[t].name, NAPI_AUTO_LENGTH, functions[t].call, NULL,
                         &value);
    napi_set_named_property(env, exports, functions[t].name, value);
  }
  napi_create_string_utf8(env, cpu_isa(), NAPI_AUTO_LENGTH, &value);
  napi_set_named_property(env, exports, "isa", value);
  napi_create_string_utf8(env, cpu_fused_isa(), NAPI_AUTO_LENGTH, &value);
  napi_set_named_property(env, exports, "fusedIsa", value);
  return exports;
}
