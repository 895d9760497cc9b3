  ;; ---------------------------------------------------------------------------
  ;; pairFilter(dots, gn, thr, cls, len, na, rowThr, rowCls, lambda, kind, both, heap,
  ;;            count, out) -> the number of positions written to out
  ;;
  ;; The pair loop of a neighbour scan (distances.ts, scanRow) without its heaps: row a
  ;; against positions b = 0 .. len - 1, whose dot products with row a are dots[b]
  ;; (f64) and squared norms gn[b]. For each b, as scanRow computes them:
  ;;   p = (na + gn[b]) - 2 dots[b], replaced by 0 unless p > 0;
  ;;   kind 0: d = p; kind 1: d = p + lambda l with l = 0 when cls[b] (i32) is rowCls,
  ;;   else 2; kind 2: as kind 1, and the b of rowCls are skipped (cross-class only);
  ;;   kind 3: l = 2 for every b (all of another class; cls is not read).
  ;; It writes b (i32) to out when d <= t or, with both != 0, d <= thr[b], where t is the
  ;; smaller of rowThr and, once `count` values are seen, the largest of the `count`
  ;; smallest d of this call so far (a max-heap of count doubles at `heap`; count 0: t
  ;; is rowThr). d enters that heap after the test.
  ;;
  ;; Why this is exact. The caller passes thresholds no smaller than the live worst
  ;; distances of the heaps (they only shrink) and offers the positions written here,
  ;; in order, with scanRow's own tests. Row a's live heap holds the `count` smallest of
  ;; its earlier candidates and of this row's pairs so far, so its worst is at most t;
  ;; a pair not written has d above every threshold and scanRow would have rejected it
  ;; on both sides. So the same pairs are pushed in the same order (tested).
  ;;
  ;; Speed. With kinds 0 and 3 (l the same for all b) and the heap full, two pairs at a
  ;; time are computed in the f64x2 lanes, with the same operations (pmax(0, p) is
  ;; `p > 0 ? p : 0`), and both are passed over when neither can be written nor enter
  ;; the heap: d above the heap's largest value (t is at most that) and above thr[b].
  ;; Any other pair takes the scalar steps, one at a time, in order.
  ;; ---------------------------------------------------------------------------
  (func (export "pairFilter")
    (param $dots i32) (param $gn i32) (param $thr i32) (param $cls i32) (param $len i32)
    (param $na f64) (param $rowThr f64) (param $rowCls i32) (param $lambda f64)
    (param $kind i32) (param $both i32) (param $heap i32) (param $count i32) (param $out i32)
    (result i32)
    (local $b i32) (local $written i32) (local $hs i32) (local $pos i32) (local $next i32)
    (local $right i32) (local $p f64) (local $d f64) (local $l f64) (local $t f64) (local $v f64)
    (local $simd i32) (local $hm f64) (local $off i32) (local $pv v128) (local $mask v128)
    (local $nav v128) (local $lv v128)
    (local.set $t (local.get $rowThr))
    ;; The bound of the two-lane pass: the heap's largest value once full, t without a heap.
    (local.set $hm (select (local.get $t) (f64.const inf) (i32.eqz (local.get $count))))
    (local.set $simd (i32.or (i32.eqz (local.get $kind)) (i32.eq (local.get $kind) (i32.const 3))))
    (local.set $nav (f64x2.splat (local.get $na)))
    (local.set $lv (f64x2.splat (f64.mul (local.get $lambda) (f64.const 2))))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_s (local.get $b) (local.get $len)))
        ;; Two pairs at a time while neither can matter.
        (if (i32.and
              (i32.and (local.get $simd) (i32.lt_s (i32.add (local.get $b) (i32.const 1)) (local.get $len)))
              (i32.or (i32.eqz (local.get $count)) (i32.eq (local.get $hs) (local.get $count))))
          (then
            (local.set $off (i32.shl (local.get $b) (i32.const 3)))
            (local.set $pv
              (f64x2.pmax (f64x2.splat (f64.const 0))
                (f64x2.sub
                  (f64x2.add (local.get $nav) (v128.load (i32.add (local.get $gn) (local.get $off))))
                  (f64x2.mul (f64x2.splat (f64.const 2)) (v128.load (i32.add (local.get $dots) (local.get $off)))))))
            (if (i32.eq (local.get $kind) (i32.const 3))
              (then (local.set $pv (f64x2.add (local.get $pv) (local.get $lv)))))
            (local.set $mask (f64x2.le (local.get $pv) (f64x2.splat (local.get $hm))))
            (if (local.get $both)
              (then
                (local.set $mask
                  (v128.or (local.get $mask)
                    (f64x2.le (local.get $pv) (v128.load (i32.add (local.get $thr) (local.get $off))))))))
            (if (i32.eqz (v128.any_true (local.get $mask)))
              (then
                (local.set $b (i32.add (local.get $b) (i32.const 2)))
                (br $pairs)))))
        (block $skip
          (local.set $l (f64.const 0))
          (if (i32.eq (local.get $kind) (i32.const 3))
            (then (local.set $l (f64.const 2)))
            (else
              (if (local.get $kind)
                (then
                  (if (i32.eq (i32.load (i32.add (local.get $cls) (i32.shl (local.get $b) (i32.const 2))))
                              (local.get $rowCls))
                    (then (br_if $skip (i32.eq (local.get $kind) (i32.const 2))))
                    (else (local.set $l (f64.const 2))))))))
          (local.set $p
            (f64.sub
              (f64.add (local.get $na) (f64.load (i32.add (local.get $gn) (i32.shl (local.get $b) (i32.const 3)))))
              (f64.mul (f64.const 2) (f64.load (i32.add (local.get $dots) (i32.shl (local.get $b) (i32.const 3)))))))
          (if (i32.eqz (f64.gt (local.get $p) (f64.const 0)))
            (then (local.set $p (f64.const 0))))
          (local.set $d (local.get $p))
          (if (local.get $kind)
            (then (local.set $d (f64.add (local.get $p) (f64.mul (local.get $lambda) (local.get $l))))))
          (if (i32.or
                (f64.le (local.get $d) (local.get $t))
                (i32.and (i32.ne (local.get $both) (i32.const 0))
                  (f64.le (local.get $d)
                    (f64.load (i32.add (local.get $thr) (i32.shl (local.get $b) (i32.const 3)))))))
            (then
              (i32.store (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 2)))
                (local.get $b))
              (local.set $written (i32.add (local.get $written) (i32.const 1)))))
          ;; The running set of this row's `count` smallest d (a NaN never enters it).
          (br_if $skip (i32.eqz (local.get $count)))
          (br_if $skip (f64.ne (local.get $d) (local.get $d)))
          (if (i32.lt_s (local.get $hs) (local.get $count))
            (then
              ;; Sift up from the new leaf.
              (local.set $pos (local.get $hs))
              (block $up
                (loop $ups
                  (br_if $up (i32.eqz (local.get $pos)))
                  (local.set $next (i32.shr_u (i32.sub (local.get $pos) (i32.const 1)) (i32.const 1)))
                  (local.set $v (f64.load (i32.add (local.get $heap) (i32.shl (local.get $next) (i32.const 3)))))
                  (br_if $up (f64.ge (local.get $v) (local.get $d)))
                  (f64.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 3))) (local.get $v))
                  (local.set $pos (local.get $next))
                  (br $ups)))
              (f64.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 3))) (local.get $d))
              (local.set $hs (i32.add (local.get $hs) (i32.const 1))))
            (else
              (br_if $skip (i32.eqz (f64.lt (local.get $d) (f64.load (local.get $heap)))))
              ;; Replace the root and sift down.
              (local.set $pos (i32.const 0))
              (block $down
                (loop $downs
                  (local.set $next (i32.add (i32.shl (local.get $pos) (i32.const 1)) (i32.const 1)))
                  (br_if $down (i32.ge_s (local.get $next) (local.get $count)))
                  (local.set $right (i32.add (local.get $next) (i32.const 1)))
                  (if (i32.lt_s (local.get $right) (local.get $count))
                    (then
                      (if (f64.gt
                            (f64.load (i32.add (local.get $heap) (i32.shl (local.get $right) (i32.const 3))))
                            (f64.load (i32.add (local.get $heap) (i32.shl (local.get $next) (i32.const 3)))))
                        (then (local.set $next (local.get $right))))))
                  (local.set $v (f64.load (i32.add (local.get $heap) (i32.shl (local.get $next) (i32.const 3)))))
                  (br_if $down (f64.le (local.get $v) (local.get $d)))
                  (f64.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 3))) (local.get $v))
                  (local.set $pos (local.get $next))
                  (br $downs)))
              (f64.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 3))) (local.get $d))))
          (if (i32.eq (local.get $hs) (local.get $count))
            (then
              (local.set $hm (f64.load (local.get $heap)))
              (local.set $t (f64.min (local.get $rowThr) (local.get $hm))))))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $pairs)))
    (local.get $written))
