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
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define SDSPCAAN_X64 1
#else
#define SDSPCAAN_X64 0
#endif

#define KC 256 /* the contraction's panel (fixes the summation order) */
#define NC 256 /* rows of B per packed block */
#define MC 96  /* rows of A per packed block (a multiple of MR) */
#define MR 6  /* rows of A per micro-panel */

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
                                                             int64_t ldc, int rows, int cols) {
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
    if (cols == 8) {
      _mm512_storeu_pd(cr, _mm512_add_pd(_mm512_loadu_pd(cr), s[r]));
    } else {
      _mm512_storeu_pd(t, s[r]);
      for (int q = 0; q < cols; q++) cr[q] += t[q];
    }
  }
}

/* kernel_avx512 with four columns per vector (tiles of at most 6 x 4). */
__attribute__((target("avx2"))) static void kernel_avx2(int kc, const double *Ap,
                                                        const double *Bp, double *C,
                                                        int64_t ldc, int rows, int cols) {
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
    if (cols == 4) {
      _mm256_storeu_pd(cr, _mm256_add_pd(_mm256_loadu_pd(cr), s[r]));
    } else {
      _mm256_storeu_pd(t, s[r]);
      for (int q = 0; q < cols; q++) cr[q] += t[q];
    }
  }
}

typedef void (*micro_kernel)(int, const double *, const double *, double *, int64_t, int, int);

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

/* 0, or -1 when the packing buffers could not be allocated. */
static int gemm_blocked(micro_kernel kernel, int nr, int m, int n, int p, const double *A,
                        int64_t lda, const double *B, int64_t ldb, double *C, int64_t ldc) {
  double *Ap = aligned_alloc(64, sizeof(double) * (MC + MR) * KC);
  double *Bp = aligned_alloc(64, sizeof(double) * (NC + 8) * KC);
  if (Ap == NULL || Bp == NULL) {
    free(Ap);
    free(Bp);
    return -1;
  }
  for (int l0 = 0; l0 < p; l0 += KC) {
    const int kc = p - l0 < KC ? p - l0 : KC;
    for (int j0 = 0; j0 < n; j0 += NC) {
      const int nc = n - j0 < NC ? n - j0 : NC;
      pack(B + j0 * ldb + l0, ldb, nc, kc, nr, Bp);
      for (int i0 = 0; i0 < m; i0 += MC) {
        const int mc = m - i0 < MC ? m - i0 : MC;
        pack(A + i0 * lda + l0, lda, mc, kc, MR, Ap);
        for (int jr = 0; jr < nc; jr += nr) {
          const int cols = nc - jr < nr ? nc - jr : nr;
          for (int ir = 0; ir < mc; ir += MR) {
            const int rows = mc - ir < MR ? mc - ir : MR;
            kernel(kc, Ap + (int64_t)ir * kc, Bp + (int64_t)jr * kc, C + (i0 + ir) * ldc + j0 + jr,
                   ldc, rows, cols);
          }
        }
      }
    }
  }
  free(Ap);
  free(Bp);
  return 0;
}

/* "avx512", "avx2" or "" (neither: the addon cannot run here). */
static const char *cpu_isa(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  return "";
}

#else

static const char *cpu_isa(void) { return ""; }

#endif

static napi_value throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, NULL, message);
  return NULL;
}

/* Whether [offset, offset + 8 * ((rows - 1) * ld + cols)) lies in a buffer of `length` bytes. */
static int inside(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t length) {
  if (rows == 0 || cols == 0) return offset >= 0 && offset <= length;
  return offset >= 0 && offset % 8 == 0 && ld >= cols &&
         offset + 8 * ((rows - 1) * ld + cols) <= length;
}

/* gemm's arguments checked, then the product on `isa` ("avx512" or "avx2"); returns the
 * name of the kernel that ran (undefined for an empty product). */
static napi_value run(napi_env env, napi_callback_info info, const char *isa) {
  size_t argc = 10;
  napi_value argv[10];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 10) {
    return throw_range(env, "gemm: expected (memory, m, n, p, A, lda, B, ldb, C, ldc)");
  }
  void *data = NULL;
  size_t length = 0;
  if (napi_get_arraybuffer_info(env, argv[0], &data, &length) != napi_ok) {
    return throw_range(env, "gemm: the first argument must be an ArrayBuffer");
  }
  int64_t v[9];
  for (int t = 0; t < 9; t++) {
    if (napi_get_value_int64(env, argv[t + 1], &v[t]) != napi_ok || v[t] < 0 ||
        v[t] > INT32_MAX) {
      return throw_range(env, "gemm: sizes, offsets and leading dimensions must be int32 >= 0");
    }
  }
  const int64_t m = v[0], n = v[1], p = v[2], A = v[3], lda = v[4], B = v[5], ldb = v[6],
                C = v[7], ldc = v[8];
  const int64_t len = (int64_t)length;
  if (!inside(A, m, p, lda, len) || !inside(B, n, p, ldb, len) || !inside(C, m, n, ldc, len)) {
    return throw_range(env, "gemm: an operand lies outside the memory");
  }
  if (m == 0 || n == 0 || p == 0) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "gemm: this CPU has neither AVX2 nor AVX-512");
  const int wide = strcmp(isa, "avx512") == 0;
  char *base = (char *)data;
  if (gemm_blocked(wide ? kernel_avx512 : kernel_avx2, wide ? 8 : 4, (int)m, (int)n, (int)p,
                   (const double *)(base + A), lda, (const double *)(base + B), ldb,
                   (double *)(base + C), ldc) != 0) {
    return throw_range(env, "gemm: no memory for the packing buffers");
  }
  /* The kernel that ran, so that tests can tell the dispatch worked. */
  napi_value used;
  napi_create_string_utf8(env, wide ? "avx512" : "avx2", NAPI_AUTO_LENGTH, &used);
  return used;
#else
  (void)data;
  (void)isa;
  return throw_range(env, "gemm: built without the x86-64 kernels");
#endif
  return NULL;
}

/* The widest kernel this CPU runs. */
static napi_value gemm(napi_env env, napi_callback_info info) { return run(env, info, cpu_isa()); }

/* The AVX2 kernel even where AVX-512 runs (for tests and measurements: the same bits). */
static napi_value gemm_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_isa();
  return run(env, info, isa[0] == '\0' ? "" : "avx2");
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_value value;
  napi_create_function(env, "gemm", NAPI_AUTO_LENGTH, gemm, NULL, &value);
  napi_set_named_property(env, exports, "gemm", value);
  napi_create_function(env, "gemmAvx2", NAPI_AUTO_LENGTH, gemm_avx2, NULL, &value);
  napi_set_named_property(env, exports, "gemmAvx2", value);
  napi_create_string_utf8(env, cpu_isa(), NAPI_AUTO_LENGTH, &value);
  napi_set_named_property(env, exports, "isa", value);
  return exports;
}
