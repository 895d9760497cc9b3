;; The double-precision GEMM of the kernels (included by kernels.wat, and by fma.wat with
;; its multiply-adds fused: scripts/build-wasm.ts turns every (f64x2.add S (f64x2.mul X Y))
;; into (f64x2.relaxed_madd X Y S) there). Module fields only: the build splices it in.

  ;; ---------------------------------------------------------------------------
  ;; GEMM C += A B^T in the dot-product form: both operands are read along the
  ;; contraction index l (contiguous), two consecutive l per f64x2 lane pair. A block
  ;; of 2 rows of A by 4 rows of B keeps 8 f64x2 accumulators, 2 A vectors and one B
  ;; vector in registers (11 of the 16 XMM registers). Each accumulator's two lanes
  ;; (even and odd l) are added at the end of the panel, then the odd tail element.
  ;;
  ;; Micro-kernel parameters: a, b: first element of the panel of each operand row;
  ;; lda, ldb, ldc in bytes; kc: panel length in elements; c: C[i][j].
  ;; ---------------------------------------------------------------------------

  (func $k2x4 (param $a i32) (param $lda i32) (param $b i32) (param $ldb i32)
              (param $kc i32) (param $c i32) (param $ldc i32)
    (local $a1 i32) (local $b1 i32) (local $b2 i32) (local $b3 i32)
    (local $o i32) (local $end i32) (local $odd i32) (local $p i32) (local $u v128)
    (local $x0 v128) (local $x1 v128) (local $y v128)
    (local $s00 v128) (local $s01 v128) (local $s02 v128) (local $s03 v128)
    (local $s10 v128) (local $s11 v128) (local $s12 v128) (local $s13 v128)
    (local.set $odd (i32.and (local.get $kc) (i32.const 1)))
    (local.set $a1 (i32.add (local.get $a) (local.get $lda)))
    (local.set $b1 (i32.add (local.get $b) (local.get $ldb)))
    (local.set $b2 (i32.add (local.get $b1) (local.get $ldb)))
    (local.set $b3 (i32.add (local.get $b2) (local.get $ldb)))
    (local.set $end (i32.shl (i32.and (local.get $kc) (i32.const -2)) (i32.const 3)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $x0 (v128.load (i32.add (local.get $a) (local.get $o))))
        (local.set $x1 (v128.load (i32.add (local.get $a1) (local.get $o))))
        (local.set $y (v128.load (i32.add (local.get $b) (local.get $o))))
        (local.set $s00 (f64x2.add (local.get $s00) (f64x2.mul (local.get $x0) (local.get $y))))
        (local.set $s10 (f64x2.add (local.get $s10) (f64x2.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b1) (local.get $o))))
        (local.set $s01 (f64x2.add (local.get $s01) (f64x2.mul (local.get $x0) (local.get $y))))
        (local.set $s11 (f64x2.add (local.get $s11) (f64x2.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b2) (local.get $o))))
        (local.set $s02 (f64x2.add (local.get $s02) (f64x2.mul (local.get $x0) (local.get $y))))
        (local.set $s12 (f64x2.add (local.get $s12) (f64x2.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b3) (local.get $o))))
        (local.set $s03 (f64x2.add (local.get $s03) (f64x2.mul (local.get $x0) (local.get $y))))
        (local.set $s13 (f64x2.add (local.get $s13) (f64x2.mul (local.get $x1) (local.get $y))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    ;; Epilogue, two entries of C per vector: [s_q0 lanes summed, s_q1 lanes summed],
    ;; plus a_r[end] [b_q0[end], b_q1[end]] when kc is odd, added to C. The order per
    ;; entry is that of $finish (lanes, tail, then C), so every entry of C gets the same
    ;; bits whichever kernel computed it.
    (local.set $u (f64x2.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $s00) (local.get $s01))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $s00) (local.get $s01))))
    (if (local.get $odd)
      (then
        (local.set $u (f64x2.add (local.get $u)
          (f64x2.mul (v128.load64_splat (i32.add (local.get $a) (local.get $end)))
            (v128.load64_lane 1 (i32.add (local.get $b1) (local.get $end))
              (v128.load64_zero (i32.add (local.get $b) (local.get $end)))))))))
    (local.set $p (local.get $c))
    (v128.store (local.get $p) (f64x2.add (v128.load (local.get $p)) (local.get $u)))
    (local.set $u (f64x2.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $s02) (local.get $s03))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $s02) (local.get $s03))))
    (if (local.get $odd)
      (then
        (local.set $u (f64x2.add (local.get $u)
          (f64x2.mul (v128.load64_splat (i32.add (local.get $a) (local.get $end)))
            (v128.load64_lane 1 (i32.add (local.get $b3) (local.get $end))
              (v128.load64_zero (i32.add (local.get $b2) (local.get $end)))))))))
    (local.set $p (i32.add (local.get $c) (i32.const 16)))
    (v128.store (local.get $p) (f64x2.add (v128.load (local.get $p)) (local.get $u)))
    (local.set $c (i32.add (local.get $c) (local.get $ldc)))
    (local.set $u (f64x2.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $s10) (local.get $s11))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $s10) (local.get $s11))))
    (if (local.get $odd)
      (then
        (local.set $u (f64x2.add (local.get $u)
          (f64x2.mul (v128.load64_splat (i32.add (local.get $a1) (local.get $end)))
            (v128.load64_lane 1 (i32.add (local.get $b1) (local.get $end))
              (v128.load64_zero (i32.add (local.get $b) (local.get $end)))))))))
    (local.set $p (local.get $c))
    (v128.store (local.get $p) (f64x2.add (v128.load (local.get $p)) (local.get $u)))
    (local.set $u (f64x2.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $s12) (local.get $s13))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $s12) (local.get $s13))))
    (if (local.get $odd)
      (then
        (local.set $u (f64x2.add (local.get $u)
          (f64x2.mul (v128.load64_splat (i32.add (local.get $a1) (local.get $end)))
            (v128.load64_lane 1 (i32.add (local.get $b3) (local.get $end))
              (v128.load64_zero (i32.add (local.get $b2) (local.get $end)))))))))
    (local.set $p (i32.add (local.get $c) (i32.const 16)))
    (v128.store (local.get $p) (f64x2.add (v128.load (local.get $p)) (local.get $u))))

  ;; C[0] += (lane 0 + lane 1 of s) + a[kc - 1] b[kc - 1] when kc is odd (end = the
  ;; byte offset of that element).
  (func $finish (param $s v128) (param $a i32) (param $b i32) (param $kc i32) (param $end i32)
                (param $c i32)
    (local $t f64)
    (local.set $t (f64.add (f64x2.extract_lane 0 (local.get $s)) (f64x2.extract_lane 1 (local.get $s))))
    (if (i32.and (local.get $kc) (i32.const 1))
      (then
        (local.set $t (f64.add (local.get $t)
          (f64.mul (f64.load (i32.add (local.get $a) (local.get $end)))
                   (f64.load (i32.add (local.get $b) (local.get $end))))))))
    (f64.store (local.get $c) (f64.add (f64.load (local.get $c)) (local.get $t))))

  ;; One row of A against one row of B (the edges of the block grid): C[0] += a . b.
  (func $k1x1 (param $a i32) (param $b i32) (param $kc i32) (param $c i32)
    (local $o i32) (local $end i32) (local $s v128)
    (local.set $end (i32.shl (i32.and (local.get $kc) (i32.const -2)) (i32.const 3)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $s (f64x2.add (local.get $s)
          (f64x2.mul (v128.load (i32.add (local.get $a) (local.get $o)))
                     (v128.load (i32.add (local.get $b) (local.get $o))))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    (call $finish (local.get $s) (local.get $a) (local.get $b) (local.get $kc) (local.get $end) (local.get $c)))

;; Two rows of A against one row of B (the last n % 4 columns of C): C[0] and
  ;; C[ldc] as $k1x1 would compute them, from one pass over the row of B.
  (func $k2x1 (param $a i32) (param $lda i32) (param $b i32) (param $kc i32) (param $c i32)
              (param $ldc i32)
    (local $a1 i32) (local $o i32) (local $end i32) (local $y v128) (local $s0 v128) (local $s1 v128)
    (local.set $a1 (i32.add (local.get $a) (local.get $lda)))
    (local.set $end (i32.shl (i32.and (local.get $kc) (i32.const -2)) (i32.const 3)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $y (v128.load (i32.add (local.get $b) (local.get $o))))
        (local.set $s0 (f64x2.add (local.get $s0)
          (f64x2.mul (v128.load (i32.add (local.get $a) (local.get $o))) (local.get $y))))
        (local.set $s1 (f64x2.add (local.get $s1)
          (f64x2.mul (v128.load (i32.add (local.get $a1) (local.get $o))) (local.get $y))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    (call $finish (local.get $s0) (local.get $a) (local.get $b) (local.get $kc) (local.get $end) (local.get $c))
    (call $finish (local.get $s1) (local.get $a1) (local.get $b) (local.get $kc) (local.get $end)
      (i32.add (local.get $c) (local.get $ldc))))

  ;; One row of A against four rows of B (the last row of C when m is odd): C[0..3] as
  ;; $k1x1 would compute them, from one pass over the row of A.
  (func $k1x4 (param $a i32) (param $b i32) (param $ldb i32) (param $kc i32) (param $c i32)
    (local $b1 i32) (local $b2 i32) (local $b3 i32) (local $o i32) (local $end i32) (local $x v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local.set $b1 (i32.add (local.get $b) (local.get $ldb)))
    (local.set $b2 (i32.add (local.get $b1) (local.get $ldb)))
    (local.set $b3 (i32.add (local.get $b2) (local.get $ldb)))
    (local.set $end (i32.shl (i32.and (local.get $kc) (i32.const -2)) (i32.const 3)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $x (v128.load (i32.add (local.get $a) (local.get $o))))
        (local.set $s0 (f64x2.add (local.get $s0)
          (f64x2.mul (local.get $x) (v128.load (i32.add (local.get $b) (local.get $o))))))
        (local.set $s1 (f64x2.add (local.get $s1)
          (f64x2.mul (local.get $x) (v128.load (i32.add (local.get $b1) (local.get $o))))))
        (local.set $s2 (f64x2.add (local.get $s2)
          (f64x2.mul (local.get $x) (v128.load (i32.add (local.get $b2) (local.get $o))))))
        (local.set $s3 (f64x2.add (local.get $s3)
          (f64x2.mul (local.get $x) (v128.load (i32.add (local.get $b3) (local.get $o))))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    (call $finish (local.get $s0) (local.get $a) (local.get $b) (local.get $kc) (local.get $end) (local.get $c))
    (call $finish (local.get $s1) (local.get $a) (local.get $b1) (local.get $kc) (local.get $end)
      (i32.add (local.get $c) (i32.const 8)))
    (call $finish (local.get $s2) (local.get $a) (local.get $b2) (local.get $kc) (local.get $end)
      (i32.add (local.get $c) (i32.const 16)))
    (call $finish (local.get $s3) (local.get $a) (local.get $b3) (local.get $kc) (local.get $end)
      (i32.add (local.get $c) (i32.const 24))))

    ;; gemm(m, n, p, A, lda, B, ldb, C, ldc): C[i][j] += sum_l A[i][l] B[j][l] for i < m,
  ;; j < n, l < p. The contraction is cut into panels of 256 so that 4 rows of B stay in
  ;; L1 while they meet a block of 64 rows of A held in L2; edges run the 1 x 4 kernel
  ;; (the last row when m is odd), the 2 x 1 kernel (the last n % 4 columns) and the
  ;; 1 x 1 kernel (their corner), each of which keeps the summation order of each entry
  ;; that of the 2 x 4 kernel (lanes, then the tail), so an entry's bits do not depend
  ;; on which kernel computed it.
  (func $gemm (export "gemm") (param $m i32) (param $n i32) (param $p i32)
                        (param $A i32) (param $lda i32) (param $B i32) (param $ldb i32)
                        (param $C i32) (param $ldc i32)
    (local $l0 i32) (local $kc i32) (local $i0 i32) (local $i1 i32) (local $i1b i32)
    (local $i i32) (local $j i32) (local $jq i32) (local $n4 i32) (local $m2 i32)
    (local $ap i32) (local $bp i32) (local $cp i32)
    (local.set $lda (i32.shl (local.get $lda) (i32.const 3)))
    (local.set $ldb (i32.shl (local.get $ldb) (i32.const 3)))
    (local.set $ldc (i32.shl (local.get $ldc) (i32.const 3)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $m2 (i32.and (local.get $m) (i32.const -2)))
    (block $panelsDone
      (loop $panels
        (br_if $panelsDone (i32.ge_u (local.get $l0) (local.get $p)))
        (local.set $kc (i32.sub (local.get $p) (local.get $l0)))
        (if (i32.gt_u (local.get $kc) (i32.const 256)) (then (local.set $kc (i32.const 256))))
        (local.set $i0 (i32.const 0))
        (block $rowBlocksDone
          (loop $rowBlocks
            (br_if $rowBlocksDone (i32.ge_u (local.get $i0) (local.get $m)))
            (local.set $i1 (i32.add (local.get $i0) (i32.const 64)))
            (if (i32.gt_u (local.get $i1) (local.get $m)) (then (local.set $i1 (local.get $m))))
            (local.set $i1b (local.get $i1))
            (if (i32.gt_u (local.get $i1b) (local.get $m2)) (then (local.set $i1b (local.get $m2))))
            (local.set $j (i32.const 0))
            (block $colsDone
              (loop $cols
                (br_if $colsDone (i32.ge_u (local.get $j) (local.get $n)))
                (local.set $bp (i32.add (local.get $B)
                  (i32.add (i32.mul (local.get $j) (local.get $ldb)) (i32.shl (local.get $l0) (i32.const 3)))))
                (local.set $i (local.get $i0))
                (block $rowsDone
                  (loop $rows
                    (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $i1)))
                    (local.set $ap (i32.add (local.get $A)
                      (i32.add (i32.mul (local.get $i) (local.get $lda)) (i32.shl (local.get $l0) (i32.const 3)))))
                    (local.set $cp (i32.add (local.get $C)
                      (i32.add (i32.mul (local.get $i) (local.get $ldc)) (i32.shl (local.get $j) (i32.const 3)))))
                    (if (i32.and (i32.lt_u (local.get $i) (local.get $i1b)) (i32.lt_u (local.get $j) (local.get $n4)))
                      (then
                        (call $k2x4 (local.get $ap) (local.get $lda) (local.get $bp) (local.get $ldb)
                          (local.get $kc) (local.get $cp) (local.get $ldc))
                        (local.set $i (i32.add (local.get $i) (i32.const 2))))
                      (else
                        (if (i32.lt_u (local.get $j) (local.get $n4))
                          (then
                            ;; The last row (m odd) against a full quad of columns.
                            (call $k1x4 (local.get $ap) (local.get $bp) (local.get $ldb)
                              (local.get $kc) (local.get $cp))
                            (local.set $i (i32.add (local.get $i) (i32.const 1))))
                          (else
                            ;; The last n % 4 columns: each by the 2 x 1 kernel on row
                            ;; pairs, by the 1 x 1 kernel on the last row (m odd).
                            (local.set $jq (i32.const 0))
                            (block $edgeDone
                              (loop $edge
                                (br_if $edgeDone (i32.ge_u (i32.add (local.get $j) (local.get $jq)) (local.get $n)))
                                (if (i32.lt_u (local.get $i) (local.get $i1b))
                                  (then
                                    (call $k2x1 (local.get $ap) (local.get $lda)
                                      (i32.add (local.get $bp) (i32.mul (local.get $jq) (local.get $ldb)))
                                      (local.get $kc)
                                      (i32.add (local.get $cp) (i32.shl (local.get $jq) (i32.const 3)))
                                      (local.get $ldc)))
                                  (else
                                    (call $k1x1 (local.get $ap)
                                      (i32.add (local.get $bp) (i32.mul (local.get $jq) (local.get $ldb)))
                                      (local.get $kc)
                                      (i32.add (local.get $cp) (i32.shl (local.get $jq) (i32.const 3))))))
                                (local.set $jq (i32.add (local.get $jq) (i32.const 1)))
                                (br $edge)))
                            (local.set $i (i32.add (local.get $i)
                              (select (i32.const 2) (i32.const 1) (i32.lt_u (local.get $i) (local.get $i1b)))))))))
                    (br $rows)))
                (local.set $j (i32.add (local.get $j) (i32.const 4)))
                (br $cols)))
            (local.set $i0 (i32.add (local.get $i0) (i32.const 64)))
            (br $rowBlocks)))
        (local.set $l0 (i32.add (local.get $l0) (i32.const 256)))
        (br $panels))))
