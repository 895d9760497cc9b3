  ;; ---------------------------------------------------------------------------
  ;; thinProducts(q, n, cq, src, b, out, transpose): the products with a thin block
  ;; Q (n x cq, row-major f64) that ZWoodbury adds to U's (methods/zstep/zPreconditioner.ts,
  ;; basisTimes and basisTransposeTimes), in their loops' order:
  ;;   transpose 0: out[i][j] += Q[i][t] src[t][j]   (out n x b, src cq x b)
  ;;   transpose 1: out[t][j] += Q[i][t] src[i][j]   (out cq x b, src n x b)
  ;; for i = 0 .. n - 1, then t = 0 .. cq - 1, then j, each update the product rounded
  ;; and then added, two j at a time in the f64x2 lanes and an odd last j alone: every
  ;; entry is the TypeScript loops' sum in their order, so both give the same bits.
  ;; ---------------------------------------------------------------------------
  (func (export "thinProducts") (param $q i32) (param $n i32) (param $cq i32) (param $src i32)
                                (param $b i32) (param $out i32) (param $transpose i32)
    (local $i i32) (local $t i32) (local $j i32) (local $ld i32) (local $even i32)
    (local $o i32) (local $s i32) (local $qv v128) (local $qs f64) (local $qi i32)
    (local.set $ld (i32.shl (local.get $b) (i32.const 3)))
    (local.set $even (i32.shl (i32.and (local.get $b) (i32.const -2)) (i32.const 3)))
    (block $iDone
      (loop $is
        (br_if $iDone (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $t (i32.const 0))
        (block $tDone
          (loop $ts
            (br_if $tDone (i32.ge_s (local.get $t) (local.get $cq)))
            (local.set $qs
              (f64.load (i32.add (local.get $q)
                (i32.shl (i32.add (i32.mul (local.get $i) (local.get $cq)) (local.get $t)) (i32.const 3)))))
            (local.set $qv (f64x2.splat (local.get $qs)))
            (if (local.get $transpose)
              (then
                (local.set $o (i32.add (local.get $out) (i32.mul (local.get $t) (local.get $ld))))
                (local.set $s (i32.add (local.get $src) (i32.mul (local.get $i) (local.get $ld)))))
              (else
                (local.set $o (i32.add (local.get $out) (i32.mul (local.get $i) (local.get $ld))))
                (local.set $s (i32.add (local.get $src) (i32.mul (local.get $t) (local.get $ld))))))
            (local.set $j (i32.const 0))
            (block $jDone
              (loop $js
                (br_if $jDone (i32.ge_s (local.get $j) (local.get $even)))
                (v128.store (i32.add (local.get $o) (local.get $j))
                  (f64x2.add (v128.load (i32.add (local.get $o) (local.get $j)))
                    (f64x2.mul (local.get $qv) (v128.load (i32.add (local.get $s) (local.get $j))))))
                (local.set $j (i32.add (local.get $j) (i32.const 16)))
                (br $js)))
            (if (i32.lt_s (local.get $j) (local.get $ld))
              (then
                (f64.store (i32.add (local.get $o) (local.get $j))
                  (f64.add (f64.load (i32.add (local.get $o) (local.get $j)))
                    (f64.mul (local.get $qs) (f64.load (i32.add (local.get $s) (local.get $j))))))))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $ts)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $is))))
