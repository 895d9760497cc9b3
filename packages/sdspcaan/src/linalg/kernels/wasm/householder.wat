  ;; ---------------------------------------------------------------------------
  ;; The per-column loops of the Householder tridiagonalisation (reduceUnblocked in
  ;; eigen/householder.ts: dsytd2 with dlarfg) and of the back-transformation of
  ;; eigenvectors (applyReflectorBlocks in eigen/backTransform.ts: dormtr's blocks, each
  ;; built by dlarft and applied as dlarfb). Module fields only: scripts/build-wasm.ts
  ;; splices this file into kernels.wat at its `;; @include` line.
  ;;
  ;; Each function performs the IEEE operations of its TypeScript counterpart on the
  ;; wasm backend in the same order: the products it delegates there to the module's
  ;; kernels (symv, combine2, gemm) it makes by calling the same functions with the same
  ;; arguments, including the zeroing that gemmABtRaw does before a product that does not
  ;; accumulate; its own arithmetic is scalar, sums left to right, with no fused
  ;; multiply-add (the instruction set has none). f64.sqrt is IEEE's correctly rounded
  ;; square root, as Math.sqrt; `x >= 0 ? -y : y` is a select on f64.ge, which is false
  ;; for NaN as the JavaScript comparison is; unary minus is f64.neg (a sign flip, as in
  ;; JavaScript, so -0 and +0 stay apart). So the wasm backend gives the same bits
  ;; whichever of the two ran (a test compares them).
  ;; ---------------------------------------------------------------------------

  ;; ---------------------------------------------------------------------------
  ;; tridiagonalizeUnblocked(a, lda, n, i0, d, e, tau, y, coef): dsytd2 on the trailing
  ;; part of the symmetric matrix from column i0 on. Entry (r, c), r >= c, is stored at
  ;; a[c * lda + r] (lda in elements); column i is reduced by the reflector
  ;; H_i = I - tau_i v v^T with v = [1; a(i+2:n, i)], then A22 -= v w^T + w v^T with
  ;; w = y - (tau / 2)(y . v) v, y = tau A22 v. Writes d[i0..n), e[i0..n-1),
  ;; tau[i0..n-1); y: n doubles of work, coef: 2 (the coefficients combine2 reads).
  ;; ---------------------------------------------------------------------------
  (func (export "tridiagonalizeUnblocked") (param $a i32) (param $lda i32) (param $n i32)
                                           (param $i0 i32) (param $d i32) (param $e i32)
                                           (param $tau i32) (param $y i32) (param $coef i32)
    (local $i i32) (local $m i32) (local $col i32) (local $v i32) (local $r i32)
    (local $end i32) (local $j i32) (local $diag i32) (local $ldb i32)
    (local $alpha f64) (local $ss f64) (local $x f64) (local $norm f64) (local $beta f64)
    (local $ti f64) (local $scale f64) (local $yv f64)
    (local.set $ldb (i32.shl (local.get $lda) (i32.const 3)))
    (local.set $i (local.get $i0))
    (block $iDone
      (loop $is
        (br_if $iDone (i32.ge_s (local.get $i) (i32.sub (local.get $n) (i32.const 1))))
        ;; col: column i; v: its entry i + 1, the reflector's unit entry; m = n - i - 1
        ;; entries from there, end = m in bytes.
        (local.set $col (i32.add (local.get $a) (i32.mul (local.get $i) (local.get $ldb))))
        (local.set $v (i32.add (local.get $col) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 3))))
        (local.set $m (i32.sub (i32.sub (local.get $n) (local.get $i)) (i32.const 1)))
        (local.set $end (i32.shl (local.get $m) (i32.const 3)))
        ;; makeReflector (dlarfg) on alpha = v[0], x = v[1..m).
        (local.set $alpha (f64.load (local.get $v)))
        (local.set $ss (f64.const 0))
        (local.set $r (i32.const 8))
        (block $ssDone
          (loop $ssLoop
            (br_if $ssDone (i32.ge_s (local.get $r) (local.get $end)))
            (local.set $x (f64.load (i32.add (local.get $v) (local.get $r))))
            (local.set $ss (f64.add (local.get $ss) (f64.mul (local.get $x) (local.get $x))))
            (local.set $r (i32.add (local.get $r) (i32.const 8)))
            (br $ssLoop)))
        (if (f64.eq (local.get $ss) (f64.const 0))
          (then
            (local.set $ti (f64.const 0))
            (local.set $beta (local.get $alpha)))
          (else
            (local.set $norm (f64.sqrt (f64.add (f64.mul (local.get $alpha) (local.get $alpha))
                                                (local.get $ss))))
            (local.set $beta (select (f64.neg (local.get $norm)) (local.get $norm)
                                     (f64.ge (local.get $alpha) (f64.const 0))))
            (local.set $ti (f64.div (f64.sub (local.get $beta) (local.get $alpha)) (local.get $beta)))
            (local.set $scale (f64.div (f64.const 1) (f64.sub (local.get $alpha) (local.get $beta))))
            (local.set $r (i32.const 8))
            (block $scaleDone
              (loop $scaleLoop
                (br_if $scaleDone (i32.ge_s (local.get $r) (local.get $end)))
                (f64.store (i32.add (local.get $v) (local.get $r))
                  (f64.mul (f64.load (i32.add (local.get $v) (local.get $r))) (local.get $scale)))
                (local.set $r (i32.add (local.get $r) (i32.const 8)))
                (br $scaleLoop)))))
        (f64.store (i32.add (local.get $e) (i32.shl (local.get $i) (i32.const 3))) (local.get $beta))
        (f64.store (i32.add (local.get $tau) (i32.shl (local.get $i) (i32.const 3))) (local.get $ti))
        (f64.store (i32.add (local.get $d) (i32.shl (local.get $i) (i32.const 3)))
          (f64.load (i32.add (local.get $col) (i32.shl (local.get $i) (i32.const 3)))))
        (if (f64.ne (local.get $ti) (f64.const 0))
          (then
            (f64.store (local.get $v) (f64.const 1))
            ;; y = tau A22 v, A22 = a(i+1:n, i+1:n) from its diagonal corner.
            (call $fill (local.get $y) (i32.const 0) (local.get $m) (f64.const 0))
            (local.set $diag (i32.add (local.get $v) (local.get $ldb)))
            (call $symv (local.get $diag) (local.get $lda) (local.get $m) (local.get $v) (local.get $y))
            (local.set $r (i32.const 0))
            (block $tauDone
              (loop $tauLoop
                (br_if $tauDone (i32.ge_s (local.get $r) (local.get $end)))
                (f64.store (i32.add (local.get $y) (local.get $r))
                  (f64.mul (f64.load (i32.add (local.get $y) (local.get $r))) (local.get $ti)))
                (local.set $r (i32.add (local.get $r) (i32.const 8)))
                (br $tauLoop)))
            ;; w = y - (tau / 2)(y . v) v, in y.
            (local.set $yv (f64.const 0))
            (local.set $r (i32.const 0))
            (block $dotDone
              (loop $dotLoop
                (br_if $dotDone (i32.ge_s (local.get $r) (local.get $end)))
                (local.set $yv (f64.add (local.get $yv)
                  (f64.mul (f64.load (i32.add (local.get $y) (local.get $r)))
                           (f64.load (i32.add (local.get $v) (local.get $r))))))
                (local.set $r (i32.add (local.get $r) (i32.const 8)))
                (br $dotLoop)))
            (local.set $x (f64.mul (f64.mul (f64.const -0.5) (local.get $ti)) (local.get $yv)))
            (local.set $r (i32.const 0))
            (block $axpyDone
              (loop $axpyLoop
                (br_if $axpyDone (i32.ge_s (local.get $r) (local.get $end)))
                (f64.store (i32.add (local.get $y) (local.get $r))
                  (f64.add (f64.load (i32.add (local.get $y) (local.get $r)))
                    (f64.mul (local.get $x) (f64.load (i32.add (local.get $v) (local.get $r))))))
                (local.set $r (i32.add (local.get $r) (i32.const 8)))
                (br $axpyLoop)))
            ;; dsyr2: column j of A22 from its diagonal down, -= v w_j + w v_j, as the
            ;; TypeScript's combine2 call with count 1 (coefficients w_j and v_j).
            (local.set $j (i32.const 0))
            (block $jDone
              (loop $js
                (br_if $jDone (i32.ge_s (local.get $j) (local.get $m)))
                (local.set $r (i32.shl (local.get $j) (i32.const 3)))
                (f64.store (local.get $coef) (f64.load (i32.add (local.get $y) (local.get $r))))
                (f64.store offset=8 (local.get $coef) (f64.load (i32.add (local.get $v) (local.get $r))))
                (call $combine2 (i32.add (local.get $diag) (i32.add (i32.mul (local.get $j) (local.get $ldb)) (local.get $r)))
                  (i32.sub (local.get $m) (local.get $j))
                  (i32.add (local.get $v) (local.get $r)) (i32.const 0)
                  (i32.add (local.get $y) (local.get $r)) (i32.const 0)
                  (i32.const 1) (local.get $coef) (i32.add (local.get $coef) (i32.const 8)))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $js)))
            (f64.store (local.get $v) (local.get $beta))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $is)))
    (if (i32.gt_s (local.get $n) (i32.const 0))
      (then
        (local.set $r (i32.shl (i32.sub (local.get $n) (i32.const 1)) (i32.const 3)))
        (f64.store (i32.add (local.get $d) (local.get $r))
          (f64.load (i32.add (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $lda))) (local.get $r)))))))

  ;; gemmABtRaw's wasm path for resident operands: C = 0 (m x n, leading dimension ldc)
  ;; unless accumulating, then C += A B^T by the gemm kernel.
  (func $gemmResident (param $m i32) (param $n i32) (param $p i32) (param $A i32) (param $lda i32)
                      (param $B i32) (param $ldb i32) (param $C i32) (param $ldc i32)
                      (param $accumulate i32)
    (local $i i32)
    (if (i32.eqz (local.get $accumulate))
      (then
        (block $done
          (loop $rows
            (br_if $done (i32.ge_s (local.get $i) (local.get $m)))
            (call $fill (i32.add (local.get $C) (i32.shl (i32.mul (local.get $i) (local.get $ldc)) (i32.const 3)))
              (i32.const 0) (local.get $n) (f64.const 0))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $rows)))))
    (call $gemm (local.get $m) (local.get $n) (local.get $p) (local.get $A) (local.get $lda)
      (local.get $B) (local.get $ldb) (local.get $C) (local.get $ldc)))

  ;; ---------------------------------------------------------------------------
  ;; applyReflectorBlocks(a, ld, n, tau, z, k, vt, vrow, vtv, s, m1, m2): z_j <- Q z_j for
  ;; the k vectors held as rows of z (k x n), Q = H_0 ... H_{n-2} from the reflectors of
  ;; the reduction (v_i: zero in entries 0..i, one in i + 1, a[i * ld + r] for r >= i + 2;
  ;; tau: n - 1 factors). Blocks of 32 reflectors, the last first; each block in the
  ;; compact-WY form I - V S V^T: V^T explicit in vt, V^T V by gemm, S by dlarft's
  ;; recurrence, then M1 = Z^T V, M2 = M1 (-S)^T and Z^T += M2 V^T (vrow = V, rows of
  ;; 32). Work: vt and vrow 32 n doubles, vtv and s 32 x 32, m1 and m2 32 k.
  ;; ---------------------------------------------------------------------------
  (func (export "applyReflectorBlocks") (param $a i32) (param $ld i32) (param $n i32)
                                        (param $tau i32) (param $z i32) (param $k i32)
                                        (param $vt i32) (param $vrow i32) (param $vtv i32)
                                        (param $s i32) (param $m1 i32) (param $m2 i32)
    (local $b0 i32) (local $nb i32) (local $off i32) (local $len i32) (local $l i32)
    (local $i i32) (local $j i32) (local $r i32) (local $row i32) (local $src i32)
    (local $zo i32) (local $p i32)
    (local $tl f64) (local $acc f64)
    ;; The first reflector of the last block: floor((n - 2) / 32) * 32.
    (local.set $b0 (i32.and (i32.sub (local.get $n) (i32.const 2)) (i32.const -32)))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.lt_s (local.get $b0) (i32.const 0)))
        (local.set $nb (i32.sub (i32.sub (local.get $n) (i32.const 1)) (local.get $b0)))
        (if (i32.gt_s (local.get $nb) (i32.const 32)) (then (local.set $nb (i32.const 32))))
        (local.set $off (i32.add (local.get $b0) (i32.const 1)))
        (local.set $len (i32.sub (local.get $n) (local.get $off)))
        ;; V^T of the block, rows explicit (zeros before the unit entry).
        (local.set $l (i32.const 0))
        (block $vtDone
          (loop $vtRows
            (br_if $vtDone (i32.ge_s (local.get $l) (local.get $nb)))
            (local.set $row (i32.add (local.get $vt) (i32.shl (i32.mul (local.get $l) (local.get $len)) (i32.const 3))))
            (call $fill (local.get $row) (i32.const 0) (local.get $l) (f64.const 0))
            (f64.store (i32.add (local.get $row) (i32.shl (local.get $l) (i32.const 3))) (f64.const 1))
            (local.set $src (i32.add (local.get $a)
              (i32.shl (i32.add (i32.mul (i32.add (local.get $b0) (local.get $l)) (local.get $ld)) (local.get $off))
                       (i32.const 3))))
            (local.set $r (i32.add (local.get $l) (i32.const 1)))
            (block $copyDone
              (loop $copy
                (br_if $copyDone (i32.ge_s (local.get $r) (local.get $len)))
                (local.set $p (i32.shl (local.get $r) (i32.const 3)))
                (f64.store (i32.add (local.get $row) (local.get $p)) (f64.load (i32.add (local.get $src) (local.get $p))))
                (local.set $r (i32.add (local.get $r) (i32.const 1)))
                (br $copy)))
            (local.set $l (i32.add (local.get $l) (i32.const 1)))
            (br $vtRows)))
        ;; S from tau and V^T V (dlarft): S[0:l, l] = -tau_l S[0:l, 0:l] (V^T v_l).
        (call $gemmResident (local.get $nb) (local.get $nb) (local.get $len) (local.get $vt) (local.get $len)
          (local.get $vt) (local.get $len) (local.get $vtv) (local.get $nb) (i32.const 0))
        (call $fill (local.get $s) (i32.const 0) (i32.mul (local.get $nb) (local.get $nb)) (f64.const 0))
        (local.set $l (i32.const 0))
        (block $sDone
          (loop $sCols
            (br_if $sDone (i32.ge_s (local.get $l) (local.get $nb)))
            (local.set $tl (f64.load (i32.add (local.get $tau) (i32.shl (i32.add (local.get $b0) (local.get $l)) (i32.const 3)))))
            (f64.store (i32.add (local.get $s) (i32.shl (i32.mul (local.get $l) (i32.add (local.get $nb) (i32.const 1))) (i32.const 3)))
              (local.get $tl))
            (local.set $i (i32.const 0))
            (block $iDone
              (loop $is
                (br_if $iDone (i32.ge_s (local.get $i) (local.get $l)))
                (local.set $acc (f64.const 0))
                (local.set $j (local.get $i))
                (block $jDone
                  (loop $js
                    (br_if $jDone (i32.ge_s (local.get $j) (local.get $l)))
                    (local.set $acc (f64.add (local.get $acc)
                      (f64.mul
                        (f64.load (i32.add (local.get $s)
                          (i32.shl (i32.add (i32.mul (local.get $i) (local.get $nb)) (local.get $j)) (i32.const 3))))
                        (f64.load (i32.add (local.get $vtv)
                          (i32.shl (i32.add (i32.mul (local.get $j) (local.get $nb)) (local.get $l)) (i32.const 3)))))))
                    (local.set $j (i32.add (local.get $j) (i32.const 1)))
                    (br $js)))
                (f64.store (i32.add (local.get $s)
                    (i32.shl (i32.add (i32.mul (local.get $i) (local.get $nb)) (local.get $l)) (i32.const 3)))
                  (f64.mul (f64.neg (local.get $tl)) (local.get $acc)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $is)))
            (local.set $l (i32.add (local.get $l) (i32.const 1)))
            (br $sCols)))
        ;; -S, so that the next products accumulate with the right sign.
        (local.set $p (local.get $s))
        (local.set $r (i32.add (local.get $s) (i32.shl (i32.mul (local.get $nb) (local.get $nb)) (i32.const 3))))
        (block $negDone
          (loop $neg
            (br_if $negDone (i32.ge_u (local.get $p) (local.get $r)))
            (f64.store (local.get $p) (f64.neg (f64.load (local.get $p))))
            (local.set $p (i32.add (local.get $p) (i32.const 8)))
            (br $neg)))
        ;; M1 = Z^T V (k x nb) over the rows the block touches; M2 = M1 (-S)^T.
        (local.set $zo (i32.add (local.get $z) (i32.shl (local.get $off) (i32.const 3))))
        (call $gemmResident (local.get $k) (local.get $nb) (local.get $len) (local.get $zo) (local.get $n)
          (local.get $vt) (local.get $len) (local.get $m1) (local.get $nb) (i32.const 0))
        (call $gemmResident (local.get $k) (local.get $nb) (local.get $nb) (local.get $m1) (local.get $nb)
          (local.get $s) (local.get $nb) (local.get $m2) (local.get $nb) (i32.const 0))
        ;; vrow = V (len x nb), then Z^T += M2 V^T.
        (local.set $r (i32.const 0))
        (block $tDone
          (loop $tRows
            (br_if $tDone (i32.ge_s (local.get $r) (local.get $len)))
            (local.set $l (i32.const 0))
            (block $tlDone
              (loop $tls
                (br_if $tlDone (i32.ge_s (local.get $l) (local.get $nb)))
                (f64.store (i32.add (local.get $vrow)
                    (i32.shl (i32.add (i32.mul (local.get $r) (local.get $nb)) (local.get $l)) (i32.const 3)))
                  (f64.load (i32.add (local.get $vt)
                    (i32.shl (i32.add (i32.mul (local.get $l) (local.get $len)) (local.get $r)) (i32.const 3)))))
                (local.set $l (i32.add (local.get $l) (i32.const 1)))
                (br $tls)))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $tRows)))
        (call $gemmResident (local.get $k) (local.get $len) (local.get $nb) (local.get $m2) (local.get $nb)
          (local.get $vrow) (local.get $nb) (local.get $zo) (local.get $n) (i32.const 1))
        (local.set $b0 (i32.sub (local.get $b0) (i32.const 32)))
        (br $blocks))))
