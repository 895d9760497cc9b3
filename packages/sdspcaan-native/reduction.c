/*
 * The Node-API calls of the fast backend's reduction kernels (fma.c): symv, combine2,
 * dots2 and the panel of the blocked Householder reduction, each checked (operands
 * inside the memory) before it runs on the widest width the CPU has, or on AVX2 (the
 * *Avx2 forms; the same bits). gemm.c registers them.
 */
#include <node_api.h>
#include <stdint.h>
#include <string.h>

#include "addon.h"
#include "fma.h"

/*
 * symvFma(memory, a, lda, m, x, y): the fast backend's symv (fma.c; kernels.wat's
 * contract: y[r] += S(r, c) x[c], entry (r, c), r >= c, at a[c lda + r]); byte offsets.
 */
static napi_value run_symv(napi_env env, napi_callback_info info, const char *isa) {
  void *data = NULL;
  size_t length = 0;
  int64_t v[5];
  if (read_arguments(env, info, "symv", "(memory, a, lda, m, x, y)", 6, &data, &length, v) !=
      0) {
    return NULL;
  }
  const int64_t a = v[0], lda = v[1], m = v[2], x = v[3], y = v[4];
  const int64_t len = (int64_t)length;
  if (!inside(a, m, m, lda, len) || !inside(x, 1, m, m, len) || !inside(y, 1, m, m, len)) {
    return throw_range(env, "symv: an operand lies outside the memory");
  }
  if (m == 0) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "symv: this CPU has neither AVX2 with FMA nor AVX-512");
  const int wide = strcmp(isa, "avx512") == 0;
  char *mem = (char *)data;
  symv_fma(wide, (const double *)(mem + a), lda, (int)m, (const double *)(mem + x),
           (double *)(mem + y));
  return kernel_name(env, wide);
#else
  (void)data;
  (void)isa;
  return throw_range(env, "symv: built without the x86-64 kernels");
#endif
  return NULL;
}

/*
 * combine2Fma(memory, t, len, v, ldv, w, ldw, count, cv, cw) and dotsFma(memory, v, ldv,
 * w, ldw, count, x, len, ov, ow): kernels.wat's combine2 and dots2 (byte offsets,
 * leading dimensions in elements) with fma.c's fused loops.
 */
static napi_value run_panel(napi_env env, napi_callback_info info, const char *isa, int dots) {
  void *data = NULL;
  size_t length = 0;
  int64_t v[9];
  if (read_arguments(env, info, dots ? "dots2" : "combine2",
                     dots ? "(memory, v, ldv, w, ldw, count, x, len, ov, ow)"
                          : "(memory, t, len, v, ldv, w, ldw, count, cv, cw)",
                     10, &data, &length, v) != 0) {
    return NULL;
  }
  const int64_t len = (int64_t)length;
  /* In combine2's order: t, len, v, ldv, w, ldw, count, cv, cw. */
  const int64_t t = dots ? v[5] : v[0], n = dots ? v[6] : v[1], pv = dots ? v[0] : v[2],
                ldv = dots ? v[1] : v[3], pw = dots ? v[2] : v[4], ldw = dots ? v[3] : v[5],
                count = dots ? v[4] : v[6], c1 = dots ? v[7] : v[7], c2 = dots ? v[8] : v[8];
  if (!inside(t, 1, n, n, len) || !inside(pv, count, n, ldv, len) ||
      !inside(pw, count, n, ldw, len) || !inside(c1, 1, count, count, len) ||
      !inside(c2, 1, count, count, len)) {
    return throw_range(env, "combine2/dots2: an operand lies outside the memory");
  }
  if (count == 0 || (n == 0 && !dots)) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "combine2/dots2: this CPU has neither AVX2 with FMA nor AVX-512");
  const int wide = strcmp(isa, "avx512") == 0;
  char *mem = (char *)data;
  if (dots) {
    dots2_fma(wide, (const double *)(mem + pv), ldv, (const double *)(mem + pw), ldw, (int)count,
              (const double *)(mem + t), (int)n, (double *)(mem + c1), (double *)(mem + c2));
  } else {
    combine2_fma(wide, (double *)(mem + t), (int)n, (const double *)(mem + pv), ldv,
                 (const double *)(mem + pw), ldw, (int)count, (const double *)(mem + c1),
                 (const double *)(mem + c2));
  }
  return kernel_name(env, wide);
#else
  (void)data;
  (void)isa;
  return throw_range(env, "combine2/dots2: built without the x86-64 kernels");
#endif
  return NULL;
}

/*
 * latrdFma(memory, a, lda, n, i0, nb, e, tau, w, coef): one panel of the blocked
 * Householder reduction (fma.c, latrd_fma; byte offsets, lda in elements).
 */
static napi_value run_latrd(napi_env env, napi_callback_info info, const char *isa) {
  void *data = NULL;
  size_t length = 0;
  int64_t v[9];
  if (read_arguments(env, info, "latrd", "(memory, a, lda, n, i0, nb, e, tau, w, coef)", 10,
                     &data, &length, v) != 0) {
    return NULL;
  }
  const int64_t a = v[0], lda = v[1], n = v[2], i0 = v[3], nb = v[4], e = v[5], tau = v[6],
                w = v[7], coef = v[8];
  const int64_t len = (int64_t)length;
  const int64_t offs = n > 1 ? n - 1 : 1;
  if (i0 + nb > n || !inside(a, n, n, lda, len) || !inside(e, 1, offs, offs, len) ||
      !inside(tau, 1, offs, offs, len) || !inside(w, nb, n, n, len) ||
      !inside(coef, 1, 2 * nb, 2 * nb, len)) {
    return throw_range(env, "latrd: an operand lies outside the memory");
  }
  if (nb == 0) return NULL;
#if SDSPCAAN_X64
  if (isa[0] == '\0') return throw_range(env, "latrd: this CPU has neither AVX2 with FMA nor AVX-512");
  const int wide = strcmp(isa, "avx512") == 0;
  char *mem = (char *)data;
  latrd_fma(wide, (double *)(mem + a), lda, (int)n, (int)i0, (int)nb, (double *)(mem + e),
            (double *)(mem + tau), (double *)(mem + w), (double *)(mem + coef));
  return kernel_name(env, wide);
#else
  (void)data;
  (void)isa;
  return throw_range(env, "latrd: built without the x86-64 kernels");
#endif
  return NULL;
}

napi_value latrd_call(napi_env env, napi_callback_info info) {
  return run_latrd(env, info, cpu_fused_isa());
}

napi_value latrd_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run_latrd(env, info, isa[0] == '\0' ? "" : "avx2");
}

napi_value combine2_call(napi_env env, napi_callback_info info) {
  return run_panel(env, info, cpu_fused_isa(), 0);
}

napi_value combine2_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run_panel(env, info, isa[0] == '\0' ? "" : "avx2", 0);
}

napi_value dots2_call(napi_env env, napi_callback_info info) {
  return run_panel(env, info, cpu_fused_isa(), 1);
}

napi_value dots2_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run_panel(env, info, isa[0] == '\0' ? "" : "avx2", 1);
}

napi_value symv_call(napi_env env, napi_callback_info info) {
  return run_symv(env, info, cpu_fused_isa());
}

napi_value symv_avx2(napi_env env, napi_callback_info info) {
  const char *isa = cpu_fused_isa();
  return run_symv(env, info, isa[0] == '\0' ? "" : "avx2");
}

