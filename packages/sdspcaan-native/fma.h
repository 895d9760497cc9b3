/*
 * The fast backend's GEMM with fused multiply-adds (fma.c): C += A B^T on rows [0, m)
 * of A and C and rows [0, n) of B, contraction p, every entry one chain of fused
 * multiply-adds from C's value in l order. `wide`: the AVX-512F kernel, else AVX2 with
 * FMA. `block` > 0 restricts row r of C to columns [0, min(n, base + (r / block + 1)
 * block)) (the lower block rows, as gemm.c's gemm_blocked), leaving the others as they
 * are; 0 computes every column. `buffer` holds at least gemm_fma_buffer_doubles(n, p)
 * doubles of packing space. Returns 0, or -1 where the kernels are not compiled in.
 */
#ifndef SDSPCAAN_FMA_H
#define SDSPCAAN_FMA_H
#include <stdint.h>

int64_t gemm_fma_buffer_doubles(int n, int p);

int gemm_fma(int wide, int m, int n, int p, const double *A, int64_t lda, const double *B,
             int64_t ldb, double *C, int64_t ldc, int base, int block, double *buffer);

#endif
