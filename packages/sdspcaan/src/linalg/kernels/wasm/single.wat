  ;; ---------------------------------------------------------------------------
  ;; Single-precision kernels (module fields only: scripts/build-wasm.ts splices this
  ;; file into kernels.wat at its `;; @include` line). They screen, they never produce
  ;; a result: the caller bounds their rounding and decides in double precision.
  ;; ---------------------------------------------------------------------------
  ;; gemm32(m, n, p, A, lda, B, ldb, C, ldc): C[i][j] = sum_l A[i][l] B[j][l] with A
  ;; and B in single precision (f32, leading dimensions in elements) and C in double
  ;; (overwritten). A screening product: its rounding is bounded by the caller
  ;; (kernels/screenedSearch.ts), never used as a result. Four l per f32x4 lane
  ;; quadruple, 2 rows of A by 4 rows of B per block (8 accumulators), lanes summed
  ;; at the end, then the p % 4 tail; edges by the 1 x 1 kernel.
  ;; ---------------------------------------------------------------------------
  (func (export "gemm32") (param $m i32) (param $n i32) (param $p i32)
                          (param $A i32) (param $lda i32) (param $B i32) (param $ldb i32)
                          (param $C i32) (param $ldc i32)
    (local $i i32) (local $j i32) (local $jq i32) (local $n4 i32) (local $m2 i32)
    (local $bp i32) (local $ap i32) (local $cp i32)
    (local.set $lda (i32.shl (local.get $lda) (i32.const 2)))
    (local.set $ldb (i32.shl (local.get $ldb) (i32.const 2)))
    (local.set $ldc (i32.shl (local.get $ldc) (i32.const 3)))
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $m2 (i32.and (local.get $m) (i32.const -2)))
    (block $colsDone
      (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $bp (i32.add (local.get $B) (i32.mul (local.get $j) (local.get $ldb))))
        (local.set $i (i32.const 0))
        (block $rowsDone
          (loop $rows
            (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $ap (i32.add (local.get $A) (i32.mul (local.get $i) (local.get $lda))))
            (local.set $cp (i32.add (local.get $C)
              (i32.add (i32.mul (local.get $i) (local.get $ldc)) (i32.shl (local.get $j) (i32.const 3)))))
            (if (i32.and (i32.lt_u (local.get $i) (local.get $m2)) (i32.lt_u (local.get $j) (local.get $n4)))
              (then
                (call $k2x4f (local.get $ap) (local.get $lda) (local.get $bp) (local.get $ldb)
                  (local.get $p) (local.get $cp) (local.get $ldc))
                (local.set $i (i32.add (local.get $i) (i32.const 2))))
              (else
                (local.set $jq (i32.const 0))
                (block $edgeDone
                  (loop $edge
                    (br_if $edgeDone (i32.or (i32.ge_u (local.get $jq) (i32.const 4))
                      (i32.ge_u (i32.add (local.get $j) (local.get $jq)) (local.get $n))))
                    (f64.store (i32.add (local.get $cp) (i32.shl (local.get $jq) (i32.const 3)))
                      (f64.promote_f32 (call $dot32 (local.get $ap)
                        (i32.add (local.get $bp) (i32.mul (local.get $jq) (local.get $ldb)))
                        (local.get $p))))
                    (local.set $jq (i32.add (local.get $jq) (i32.const 1)))
                    (br $edge)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))))
            (br $rows)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $cols))))

  ;; 2 x 4 block of gemm32 (lda, ldb, ldc in bytes; p in elements).
  (func $k2x4f (param $a i32) (param $lda i32) (param $b i32) (param $ldb i32)
               (param $p i32) (param $c i32) (param $ldc i32)
    (local $a1 i32) (local $b1 i32) (local $b2 i32) (local $b3 i32) (local $c1 i32)
    (local $o i32) (local $end i32) (local $pb i32)
    (local $x0 v128) (local $x1 v128) (local $y v128)
    (local $s00 v128) (local $s01 v128) (local $s02 v128) (local $s03 v128)
    (local $s10 v128) (local $s11 v128) (local $s12 v128) (local $s13 v128)
    (local.set $a1 (i32.add (local.get $a) (local.get $lda)))
    (local.set $b1 (i32.add (local.get $b) (local.get $ldb)))
    (local.set $b2 (i32.add (local.get $b1) (local.get $ldb)))
    (local.set $b3 (i32.add (local.get $b2) (local.get $ldb)))
    (local.set $c1 (i32.add (local.get $c) (local.get $ldc)))
    (local.set $end (i32.shl (i32.and (local.get $p) (i32.const -4)) (i32.const 2)))
    (local.set $pb (i32.shl (local.get $p) (i32.const 2)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $x0 (v128.load (i32.add (local.get $a) (local.get $o))))
        (local.set $x1 (v128.load (i32.add (local.get $a1) (local.get $o))))
        (local.set $y (v128.load (i32.add (local.get $b) (local.get $o))))
        (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $x0) (local.get $y))))
        (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b1) (local.get $o))))
        (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $x0) (local.get $y))))
        (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b2) (local.get $o))))
        (local.set $s02 (f32x4.add (local.get $s02) (f32x4.mul (local.get $x0) (local.get $y))))
        (local.set $s12 (f32x4.add (local.get $s12) (f32x4.mul (local.get $x1) (local.get $y))))
        (local.set $y (v128.load (i32.add (local.get $b3) (local.get $o))))
        (local.set $s03 (f32x4.add (local.get $s03) (f32x4.mul (local.get $x0) (local.get $y))))
        (local.set $s13 (f32x4.add (local.get $s13) (f32x4.mul (local.get $x1) (local.get $y))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    (f64.store offset=0 (local.get $c)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s00))
        (call $tail32 (local.get $a) (local.get $b) (local.get $end) (local.get $pb)))))
    (f64.store offset=8 (local.get $c)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s01))
        (call $tail32 (local.get $a) (local.get $b1) (local.get $end) (local.get $pb)))))
    (f64.store offset=16 (local.get $c)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s02))
        (call $tail32 (local.get $a) (local.get $b2) (local.get $end) (local.get $pb)))))
    (f64.store offset=24 (local.get $c)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s03))
        (call $tail32 (local.get $a) (local.get $b3) (local.get $end) (local.get $pb)))))
    (f64.store offset=0 (local.get $c1)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s10))
        (call $tail32 (local.get $a1) (local.get $b) (local.get $end) (local.get $pb)))))
    (f64.store offset=8 (local.get $c1)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s11))
        (call $tail32 (local.get $a1) (local.get $b1) (local.get $end) (local.get $pb)))))
    (f64.store offset=16 (local.get $c1)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s12))
        (call $tail32 (local.get $a1) (local.get $b2) (local.get $end) (local.get $pb)))))
    (f64.store offset=24 (local.get $c1)
      (f64.promote_f32 (f32.add (call $hsum (local.get $s13))
        (call $tail32 (local.get $a1) (local.get $b3) (local.get $end) (local.get $pb))))))

  ;; The four lanes of s summed: (s0 + s1) + (s2 + s3).
  (func $hsum (param $s v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $s)) (f32x4.extract_lane 1 (local.get $s)))
             (f32.add (f32x4.extract_lane 2 (local.get $s)) (f32x4.extract_lane 3 (local.get $s)))))

  ;; sum of a[o] b[o] over the byte offsets o in [from, to) (the p % 4 tail).
  (func $tail32 (param $a i32) (param $b i32) (param $from i32) (param $to i32) (result f32)
    (local $t f32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (local.set $t (f32.add (local.get $t)
          (f32.mul (f32.load (i32.add (local.get $a) (local.get $from)))
                   (f32.load (i32.add (local.get $b) (local.get $from))))))
        (local.set $from (i32.add (local.get $from) (i32.const 4)))
        (br $l)))
    (local.get $t))

  ;; a . b over p single-precision elements (the edges of gemm32).
  (func $dot32 (param $a i32) (param $b i32) (param $p i32) (result f32)
    (local $o i32) (local $end i32) (local $s v128)
    (local.set $end (i32.shl (i32.and (local.get $p) (i32.const -4)) (i32.const 2)))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
        (local.set $s (f32x4.add (local.get $s)
          (f32x4.mul (v128.load (i32.add (local.get $a) (local.get $o)))
                     (v128.load (i32.add (local.get $b) (local.get $o))))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (br $l)))
    (f32.add (call $hsum (local.get $s))
      (call $tail32 (local.get $a) (local.get $b) (local.get $end) (i32.shl (local.get $p) (i32.const 2)))))
