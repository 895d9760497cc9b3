  ;; ---------------------------------------------------------------------------
  ;; The loops of the tridiagonal eigen-solver: Sturm bisection for the eigenvalues
  ;; (bisectSmallest in eigen/bisection.ts) and inverse iteration for the eigenvectors
  ;; (dlagtf, dlagts and the iteration of eigen/inverseIteration.ts). Module fields only:
  ;; scripts/build-wasm.ts splices this file into kernels.wat at its `;; @include` line.
  ;;
  ;; Every function performs the IEEE operations of its TypeScript counterpart in the
  ;; same order, with the same comparisons and constants, so that the wasm backend's
  ;; eigenpairs are the same bits whichever of the two ran (a test compares them). No
  ;; fused multiply-add exists in this module's instruction set. f64.min and f64.max
  ;; agree with Math.min and Math.max (NaN when either operand is NaN, -0 below +0);
  ;; the constants are exact powers of two (ulp = 0x1p-52, eps = 0x1p-53, safmin =
  ;; 0x1p-1022, 1 / safmin = 0x1p1022) or the decimals the TypeScript writes (1e-3, 0.1),
  ;; which both read as the nearest double.
  ;; ---------------------------------------------------------------------------

  ;; p[j] = v for from <= j < to.
  (func $fill (param $p i32) (param $from i32) (param $to i32) (param $v f64)
    (block $done
      (loop $js
        (br_if $done (i32.ge_s (local.get $from) (local.get $to)))
        (f64.store (i32.add (local.get $p) (i32.shl (local.get $from) (i32.const 3))) (local.get $v))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $js))))

  ;; ---------------------------------------------------------------------------
  ;; bisect(d, e, e2, m, count, pivmin, work, out): bisectSmallest for an unreduced block
  ;; of order m >= 2 (diagonal d, off-diagonal e, its squares e2): out[j] for j < count
  ;; = its count smallest eigenvalues, ascending. The widened Gershgorin interval is
  ;; bisected in rounds; each round retires the converged intervals, counts at all
  ;; midpoints together ($sturm) and keeps the halves that hold a wanted index.
  ;; work: 10 (count + 9) doubles, ten arrays of stride = (count + 9) & -2 slots: the
  ;; interval ends a, b and their next-round copies a2, b2 (f64), the counts below them
  ;; na, nb, na2, nb2 (i32), the midpoints x and their counts (f64; $sturm reads and
  ;; writes pairs, so one slot past count).
  ;; ---------------------------------------------------------------------------
  (func $bisect (export "bisect") (param $d i32) (param $e i32) (param $e2 i32) (param $m i32)
                                  (param $count i32) (param $pivmin f64) (param $work i32)
                                  (param $out i32)
    (local $stride i32) (local $a i32) (local $b i32) (local $a2 i32) (local $b2 i32)
    (local $na i32) (local $nb i32) (local $na2 i32) (local $nb2 i32) (local $x i32)
    (local $counts i32) (local $swap i32) (local $i i32) (local $end i32) (local $t i32)
    (local $active i32) (local $round i32) (local $kept i32) (local $next i32)
    (local $lo i32) (local $hi i32) (local $c i32) (local $p i32)
    (local $r f64) (local $di f64) (local $gl f64) (local $gu f64) (local $tnorm f64)
    (local $widen f64) (local $atol f64) (local $at f64) (local $bt f64) (local $mid f64)
    (local.set $stride (i32.shl (i32.and (i32.add (local.get $count) (i32.const 9)) (i32.const -2))
                                (i32.const 3)))
    (local.set $a (local.get $work))
    (local.set $b (i32.add (local.get $a) (local.get $stride)))
    (local.set $a2 (i32.add (local.get $b) (local.get $stride)))
    (local.set $b2 (i32.add (local.get $a2) (local.get $stride)))
    (local.set $na (i32.add (local.get $b2) (local.get $stride)))
    (local.set $nb (i32.add (local.get $na) (local.get $stride)))
    (local.set $na2 (i32.add (local.get $nb) (local.get $stride)))
    (local.set $nb2 (i32.add (local.get $na2) (local.get $stride)))
    (local.set $x (i32.add (local.get $nb2) (local.get $stride)))
    (local.set $counts (i32.add (local.get $x) (local.get $stride)))
    ;; Gershgorin interval [gl, gu]; i and end are byte offsets (end: the last row).
    (local.set $gl (f64.const inf))
    (local.set $gu (f64.const -inf))
    (local.set $end (i32.shl (i32.sub (local.get $m) (i32.const 1)) (i32.const 3)))
    (block $gDone
      (loop $gs
        (br_if $gDone (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $r (f64.const 0))
        (if (i32.gt_s (local.get $i) (i32.const 0))
          (then
            (local.set $r (f64.add (local.get $r)
              (f64.abs (f64.load (i32.sub (i32.add (local.get $e) (local.get $i)) (i32.const 8))))))))
        (if (i32.lt_s (local.get $i) (local.get $end))
          (then
            (local.set $r (f64.add (local.get $r)
              (f64.abs (f64.load (i32.add (local.get $e) (local.get $i))))))))
        (local.set $di (f64.load (i32.add (local.get $d) (local.get $i))))
        (local.set $gl (f64.min (local.get $gl) (f64.sub (local.get $di) (local.get $r))))
        (local.set $gu (f64.max (local.get $gu) (f64.add (local.get $di) (local.get $r))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $gs)))
    (local.set $tnorm (f64.max (f64.abs (local.get $gl)) (f64.abs (local.get $gu))))
    ;; ((2 tnorm) ulp) m + 2 pivmin, in the TypeScript's left-to-right order.
    (local.set $widen (f64.add
      (f64.mul (f64.mul (f64.mul (f64.const 2) (local.get $tnorm)) (f64.const 0x1p-52))
               (f64.convert_i32_s (local.get $m)))
      (f64.mul (f64.const 2) (local.get $pivmin))))
    (local.set $gl (f64.sub (local.get $gl) (local.get $widen)))
    (local.set $gu (f64.add (local.get $gu) (local.get $widen)))
    (local.set $atol (f64.add (f64.mul (f64.const 0x1p-52) (local.get $tnorm))
                              (f64.mul (f64.const 2) (local.get $pivmin))))
    (f64.store (local.get $a) (local.get $gl))
    (f64.store (local.get $b) (local.get $gu))
    (i32.store (local.get $na) (i32.const 0))
    (i32.store (local.get $nb) (local.get $m))
    (local.set $active (i32.const 1))
    (block $roundsDone
      (loop $rounds
        (br_if $roundsDone (i32.or (i32.le_s (local.get $active) (i32.const 0))
                                   (i32.ge_s (local.get $round) (i32.const 2200))))
        ;; Retire converged intervals (their eigenvalues take the midpoint); move the
        ;; others to the front with their midpoints in x.
        (local.set $kept (i32.const 0))
        (local.set $t (i32.const 0))
        (block $retireDone
          (loop $retire
            (br_if $retireDone (i32.ge_s (local.get $t) (local.get $active)))
            (local.set $at (f64.load (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 3)))))
            (local.set $bt (f64.load (i32.add (local.get $b) (i32.shl (local.get $t) (i32.const 3)))))
            (local.set $lo (i32.load (i32.add (local.get $na) (i32.shl (local.get $t) (i32.const 2)))))
            (local.set $hi (i32.load (i32.add (local.get $nb) (i32.shl (local.get $t) (i32.const 2)))))
            (local.set $mid (f64.mul (f64.const 0.5) (f64.add (local.get $at) (local.get $bt))))
            (if (i32.or
                  (i32.or
                    (f64.le (f64.sub (local.get $bt) (local.get $at))
                      (f64.max (local.get $atol)
                        (f64.mul (f64.const 0x1p-51)
                          (f64.max (f64.abs (local.get $at)) (f64.abs (local.get $bt))))))
                    (f64.eq (local.get $mid) (local.get $at)))
                  (f64.eq (local.get $mid) (local.get $bt)))
              (then
                (call $fill (local.get $out) (local.get $lo)
                  (select (local.get $hi) (local.get $count) (i32.lt_s (local.get $hi) (local.get $count)))
                  (local.get $mid)))
              (else
                (f64.store (i32.add (local.get $a) (i32.shl (local.get $kept) (i32.const 3))) (local.get $at))
                (f64.store (i32.add (local.get $b) (i32.shl (local.get $kept) (i32.const 3))) (local.get $bt))
                (i32.store (i32.add (local.get $na) (i32.shl (local.get $kept) (i32.const 2))) (local.get $lo))
                (i32.store (i32.add (local.get $nb) (i32.shl (local.get $kept) (i32.const 2))) (local.get $hi))
                (f64.store (i32.add (local.get $x) (i32.shl (local.get $kept) (i32.const 3))) (local.get $mid))
                (local.set $kept (i32.add (local.get $kept) (i32.const 1)))))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $retire)))
        (br_if $roundsDone (i32.eqz (local.get $kept)))
        (call $sturm (local.get $d) (local.get $e2) (local.get $m) (local.get $pivmin)
          (local.get $x) (local.get $kept) (local.get $counts))
        ;; Split each interval at its midpoint, keeping the halves with a wanted index;
        ;; the count is clamped to [na, nb] (monotone in exact arithmetic).
        (local.set $next (i32.const 0))
        (local.set $t (i32.const 0))
        (block $splitDone
          (loop $split
            (br_if $splitDone (i32.ge_s (local.get $t) (local.get $kept)))
            (local.set $mid (f64.load (i32.add (local.get $x) (i32.shl (local.get $t) (i32.const 3)))))
            (local.set $lo (i32.load (i32.add (local.get $na) (i32.shl (local.get $t) (i32.const 2)))))
            (local.set $hi (i32.load (i32.add (local.get $nb) (i32.shl (local.get $t) (i32.const 2)))))
            (local.set $c (i32.trunc_f64_s
              (f64.load (i32.add (local.get $counts) (i32.shl (local.get $t) (i32.const 3))))))
            (if (i32.lt_s (local.get $c) (local.get $lo)) (then (local.set $c (local.get $lo))))
            (if (i32.gt_s (local.get $c) (local.get $hi)) (then (local.set $c (local.get $hi))))
            (if (i32.gt_s (local.get $c) (local.get $lo))
              (then
                (f64.store (i32.add (local.get $a2) (i32.shl (local.get $next) (i32.const 3)))
                  (f64.load (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 3)))))
                (f64.store (i32.add (local.get $b2) (i32.shl (local.get $next) (i32.const 3))) (local.get $mid))
                (i32.store (i32.add (local.get $na2) (i32.shl (local.get $next) (i32.const 2))) (local.get $lo))
                (i32.store (i32.add (local.get $nb2) (i32.shl (local.get $next) (i32.const 2))) (local.get $c))
                (local.set $next (i32.add (local.get $next) (i32.const 1)))))
            (if (i32.and (i32.gt_s (local.get $hi) (local.get $c)) (i32.lt_s (local.get $c) (local.get $count)))
              (then
                (f64.store (i32.add (local.get $a2) (i32.shl (local.get $next) (i32.const 3))) (local.get $mid))
                (f64.store (i32.add (local.get $b2) (i32.shl (local.get $next) (i32.const 3)))
                  (f64.load (i32.add (local.get $b) (i32.shl (local.get $t) (i32.const 3)))))
                (i32.store (i32.add (local.get $na2) (i32.shl (local.get $next) (i32.const 2))) (local.get $c))
                (i32.store (i32.add (local.get $nb2) (i32.shl (local.get $next) (i32.const 2))) (local.get $hi))
                (local.set $next (i32.add (local.get $next) (i32.const 1)))))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $split)))
        (local.set $swap (local.get $a)) (local.set $a (local.get $a2)) (local.set $a2 (local.get $swap))
        (local.set $swap (local.get $b)) (local.set $b (local.get $b2)) (local.set $b2 (local.get $swap))
        (local.set $swap (local.get $na)) (local.set $na (local.get $na2)) (local.set $na2 (local.get $swap))
        (local.set $swap (local.get $nb)) (local.set $nb (local.get $nb2)) (local.set $nb2 (local.get $swap))
        (local.set $active (local.get $next))
        (local.set $round (i32.add (local.get $round) (i32.const 1)))
        (br $rounds)))
    ;; Intervals still open after the round cap (not seen in practice): their midpoints.
    ;; After a round that retired everything this rewrites the same values, as the
    ;; TypeScript does.
    (local.set $t (i32.const 0))
    (block $openDone
      (loop $open
        (br_if $openDone (i32.ge_s (local.get $t) (local.get $active)))
        (local.set $hi (i32.load (i32.add (local.get $nb) (i32.shl (local.get $t) (i32.const 2)))))
        (call $fill (local.get $out)
          (i32.load (i32.add (local.get $na) (i32.shl (local.get $t) (i32.const 2))))
          (select (local.get $hi) (local.get $count) (i32.lt_s (local.get $hi) (local.get $count)))
          (f64.mul (f64.const 0.5)
            (f64.add (f64.load (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 3))))
                     (f64.load (i32.add (local.get $b) (i32.shl (local.get $t) (i32.const 3)))))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $open)))
    ;; Ascending order despite rounding: out[j] = out[j - 1] where it is smaller.
    (local.set $p (i32.add (local.get $out) (i32.const 8)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (block $sortDone
      (loop $sort
        (br_if $sortDone (i32.ge_u (local.get $p) (local.get $end)))
        (if (f64.lt (f64.load (local.get $p)) (f64.load (i32.sub (local.get $p) (i32.const 8))))
          (then (f64.store (local.get $p) (f64.load (i32.sub (local.get $p) (i32.const 8))))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $sort))))

  ;; The Gershgorin norm of a whole block (blockNorm): max_i |d_i| + |e_{i-1}| + |e_i|.
  (func $blockNorm (param $d i32) (param $e i32) (param $m i32) (result f64)
    (local $i i32) (local $end i32) (local $v f64) (local $t f64)
    (local.set $end (i32.shl (i32.sub (local.get $m) (i32.const 1)) (i32.const 3)))
    (block $done
      (loop $is
        (br_if $done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $v (f64.abs (f64.load (i32.add (local.get $d) (local.get $i)))))
        (if (i32.gt_s (local.get $i) (i32.const 0))
          (then
            (local.set $v (f64.add (local.get $v)
              (f64.abs (f64.load (i32.sub (i32.add (local.get $e) (local.get $i)) (i32.const 8))))))))
        (if (i32.lt_s (local.get $i) (local.get $end))
          (then
            (local.set $v (f64.add (local.get $v)
              (f64.abs (f64.load (i32.add (local.get $e) (local.get $i))))))))
        (if (f64.gt (local.get $v) (local.get $t)) (then (local.set $t (local.get $v))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $is)))
    (local.get $t))

  ;; ---------------------------------------------------------------------------
  ;; dlagtf (factorShiftedTridiagonal) for m >= 2: T - lambda I = P L U with partial
  ;; pivoting; a (diagonal), b (super-) and c (sub-diagonal) are overwritten by the
  ;; factors, d2 receives U's second super-diagonal and piv (bytes) the interchanges.
  ;; ---------------------------------------------------------------------------
  (func $factorShifted (param $m i32) (param $a i32) (param $lambda f64) (param $b i32)
                       (param $c i32) (param $d2 i32) (param $piv i32)
    (local $k i32) (local $last i32) (local $pa i32) (local $pb i32) (local $pc i32)
    (local $scale1 f64) (local $scale2 f64) (local $piv1 f64) (local $piv2 f64)
    (local $ak f64) (local $ck f64) (local $mult f64) (local $temp f64)
    (f64.store (local.get $a) (f64.sub (f64.load (local.get $a)) (local.get $lambda)))
    (local.set $scale1 (f64.add (f64.abs (f64.load (local.get $a))) (f64.abs (f64.load (local.get $b)))))
    ;; k runs to m - 2; "k < m - 2" is k < last.
    (local.set $last (i32.sub (local.get $m) (i32.const 2)))
    (block $done
      (loop $ks
        (br_if $done (i32.gt_s (local.get $k) (local.get $last)))
        (local.set $pa (i32.add (local.get $a) (i32.shl (local.get $k) (i32.const 3))))
        (local.set $pb (i32.add (local.get $b) (i32.shl (local.get $k) (i32.const 3))))
        (local.set $pc (i32.add (local.get $c) (i32.shl (local.get $k) (i32.const 3))))
        (f64.store offset=8 (local.get $pa) (f64.sub (f64.load offset=8 (local.get $pa)) (local.get $lambda)))
        (local.set $scale2 (f64.add (f64.abs (f64.load (local.get $pc)))
                                    (f64.abs (f64.load offset=8 (local.get $pa)))))
        (if (i32.lt_s (local.get $k) (local.get $last))
          (then
            (local.set $scale2 (f64.add (local.get $scale2) (f64.abs (f64.load offset=8 (local.get $pb)))))))
        (local.set $ak (f64.load (local.get $pa)))
        (local.set $piv1
          (if (result f64) (f64.eq (local.get $ak) (f64.const 0))
            (then (f64.const 0))
            (else (f64.div (f64.abs (local.get $ak)) (local.get $scale1)))))
        (local.set $ck (f64.load (local.get $pc)))
        (if (f64.eq (local.get $ck) (f64.const 0))
          (then
            (i32.store8 (i32.add (local.get $piv) (local.get $k)) (i32.const 0))
            (local.set $scale1 (local.get $scale2))
            (if (i32.lt_s (local.get $k) (local.get $last))
              (then (f64.store (i32.add (local.get $d2) (i32.shl (local.get $k) (i32.const 3))) (f64.const 0)))))
          (else
            (local.set $piv2 (f64.div (f64.abs (local.get $ck)) (local.get $scale2)))
            (if (f64.le (local.get $piv2) (local.get $piv1))
              (then
                (i32.store8 (i32.add (local.get $piv) (local.get $k)) (i32.const 0))
                (local.set $scale1 (local.get $scale2))
                (local.set $ck (f64.div (local.get $ck) (local.get $ak)))
                (f64.store (local.get $pc) (local.get $ck))
                (f64.store offset=8 (local.get $pa)
                  (f64.sub (f64.load offset=8 (local.get $pa)) (f64.mul (local.get $ck) (f64.load (local.get $pb)))))
                (if (i32.lt_s (local.get $k) (local.get $last))
                  (then (f64.store (i32.add (local.get $d2) (i32.shl (local.get $k) (i32.const 3))) (f64.const 0)))))
              (else
                (i32.store8 (i32.add (local.get $piv) (local.get $k)) (i32.const 1))
                (local.set $mult (f64.div (local.get $ak) (local.get $ck)))
                (f64.store (local.get $pa) (local.get $ck))
                (local.set $temp (f64.load offset=8 (local.get $pa)))
                (f64.store offset=8 (local.get $pa)
                  (f64.sub (f64.load (local.get $pb)) (f64.mul (local.get $mult) (local.get $temp))))
                (if (i32.lt_s (local.get $k) (local.get $last))
                  (then
                    (f64.store (i32.add (local.get $d2) (i32.shl (local.get $k) (i32.const 3)))
                      (f64.load offset=8 (local.get $pb)))
                    (f64.store offset=8 (local.get $pb)
                      (f64.mul (f64.neg (local.get $mult)) (f64.load offset=8 (local.get $pb))))))
                (f64.store (local.get $pb) (local.get $temp))
                (f64.store (local.get $pc) (local.get $mult))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $ks))))

  ;; ---------------------------------------------------------------------------
  ;; dlagts with job = -1 (solveShiftedTridiagonal): y = (T - lambda I)^-1 y from the
  ;; dlagtf factors, a pivot that would overflow the quotient perturbed by
  ;; sign(u_kk) tol, doubled until it does not (or scaled by 1 / safmin when tiny).
  ;; ---------------------------------------------------------------------------
  (func $solveShifted (param $m i32) (param $a i32) (param $b i32) (param $c i32) (param $d2 i32)
                      (param $piv i32) (param $y i32) (param $tol f64)
    (local $k i32) (local $p i32) (local $py i32)
    (local $ck f64) (local $yk f64) (local $temp f64) (local $ak f64) (local $absak f64) (local $pert f64)
    ;; Forward: P and L^-1, row k from row k - 1 (py = &y[k - 1]).
    (local.set $k (i32.const 1))
    (block $fDone
      (loop $fs
        (br_if $fDone (i32.ge_s (local.get $k) (local.get $m)))
        (local.set $p (i32.shl (i32.sub (local.get $k) (i32.const 1)) (i32.const 3)))
        (local.set $py (i32.add (local.get $y) (local.get $p)))
        (local.set $ck (f64.load (i32.add (local.get $c) (local.get $p))))
        (if (i32.eqz (i32.load8_u (i32.add (local.get $piv) (i32.sub (local.get $k) (i32.const 1)))))
          (then
            (f64.store offset=8 (local.get $py)
              (f64.sub (f64.load offset=8 (local.get $py)) (f64.mul (local.get $ck) (f64.load (local.get $py))))))
          (else
            (local.set $temp (f64.load (local.get $py)))
            (local.set $yk (f64.load offset=8 (local.get $py)))
            (f64.store (local.get $py) (local.get $yk))
            (f64.store offset=8 (local.get $py)
              (f64.sub (local.get $temp) (f64.mul (local.get $ck) (local.get $yk))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $fs)))
    ;; Backward: U^-1, from the last row up (py = &y[k]).
    (local.set $k (i32.sub (local.get $m) (i32.const 1)))
    (block $bDone
      (loop $bs
        (br_if $bDone (i32.lt_s (local.get $k) (i32.const 0)))
        (local.set $p (i32.shl (local.get $k) (i32.const 3)))
        (local.set $py (i32.add (local.get $y) (local.get $p)))
        (local.set $temp (f64.load (local.get $py)))
        (if (i32.le_s (local.get $k) (i32.sub (local.get $m) (i32.const 3)))
          (then
            (local.set $temp (f64.sub
              (f64.sub (local.get $temp)
                (f64.mul (f64.load (i32.add (local.get $b) (local.get $p))) (f64.load offset=8 (local.get $py))))
              (f64.mul (f64.load (i32.add (local.get $d2) (local.get $p))) (f64.load offset=16 (local.get $py))))))
          (else
            (if (i32.eq (local.get $k) (i32.sub (local.get $m) (i32.const 2)))
              (then
                (local.set $temp (f64.sub (local.get $temp)
                  (f64.mul (f64.load (i32.add (local.get $b) (local.get $p))) (f64.load offset=8 (local.get $py)))))))))
        (local.set $ak (f64.load (i32.add (local.get $a) (local.get $p))))
        (local.set $pert (select (local.get $tol) (f64.neg (local.get $tol))
                                 (f64.ge (local.get $ak) (f64.const 0))))
        (block $ready
          (loop $perturb
            (local.set $absak (f64.abs (local.get $ak)))
            (br_if $ready (i32.eqz (f64.lt (local.get $absak) (f64.const 1))))
            (if (f64.lt (local.get $absak) (f64.const 0x1p-1022))
              (then
                (if (i32.or (f64.eq (local.get $absak) (f64.const 0))
                            (f64.gt (f64.mul (f64.abs (local.get $temp)) (f64.const 0x1p-1022)) (local.get $absak)))
                  (then
                    (local.set $ak (f64.add (local.get $ak) (local.get $pert)))
                    (local.set $pert (f64.mul (local.get $pert) (f64.const 2)))
                    (br $perturb)))
                (local.set $temp (f64.mul (local.get $temp) (f64.const 0x1p1022)))
                (local.set $ak (f64.mul (local.get $ak) (f64.const 0x1p1022))))
              (else
                (if (f64.gt (f64.abs (local.get $temp)) (f64.mul (local.get $absak) (f64.const 0x1p1022)))
                  (then
                    (local.set $ak (f64.add (local.get $ak) (local.get $pert)))
                    (local.set $pert (f64.mul (local.get $pert) (f64.const 2)))
                    (br $perturb)))))))
        (f64.store (local.get $py) (f64.div (local.get $temp) (local.get $ak)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $bs))))

  ;; One classical Gram-Schmidt pass of x (length m) against rows g..h-1 of rows (row q
  ;; at q m): the same $dots2 and $combine2 calls as orthogonalizeAgainstRows makes on
  ;; the wasm backend, half of the rows as each operand, an odd last row on its own.
  (func $orthogonalize (param $rows i32) (param $m i32) (param $g i32) (param $h i32)
                       (param $x i32) (param $coef i32)
    (local $count i32) (local $half i32) (local $row i32) (local $base i32) (local $second i32)
    (local $last i32) (local $odd i32)
    (local.set $count (i32.sub (local.get $h) (local.get $g)))
    (local.set $half (i32.shr_s (local.get $count) (i32.const 1)))
    (local.set $row (i32.shl (local.get $m) (i32.const 3)))
    (local.set $base (i32.add (local.get $rows) (i32.mul (local.get $g) (local.get $row))))
    (local.set $second (i32.add (local.get $base) (i32.mul (local.get $half) (local.get $row))))
    (call $dots2 (local.get $base) (local.get $m) (local.get $second) (local.get $m) (local.get $half)
      (local.get $x) (local.get $m) (local.get $coef)
      (i32.add (local.get $coef) (i32.shl (local.get $half) (i32.const 3))))
    (if (i32.and (local.get $count) (i32.const 1))
      (then
        (local.set $last (i32.add (local.get $base)
          (i32.mul (i32.sub (local.get $count) (i32.const 1)) (local.get $row))))
        (local.set $odd (i32.add (local.get $coef) (i32.shl (local.get $half) (i32.const 4))))
        (call $dots2 (local.get $last) (local.get $m) (local.get $last) (local.get $m) (i32.const 1)
          (local.get $x) (local.get $m) (local.get $odd) (i32.add (local.get $odd) (i32.const 8)))
        (f64.store offset=8 (local.get $odd) (f64.const 0))
        (call $combine2 (local.get $x) (local.get $m) (local.get $base) (local.get $m)
          (local.get $second) (local.get $m) (local.get $half) (local.get $coef)
          (i32.add (local.get $coef) (i32.shl (local.get $half) (i32.const 3))))
        (call $combine2 (local.get $x) (local.get $m) (local.get $last) (local.get $m)
          (local.get $last) (local.get $m) (i32.const 1) (local.get $odd)
          (i32.add (local.get $odd) (i32.const 8))))
      (else
        (call $combine2 (local.get $x) (local.get $m) (local.get $base) (local.get $m)
          (local.get $second) (local.get $m) (local.get $half) (local.get $coef)
          (i32.add (local.get $coef) (i32.shl (local.get $half) (i32.const 3)))))))

  ;; ---------------------------------------------------------------------------
  ;; inverseIteration(d, e, m, lambda, count, starts, zb, x, coef, work): the vectors of
  ;; one unreduced block of order m >= 2 (diagonal d, off-diagonal e) for its count
  ;; eigenvalues lambda (ascending), as inverseIterationBlocks computes them: vector q
  ;; from the random start starts[q m ..] (drawn by the caller), shifts within a cluster
  ;; pulled apart by 10 eps |lambda|, at most five solves with dstein's growth test,
  ;; re-orthogonalisation (twice) against the earlier vectors of its cluster, then
  ;; scaled by its largest entry, normalised, its largest-magnitude entry made positive
  ;; and stored as row q of zb. x: m doubles; coef: count + 1 doubles; work: 4 m doubles
  ;; and m bytes. Returns how many vectors missed the growth test, or -(q + 1) when
  ;; vector q came out zero or not finite (the caller's ConvergenceError).
  ;; ---------------------------------------------------------------------------
  (func $inverseIteration (export "inverseIteration")
                          (param $d i32) (param $e i32) (param $m i32) (param $lambda i32)
                          (param $count i32) (param $starts i32) (param $zb i32) (param $x i32)
                          (param $coef i32) (param $work i32) (result i32)
    (local $row i32) (local $wa i32) (local $wb i32) (local $wc i32) (local $wd i32) (local $piv i32)
    (local $i i32) (local $end i32) (local $q i32) (local $src i32) (local $gpind i32) (local $its i32)
    (local $nrmchk i32) (local $converged i32) (local $jmax i32) (local $failures i32)
    (local $onenrm f64) (local $ortol f64) (local $dtpcrt f64) (local $xjm f64) (local $xj f64)
    (local $pertol f64) (local $tol f64) (local $asum f64) (local $scl f64) (local $nrm f64)
    (local $v f64) (local $big f64) (local $ss f64)
    (local.set $row (i32.shl (local.get $m) (i32.const 3)))
    (local.set $wa (local.get $work))
    (local.set $wb (i32.add (local.get $wa) (local.get $row)))
    (local.set $wc (i32.add (local.get $wb) (local.get $row)))
    (local.set $wd (i32.add (local.get $wc) (local.get $row)))
    (local.set $piv (i32.add (local.get $wd) (local.get $row)))
    (local.set $onenrm (call $blockNorm (local.get $d) (local.get $e) (local.get $m)))
    (local.set $ortol (f64.mul (f64.const 1e-3) (local.get $onenrm)))
    (local.set $dtpcrt (f64.sqrt (f64.div (f64.const 0.1) (f64.convert_i32_s (local.get $m)))))
    (block $vectorsDone
      (loop $vectors
        (br_if $vectorsDone (i32.ge_s (local.get $q) (local.get $count)))
        (local.set $xj (f64.load (i32.add (local.get $lambda) (i32.shl (local.get $q) (i32.const 3)))))
        (if (i32.gt_s (local.get $q) (i32.const 0))
          (then
            (local.set $pertol (f64.mul (f64.const 10) (f64.abs (f64.mul (f64.const 0x1p-53) (local.get $xj)))))
            (if (f64.lt (f64.sub (local.get $xj) (local.get $xjm)) (local.get $pertol))
              (then (local.set $xj (f64.add (local.get $xjm) (local.get $pertol)))))
            (if (f64.gt (f64.abs (f64.sub (local.get $xj) (local.get $xjm))) (local.get $ortol))
              (then (local.set $gpind (local.get $q)))))
          (else (local.set $gpind (i32.const 0))))
        ;; x = the start, wa = d, wb = wc = e (byte offsets; e has m - 1 entries).
        (local.set $src (i32.add (local.get $starts) (i32.mul (local.get $q) (local.get $row))))
        (local.set $end (i32.sub (local.get $row) (i32.const 8)))
        (local.set $i (i32.const 0))
        (block $copyDone
          (loop $copy
            (br_if $copyDone (i32.ge_s (local.get $i) (local.get $row)))
            (f64.store (i32.add (local.get $x) (local.get $i)) (f64.load (i32.add (local.get $src) (local.get $i))))
            (f64.store (i32.add (local.get $wa) (local.get $i)) (f64.load (i32.add (local.get $d) (local.get $i))))
            (if (i32.lt_s (local.get $i) (local.get $end))
              (then
                (f64.store (i32.add (local.get $wb) (local.get $i)) (f64.load (i32.add (local.get $e) (local.get $i))))
                (f64.store (i32.add (local.get $wc) (local.get $i)) (f64.load (i32.add (local.get $e) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $copy)))
        (call $factorShifted (local.get $m) (local.get $wa) (local.get $xj) (local.get $wb)
          (local.get $wc) (local.get $wd) (local.get $piv))
        ;; tol = eps max |entries of U| (eps when U is zero).
        (local.set $tol (f64.max (f64.max (f64.abs (f64.load (local.get $wa)))
                                          (f64.abs (f64.load offset=8 (local.get $wa))))
                                 (f64.abs (f64.load (local.get $wb)))))
        (local.set $i (i32.const 16))
        (block $tolDone
          (loop $tols
            (br_if $tolDone (i32.ge_s (local.get $i) (local.get $row)))
            (local.set $tol (f64.max (f64.max (f64.max (local.get $tol)
                (f64.abs (f64.load (i32.add (local.get $wa) (local.get $i)))))
                (f64.abs (f64.load (i32.sub (i32.add (local.get $wb) (local.get $i)) (i32.const 8)))))
                (f64.abs (f64.load (i32.sub (i32.add (local.get $wd) (local.get $i)) (i32.const 16))))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $tols)))
        (local.set $tol (f64.mul (local.get $tol) (f64.const 0x1p-53)))
        (if (f64.eq (local.get $tol) (f64.const 0)) (then (local.set $tol (f64.const 0x1p-53))))
        (local.set $nrmchk (i32.const 0))
        (local.set $converged (i32.const 0))
        (local.set $jmax (i32.const 0))
        (local.set $its (i32.const 0))
        (block $itsDone
          (loop $iterations
            (br_if $itsDone (i32.ge_s (local.get $its) (i32.const 5)))
            (local.set $its (i32.add (local.get $its) (i32.const 1)))
            ;; Scale the iterate so that the solve cannot overflow, then solve.
            (local.set $asum (f64.const 0))
            (local.set $i (i32.const 0))
            (block $asumDone
              (loop $asums
                (br_if $asumDone (i32.ge_s (local.get $i) (local.get $row)))
                (local.set $asum (f64.add (local.get $asum) (f64.abs (f64.load (i32.add (local.get $x) (local.get $i))))))
                (local.set $i (i32.add (local.get $i) (i32.const 8)))
                (br $asums)))
            (local.set $scl (f64.div
              (f64.mul (f64.mul (f64.convert_i32_s (local.get $m)) (local.get $onenrm))
                       (f64.max (f64.const 0x1p-53) (f64.abs (f64.load (i32.sub (i32.add (local.get $wa) (local.get $row)) (i32.const 8))))))
              (local.get $asum)))
            (local.set $i (i32.const 0))
            (block $scaleDone
              (loop $scales
                (br_if $scaleDone (i32.ge_s (local.get $i) (local.get $row)))
                (f64.store (i32.add (local.get $x) (local.get $i))
                  (f64.mul (f64.load (i32.add (local.get $x) (local.get $i))) (local.get $scl)))
                (local.set $i (i32.add (local.get $i) (i32.const 8)))
                (br $scales)))
            (call $solveShifted (local.get $m) (local.get $wa) (local.get $wb) (local.get $wc)
              (local.get $wd) (local.get $piv) (local.get $x) (local.get $tol))
            (if (i32.ne (local.get $gpind) (local.get $q))
              (then
                (call $orthogonalize (local.get $zb) (local.get $m) (local.get $gpind) (local.get $q)
                  (local.get $x) (local.get $coef))
                (call $orthogonalize (local.get $zb) (local.get $m) (local.get $gpind) (local.get $q)
                  (local.get $x) (local.get $coef))))
            ;; Growth test on the largest entry (first index of the largest magnitude).
            (local.set $jmax (i32.const 0))
            (local.set $nrm (f64.const 0))
            (local.set $i (i32.const 0))
            (block $maxDone
              (loop $maxs
                (br_if $maxDone (i32.ge_s (local.get $i) (local.get $m)))
                (local.set $v (f64.abs (f64.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 3))))))
                (if (f64.gt (local.get $v) (local.get $nrm))
                  (then
                    (local.set $nrm (local.get $v))
                    (local.set $jmax (local.get $i))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $maxs)))
            (br_if $iterations (f64.lt (local.get $nrm) (local.get $dtpcrt)))
            (local.set $nrmchk (i32.add (local.get $nrmchk) (i32.const 1)))
            (br_if $iterations (i32.lt_s (local.get $nrmchk) (i32.const 3)))
            (local.set $converged (i32.const 1))))
        (if (i32.eqz (local.get $converged))
          (then (local.set $failures (i32.add (local.get $failures) (i32.const 1)))))
        ;; Scale by the largest entry, then to unit 2-norm, largest-magnitude entry positive.
        (local.set $big (f64.const 0))
        (local.set $i (i32.const 0))
        (block $bigDone
          (loop $bigs
            (br_if $bigDone (i32.ge_s (local.get $i) (local.get $row)))
            (local.set $big (f64.max (local.get $big) (f64.abs (f64.load (i32.add (local.get $x) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $bigs)))
        (if (i32.or (i32.eqz (f64.gt (local.get $big) (f64.const 0)))
                    (f64.eq (local.get $big) (f64.const inf)))
          (then (return (i32.sub (i32.const -1) (local.get $q)))))
        (local.set $ss (f64.const 0))
        (local.set $i (i32.const 0))
        (block $normDone
          (loop $norms
            (br_if $normDone (i32.ge_s (local.get $i) (local.get $row)))
            (local.set $v (f64.div (f64.load (i32.add (local.get $x) (local.get $i))) (local.get $big)))
            (f64.store (i32.add (local.get $x) (local.get $i)) (local.get $v))
            (local.set $ss (f64.add (local.get $ss) (f64.mul (local.get $v) (local.get $v))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $norms)))
        (local.set $scl (f64.div (f64.const 1) (f64.sqrt (local.get $ss))))
        (if (f64.lt (f64.load (i32.add (local.get $x) (i32.shl (local.get $jmax) (i32.const 3)))) (f64.const 0))
          (then (local.set $scl (f64.neg (local.get $scl)))))
        (local.set $src (i32.add (local.get $zb) (i32.mul (local.get $q) (local.get $row))))
        (local.set $i (i32.const 0))
        (block $storeDone
          (loop $stores
            (br_if $storeDone (i32.ge_s (local.get $i) (local.get $row)))
            (f64.store (i32.add (local.get $src) (local.get $i))
              (f64.mul (f64.load (i32.add (local.get $x) (local.get $i))) (local.get $scl)))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $stores)))
        (local.set $xjm (local.get $xj))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $vectors)))
    (local.get $failures))
