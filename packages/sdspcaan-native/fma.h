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

/*
 * symv with fused multiply-adds: y[r] += sum_c S(r, c) x[c] for the symmetric m x m S whose
 * entry (r, c), r >= c, is a[c * lda + r] (kernels.wat's `symv` contract), four columns
 * per sweep, each column's dot product in 8 lanes added in a fixed order, so the same
 * bits at either width. Returns 0, or -1 where the kernels are not compiled in.
 */
int symv_fma(int wide, const double *a, int64_t lda, int m, const double *x, double *y);

/*
 * kernels.wat's combine2 (t[r] -= sum_l v_l[r] cv[l] + w_l[r] cw[l], r < len) and dots2
 * (ov[l] = v_l . x, ow[l] = w_l . x, l < count; v_l = v + l ldv, w_l = w + l ldw) with
 * fused multiply-adds, in orders no vector width changes. 0, or -1 without the kernels.
 */
int combine2_fma(int wide, double *t, int len, const double *v, int64_t ldv, const double *w,
                 int64_t ldw, int count, const double *cv, const double *cw);
int dots2_fma(int wide, const double *v, int64_t ldv, const double *w, int64_t ldw, int count,
              const double *x, int len, double *ov, double *ow);

/*
 * The blocked reduction's panel (householder.ts, reducePanel): columns i0 .. i0 + nb - 1
 * of the n x n stored triangle a (column c from its diagonal at a + c lda + c), e and tau
 * of those columns, W (nb rows of n) and 2 nb coefficients of scratch. 0, or -1 without
 * the kernels.
 */
int latrd_fma(int wide, double *a, int64_t lda, int n, int i0, int nb, double *e, double *tau,
              double *w, double *coef);

#endif
