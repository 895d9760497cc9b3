/*
 * What the addon's files share (gemm.c defines them): the CPU's widths, the argument
 * checks of every call, and the calls of reduction.c that gemm.c registers.
 */
#ifndef SDSPCAAN_ADDON_H
#define SDSPCAAN_ADDON_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64)
#define SDSPCAAN_X64 1
#else
#define SDSPCAAN_X64 0
#endif

/* "avx512", "avx2" or "": the widest kernel, and the widest fused kernel (AVX2 needs FMA). */
const char *cpu_isa(void);
const char *cpu_fused_isa(void);

napi_value throw_range(napi_env env, const char *message);
/* Whether [offset, offset + size ((rows - 1) ld + cols)) lies in `length` bytes, aligned. */
int inside_sized(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t length,
                 int64_t size);
int inside(int64_t offset, int64_t rows, int64_t cols, int64_t ld, int64_t length);
/* argc must be `expected`: the memory, then expected - 1 int32s >= 0 into v; else -1 thrown. */
int read_arguments(napi_env env, napi_callback_info info, const char *name,
                   const char *signature, size_t expected, void **data, size_t *length,
                   int64_t *v);
/* "avx512" or "avx2": which kernel ran. */
napi_value kernel_name(napi_env env, int wide);

napi_value symv_call(napi_env env, napi_callback_info info);
napi_value symv_avx2(napi_env env, napi_callback_info info);
napi_value combine2_call(napi_env env, napi_callback_info info);
napi_value combine2_avx2(napi_env env, napi_callback_info info);
napi_value dots2_call(napi_env env, napi_callback_info info);
napi_value dots2_avx2(napi_env env, napi_callback_info info);
napi_value latrd_call(napi_env env, napi_callback_info info);
napi_value latrd_avx2(napi_env env, napi_callback_info info);

#endif
