;; WebAssembly SIMD kernels of the dense linear algebra (assembled by
;; scripts/build-wasm.ts into module.ts; loaded by backend.ts). The scalar loops of the
;; tridiagonal eigen-solver are in tridiagonal.wat, the single-precision product in
;; single.wat, the pair filter of the neighbour scans in pairs.wat, the thin products
;; of the Z-step's basis in thin.wat, the loops of the Householder reduction and of the
;; back-transformation in householder.wat; the build splices each in at its
;; `;; @include` line at the end of this module.
;;
;; All pointers are byte offsets into the exported memory; leading dimensions are in
;; elements (f64). Only baseline SIMD (f64x2 mul and add, no relaxed-simd FMA), so the
;; module runs on every engine that passes the SIMD validation in backend.ts. Every
;; summation order is a fixed function of the shapes, never of addresses, so a given
;; input gives the same bits on every call.
(module
  (memory (export "memory") 1)

  ;; The GEMM (its own file so that fma.wat assembles it with fused multiply-adds).
  ;; @include gemm.wat

  ;; ---------------------------------------------------------------------------
  ;; transpose(src, rows, cols, dst): dst[j * rows + i] = src[i * cols + j] for the
  ;; compact row-major rows x cols matrix at src (dst compact, cols x rows; the two
  ;; regions must not overlap). Tiles of 16 x 16 keep the rows read and the rows written
  ;; in L1; inside a tile 2 x 2 blocks move by f64x2 shuffles; an odd last row or column
  ;; goes element by element. Values are moved, never computed: the bits are the input's.
  ;; It serves A^T B for row-major tall blocks (gemm.ts, gemmAtBWasm): the blocks are
  ;; copied in as they are and transposed here, about four times faster than in JS.
  ;; ---------------------------------------------------------------------------
  (func $transpose (export "transpose") (param $src i32) (param $rows i32) (param $cols i32) (param $dst i32)
    (local $i0 i32) (local $j0 i32) (local $i1 i32) (local $j1 i32) (local $i i32) (local $j i32)
    (local $r2 i32) (local $c2 i32) (local $sb i32) (local $db i32) (local $s i32) (local $d i32)
    (local $x v128) (local $y v128)
    (local.set $sb (i32.shl (local.get $cols) (i32.const 3)))
    (local.set $db (i32.shl (local.get $rows) (i32.const 3)))
    (local.set $r2 (i32.and (local.get $rows) (i32.const -2)))
    (local.set $c2 (i32.and (local.get $cols) (i32.const -2)))
    (block $tilesDone
      (loop $tiles
        (br_if $tilesDone (i32.ge_u (local.get $i0) (local.get $r2)))
        (local.set $i1 (i32.add (local.get $i0) (i32.const 16)))
        (if (i32.gt_u (local.get $i1) (local.get $r2)) (then (local.set $i1 (local.get $r2))))
        (local.set $j0 (i32.const 0))
        (block $colTilesDone
          (loop $colTiles
            (br_if $colTilesDone (i32.ge_u (local.get $j0) (local.get $c2)))
            (local.set $j1 (i32.add (local.get $j0) (i32.const 16)))
            (if (i32.gt_u (local.get $j1) (local.get $c2)) (then (local.set $j1 (local.get $c2))))
            (local.set $i (local.get $i0))
            (block $rowsDone
              (loop $rowsL
                (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $i1)))
                (local.set $j (local.get $j0))
                (block $colsDone
                  (loop $colsL
                    (br_if $colsDone (i32.ge_u (local.get $j) (local.get $j1)))
                    ;; s -> src[i][j], d -> dst[j][i]
                    (local.set $s (i32.add (local.get $src)
                      (i32.shl (i32.add (i32.mul (local.get $i) (local.get $cols)) (local.get $j)) (i32.const 3))))
                    (local.set $d (i32.add (local.get $dst)
                      (i32.shl (i32.add (i32.mul (local.get $j) (local.get $rows)) (local.get $i)) (i32.const 3))))
                    (local.set $x (v128.load (local.get $s)))
                    (local.set $y (v128.load (i32.add (local.get $s) (local.get $sb))))
                    (v128.store (local.get $d)
                      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $x) (local.get $y)))
                    (v128.store (i32.add (local.get $d) (local.get $db))
                      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $x) (local.get $y)))
                    (local.set $j (i32.add (local.get $j) (i32.const 2)))
                    (br $colsL)))
                (local.set $i (i32.add (local.get $i) (i32.const 2)))
                (br $rowsL)))
            (local.set $j0 (i32.add (local.get $j0) (i32.const 16)))
            (br $colTiles)))
        (local.set $i0 (i32.add (local.get $i0) (i32.const 16)))
        (br $tiles)))
    ;; The odd last column (rows 0 .. r2 - 1 of it), then the odd last row (all columns).
    (if (i32.ne (local.get $c2) (local.get $cols))
      (then
        (local.set $i (i32.const 0))
        (block $lastColDone
          (loop $lastCol
            (br_if $lastColDone (i32.ge_u (local.get $i) (local.get $r2)))
            (f64.store
              (i32.add (local.get $dst)
                (i32.shl (i32.add (i32.mul (local.get $c2) (local.get $rows)) (local.get $i)) (i32.const 3)))
              (f64.load (i32.add (local.get $src)
                (i32.shl (i32.add (i32.mul (local.get $i) (local.get $cols)) (local.get $c2)) (i32.const 3)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $lastCol)))))
    (if (i32.ne (local.get $r2) (local.get $rows))
      (then
        (local.set $j (i32.const 0))
        (block $lastRowDone
          (loop $lastRow
            (br_if $lastRowDone (i32.ge_u (local.get $j) (local.get $cols)))
            (f64.store
              (i32.add (local.get $dst)
                (i32.shl (i32.add (i32.mul (local.get $j) (local.get $rows)) (local.get $r2)) (i32.const 3)))
              (f64.load (i32.add (local.get $src)
                (i32.shl (i32.add (i32.mul (local.get $r2) (local.get $cols)) (local.get $j)) (i32.const 3)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $lastRow))))))

  ;; ---------------------------------------------------------------------------
  ;; symv(a, lda, m, x, y): y[r] += sum_c S(r, c) x[c] for the symmetric m x m matrix S
  ;; whose entry (r, c), r >= c, is stored at a[c * lda + r] (one triangle; in row-major
  ;; terms row c holds column c of S from the diagonal on). Four stored rows per sweep:
  ;; each pass over r loads x[r] and y[r] once for four matrix entries, the matrix is
  ;; read exactly once, two r at a time in f64x2 lanes. The 4 x 4 diagonal block and the
  ;; m % 4 last columns are scalar.
  ;; ---------------------------------------------------------------------------
  (func $symv (export "symv") (param $a i32) (param $lda i32) (param $m i32) (param $x i32) (param $y i32)
    (local $j i32) (local $q i32) (local $r i32) (local $c0 i32) (local $c1 i32) (local $c2 i32)
    (local $c3 i32) (local $last i32)
    (local $v f64) (local $t0 f64) (local $t1 f64) (local $t2 f64)
    (local $t3 f64)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128) (local $xr v128)
    (local.set $lda (i32.shl (local.get $lda) (i32.const 3)))
    (block $sweepsDone
      (loop $sweeps
        (br_if $sweepsDone (i32.ge_s (i32.add (local.get $j) (i32.const 3)) (local.get $m)))
        (local.set $c0 (i32.add (local.get $a) (i32.mul (local.get $j) (local.get $lda))))
        (local.set $c1 (i32.add (local.get $c0) (local.get $lda)))
        (local.set $c2 (i32.add (local.get $c1) (local.get $lda)))
        (local.set $c3 (i32.add (local.get $c2) (local.get $lda)))
        ;; The 4 x 4 diagonal block: stored rows j + q, entries r in [j + q, j + 4).
        (local.set $q (i32.const 0))
        (loop $diag
          (call $column (i32.add (local.get $c0) (i32.mul (local.get $q) (local.get $lda)))
            (local.get $x) (local.get $y) (i32.add (local.get $j) (local.get $q))
            (i32.add (local.get $j) (i32.const 4)))
          (local.set $q (i32.add (local.get $q) (i32.const 1)))
          (br_if $diag (i32.lt_s (local.get $q) (i32.const 4))))
        ;; Below the block: r in [j + 4, m), two at a time (byte offsets from here on).
        (local.set $x0 (v128.load64_splat (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $x1 (v128.load64_splat offset=8 (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $x2 (v128.load64_splat offset=16 (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $x3 (v128.load64_splat offset=24 (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $s0 (v128.const i64x2 0 0))
        (local.set $s1 (v128.const i64x2 0 0))
        (local.set $s2 (v128.const i64x2 0 0))
        (local.set $s3 (v128.const i64x2 0 0))
        (local.set $r (i32.shl (i32.add (local.get $j) (i32.const 4)) (i32.const 3)))
        (local.set $last (i32.shl (i32.sub (local.get $m) (i32.const 1)) (i32.const 3)))
        (block $pairsDone
          (loop $pairs
            (br_if $pairsDone (i32.ge_s (local.get $r) (local.get $last)))
            (local.set $v0 (v128.load (i32.add (local.get $c0) (local.get $r))))
            (local.set $v1 (v128.load (i32.add (local.get $c1) (local.get $r))))
            (local.set $v2 (v128.load (i32.add (local.get $c2) (local.get $r))))
            (local.set $v3 (v128.load (i32.add (local.get $c3) (local.get $r))))
            (local.set $xr (v128.load (i32.add (local.get $x) (local.get $r))))
            (v128.store (i32.add (local.get $y) (local.get $r))
              (f64x2.add (v128.load (i32.add (local.get $y) (local.get $r)))
                (f64x2.add
                  (f64x2.add
                    (f64x2.add (f64x2.mul (local.get $v0) (local.get $x0)) (f64x2.mul (local.get $v1) (local.get $x1)))
                    (f64x2.mul (local.get $v2) (local.get $x2)))
                  (f64x2.mul (local.get $v3) (local.get $x3)))))
            (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $v0) (local.get $xr))))
            (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (local.get $v1) (local.get $xr))))
            (local.set $s2 (f64x2.add (local.get $s2) (f64x2.mul (local.get $v2) (local.get $xr))))
            (local.set $s3 (f64x2.add (local.get $s3) (f64x2.mul (local.get $v3) (local.get $xr))))
            (local.set $r (i32.add (local.get $r) (i32.const 16)))
            (br $pairs)))
        (local.set $t0 (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
        (local.set $t1 (f64.add (f64x2.extract_lane 0 (local.get $s1)) (f64x2.extract_lane 1 (local.get $s1))))
        (local.set $t2 (f64.add (f64x2.extract_lane 0 (local.get $s2)) (f64x2.extract_lane 1 (local.get $s2))))
        (local.set $t3 (f64.add (f64x2.extract_lane 0 (local.get $s3)) (f64x2.extract_lane 1 (local.get $s3))))
        (if (i32.eq (local.get $r) (local.get $last))
          (then
            ;; The odd last r.
            (local.set $v (f64.load (i32.add (local.get $x) (local.get $r))))
            (call $addTo (i32.add (local.get $y) (local.get $r))
              (f64.add
                (f64.add
                  (f64.add
                    (f64.mul (f64.load (i32.add (local.get $c0) (local.get $r))) (f64x2.extract_lane 0 (local.get $x0)))
                    (f64.mul (f64.load (i32.add (local.get $c1) (local.get $r))) (f64x2.extract_lane 0 (local.get $x1))))
                  (f64.mul (f64.load (i32.add (local.get $c2) (local.get $r))) (f64x2.extract_lane 0 (local.get $x2))))
                (f64.mul (f64.load (i32.add (local.get $c3) (local.get $r))) (f64x2.extract_lane 0 (local.get $x3)))))
            (local.set $t0 (f64.add (local.get $t0) (f64.mul (f64.load (i32.add (local.get $c0) (local.get $r))) (local.get $v))))
            (local.set $t1 (f64.add (local.get $t1) (f64.mul (f64.load (i32.add (local.get $c1) (local.get $r))) (local.get $v))))
            (local.set $t2 (f64.add (local.get $t2) (f64.mul (f64.load (i32.add (local.get $c2) (local.get $r))) (local.get $v))))
            (local.set $t3 (f64.add (local.get $t3) (f64.mul (f64.load (i32.add (local.get $c3) (local.get $r))) (local.get $v))))))
        (local.set $r (i32.add (local.get $y) (i32.shl (local.get $j) (i32.const 3))))
        (call $addTo (local.get $r) (local.get $t0))
        (call $addTo (i32.add (local.get $r) (i32.const 8)) (local.get $t1))
        (call $addTo (i32.add (local.get $r) (i32.const 16)) (local.get $t2))
        (call $addTo (i32.add (local.get $r) (i32.const 24)) (local.get $t3))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $sweeps)))
    ;; The last m % 4 stored rows, one at a time.
    (block $restDone
      (loop $rest
        (br_if $restDone (i32.ge_s (local.get $j) (local.get $m)))
        (call $column (i32.add (local.get $a) (i32.mul (local.get $j) (local.get $lda)))
          (local.get $x) (local.get $y) (local.get $j) (local.get $m))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $rest))))

  ;; One stored row c of symv's matrix restricted to entries [j, end), scalar:
  ;; y[r] += c[r] x[j] for r in (j, end), and y[j] += c[j] x[j] + sum_r c[r] x[r].
  (func $column (param $c i32) (param $x i32) (param $y i32) (param $j i32) (param $end i32)
    (local $r i32) (local $xq f64) (local $t f64) (local $v f64)
    (local.set $xq (f64.load (i32.add (local.get $x) (i32.shl (local.get $j) (i32.const 3)))))
    (local.set $t (f64.mul (f64.load (i32.add (local.get $c) (i32.shl (local.get $j) (i32.const 3))))
                           (local.get $xq)))
    (local.set $r (i32.add (local.get $j) (i32.const 1)))
    (block $done
      (loop $rs
        (br_if $done (i32.ge_s (local.get $r) (local.get $end)))
        (local.set $v (f64.load (i32.add (local.get $c) (i32.shl (local.get $r) (i32.const 3)))))
        (call $addTo (i32.add (local.get $y) (i32.shl (local.get $r) (i32.const 3)))
          (f64.mul (local.get $v) (local.get $xq)))
        (local.set $t (f64.add (local.get $t)
          (f64.mul (local.get $v) (f64.load (i32.add (local.get $x) (i32.shl (local.get $r) (i32.const 3)))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rs)))
    (call $addTo (i32.add (local.get $y) (i32.shl (local.get $j) (i32.const 3))) (local.get $t)))

  ;; ---------------------------------------------------------------------------
  ;; combine2(t, len, v, ldv, w, ldw, count, cv, cw):
  ;;   t[r] -= sum_{l < count} v[l * ldv + r] cv[l] + w[l * ldw + r] cw[l],  r < len
  ;; (the panel corrections of the blocked tridiagonalisation, and dsyr2 with count 1).
  ;; Two l per sweep so that each load and store of t serves four products; an odd
  ;; count repeats the last row with zero coefficients.
  ;; ---------------------------------------------------------------------------
  (func $combine2 (export "combine2") (param $t i32) (param $len i32) (param $v i32) (param $ldv i32)
                                      (param $w i32) (param $ldw i32) (param $count i32)
                                      (param $cv i32) (param $cw i32)
    (local $l i32) (local $r i32) (local $end i32)
    (local $v0 i32) (local $v1 i32) (local $w0 i32) (local $w1 i32)
    (local $p0 v128) (local $p1 v128) (local $q0 v128) (local $q1 v128)
    (local.set $ldv (i32.shl (local.get $ldv) (i32.const 3)))
    (local.set $ldw (i32.shl (local.get $ldw) (i32.const 3)))
    (local.set $end (i32.shl (i32.and (local.get $len) (i32.const -2)) (i32.const 3)))
    (block $lDone
      (loop $ls
        (br_if $lDone (i32.ge_s (local.get $l) (local.get $count)))
        (local.set $v0 (i32.add (local.get $v) (i32.mul (local.get $l) (local.get $ldv))))
        (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $l) (local.get $ldw))))
        (local.set $p0 (v128.load64_splat (i32.add (local.get $cv) (i32.shl (local.get $l) (i32.const 3)))))
        (local.set $q0 (v128.load64_splat (i32.add (local.get $cw) (i32.shl (local.get $l) (i32.const 3)))))
        (if (i32.lt_s (i32.add (local.get $l) (i32.const 1)) (local.get $count))
          (then
            (local.set $v1 (i32.add (local.get $v0) (local.get $ldv)))
            (local.set $w1 (i32.add (local.get $w0) (local.get $ldw)))
            (local.set $p1 (v128.load64_splat offset=8 (i32.add (local.get $cv) (i32.shl (local.get $l) (i32.const 3)))))
            (local.set $q1 (v128.load64_splat offset=8 (i32.add (local.get $cw) (i32.shl (local.get $l) (i32.const 3))))))
          (else
            (local.set $v1 (local.get $v0))
            (local.set $w1 (local.get $w0))
            (local.set $p1 (v128.const i64x2 0 0))
            (local.set $q1 (v128.const i64x2 0 0))))
        (local.set $r (i32.const 0))
        (block $rDone
          (loop $rs
            (br_if $rDone (i32.ge_s (local.get $r) (local.get $end)))
            (v128.store (i32.add (local.get $t) (local.get $r))
              (f64x2.sub (v128.load (i32.add (local.get $t) (local.get $r)))
                (f64x2.add
                  (f64x2.add
                    (f64x2.add
                      (f64x2.mul (v128.load (i32.add (local.get $v0) (local.get $r))) (local.get $p0))
                      (f64x2.mul (v128.load (i32.add (local.get $v1) (local.get $r))) (local.get $p1)))
                    (f64x2.mul (v128.load (i32.add (local.get $w0) (local.get $r))) (local.get $q0)))
                  (f64x2.mul (v128.load (i32.add (local.get $w1) (local.get $r))) (local.get $q1)))))
            (local.set $r (i32.add (local.get $r) (i32.const 16)))
            (br $rs)))
        (if (i32.and (local.get $len) (i32.const 1))
          (then
            (f64.store (i32.add (local.get $t) (local.get $r))
              (f64.sub (f64.load (i32.add (local.get $t) (local.get $r)))
                (f64.add
                  (f64.add
                    (f64.add
                      (f64.mul (f64.load (i32.add (local.get $v0) (local.get $r))) (f64x2.extract_lane 0 (local.get $p0)))
                      (f64.mul (f64.load (i32.add (local.get $v1) (local.get $r))) (f64x2.extract_lane 0 (local.get $p1))))
                    (f64.mul (f64.load (i32.add (local.get $w0) (local.get $r))) (f64x2.extract_lane 0 (local.get $q0))))
                  (f64.mul (f64.load (i32.add (local.get $w1) (local.get $r))) (f64x2.extract_lane 0 (local.get $q1))))))))
        (local.set $l (i32.add (local.get $l) (i32.const 2)))
        (br $ls))))

  ;; ---------------------------------------------------------------------------
  ;; dots2(v, ldv, w, ldw, count, x, len, ov, ow): ov[l] = v_l . x and ow[l] = w_l . x
  ;; for l < count (v_l = v[l * ldv ..], w_l = w[l * ldw ..], length len), x loaded once
  ;; for both; lanes summed at the end, then the odd tail element.
  ;; ---------------------------------------------------------------------------
  (func $dots2 (export "dots2") (param $v i32) (param $ldv i32) (param $w i32) (param $ldw i32)
                                (param $count i32) (param $x i32) (param $len i32)
                                (param $ov i32) (param $ow i32)
    (local $l i32) (local $r i32) (local $end i32) (local $sv v128) (local $sw v128) (local $xr v128)
    (local.set $ldv (i32.shl (local.get $ldv) (i32.const 3)))
    (local.set $ldw (i32.shl (local.get $ldw) (i32.const 3)))
    (local.set $end (i32.shl (i32.and (local.get $len) (i32.const -2)) (i32.const 3)))
    (block $lDone
      (loop $ls
        (br_if $lDone (i32.ge_s (local.get $l) (local.get $count)))
        (local.set $sv (v128.const i64x2 0 0))
        (local.set $sw (v128.const i64x2 0 0))
        (local.set $r (i32.const 0))
        (block $rDone
          (loop $rs
            (br_if $rDone (i32.ge_s (local.get $r) (local.get $end)))
            (local.set $xr (v128.load (i32.add (local.get $x) (local.get $r))))
            (local.set $sv (f64x2.add (local.get $sv)
              (f64x2.mul (v128.load (i32.add (local.get $v) (local.get $r))) (local.get $xr))))
            (local.set $sw (f64x2.add (local.get $sw)
              (f64x2.mul (v128.load (i32.add (local.get $w) (local.get $r))) (local.get $xr))))
            (local.set $r (i32.add (local.get $r) (i32.const 16)))
            (br $rs)))
        (f64.store (local.get $ov) (f64.const 0))
        (f64.store (local.get $ow) (f64.const 0))
        (call $finish (local.get $sv) (local.get $v) (local.get $x) (local.get $len) (local.get $end) (local.get $ov))
        (call $finish (local.get $sw) (local.get $w) (local.get $x) (local.get $len) (local.get $end) (local.get $ow))
        (local.set $v (i32.add (local.get $v) (local.get $ldv)))
        (local.set $w (i32.add (local.get $w) (local.get $ldw)))
        (local.set $ov (i32.add (local.get $ov) (i32.const 8)))
        (local.set $ow (i32.add (local.get $ow) (i32.const 8)))
        (local.set $l (i32.add (local.get $l) (i32.const 1)))
        (br $ls))))

  ;; ---------------------------------------------------------------------------
  ;; sturm(d, e2, m, pivmin, x, count, out): out[s] = the number of eigenvalues of the
  ;; symmetric tridiagonal (diagonal d, squared off-diagonal e2, order m) below x[s],
  ;; for s < count (count even: the caller pads), as f64. The negative pivots of the
  ;; LDL^T factorisation of T - x I: q_0 = d_0 - x, q_i = (d_i - x) - e2_{i-1} / q_{i-1},
  ;; a pivot of magnitude below pivmin replaced by -pivmin (dlaebz). Each sequence is a
  ;; chain of dependent divisions, so four pairs of shifts run side by side; the
  ;; operations per shift are those of the scalar loop in eigen/bisection.ts, so both
  ;; give the same counts.
  ;; ---------------------------------------------------------------------------
  (func $sturm (export "sturm") (param $d i32) (param $e2 i32) (param $m i32) (param $pivmin f64)
                                (param $x i32) (param $count i32) (param $out i32)
    (local $s i32) (local $i i32) (local $end i32) (local $lanes i32)
    (local $piv v128) (local $neg v128) (local $t v128) (local $one v128) (local $di v128) (local $ei v128)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local.set $piv (f64x2.splat (local.get $pivmin)))
    (local.set $neg (f64x2.neg (local.get $piv)))
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $end (i32.shl (local.get $m) (i32.const 3)))
    (block $sDone
      (loop $ss
        (br_if $sDone (i32.ge_s (local.get $s) (local.get $count)))
        ;; Shifts s .. s + 7 (unused lanes repeat the last pair: harmless work).
        (local.set $lanes (i32.add (local.get $x) (i32.shl (local.get $s) (i32.const 3))))
        (local.set $x0 (v128.load (local.get $lanes)))
        (local.set $x1 (local.get $x0))
        (local.set $x2 (local.get $x0))
        (local.set $x3 (local.get $x0))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 2)) (local.get $count))
          (then (local.set $x1 (v128.load offset=16 (local.get $lanes)))))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 4)) (local.get $count))
          (then (local.set $x2 (v128.load offset=32 (local.get $lanes)))))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 6)) (local.get $count))
          (then (local.set $x3 (v128.load offset=48 (local.get $lanes)))))
        ;; i = 0: q = d_0 - x.
        (local.set $di (v128.load64_splat (local.get $d)))
        (local.set $q0 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (local.get $di) (local.get $x0))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
        (local.set $q1 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (local.get $di) (local.get $x1))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
        (local.set $q2 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (local.get $di) (local.get $x2))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
        (local.set $q3 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (local.get $di) (local.get $x3))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
        (local.set $c0 (v128.and (f64x2.le (local.get $q0) (v128.const i64x2 0 0)) (local.get $one)))
        (local.set $c1 (v128.and (f64x2.le (local.get $q1) (v128.const i64x2 0 0)) (local.get $one)))
        (local.set $c2 (v128.and (f64x2.le (local.get $q2) (v128.const i64x2 0 0)) (local.get $one)))
        (local.set $c3 (v128.and (f64x2.le (local.get $q3) (v128.const i64x2 0 0)) (local.get $one)))
        (local.set $i (i32.const 8))
        (block $iDone
          (loop $is
            (br_if $iDone (i32.ge_s (local.get $i) (local.get $end)))
            (local.set $di (v128.load64_splat (i32.add (local.get $d) (local.get $i))))
            (local.set $ei (v128.load64_splat (i32.sub (i32.add (local.get $e2) (local.get $i)) (i32.const 8))))
            (local.set $q0 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (f64x2.sub (local.get $di) (local.get $x0)) (f64x2.div (local.get $ei) (local.get $q0)))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
            (local.set $q1 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (f64x2.sub (local.get $di) (local.get $x1)) (f64x2.div (local.get $ei) (local.get $q1)))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
            (local.set $q2 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (f64x2.sub (local.get $di) (local.get $x2)) (f64x2.div (local.get $ei) (local.get $q2)))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
            (local.set $q3 (v128.bitselect (local.get $neg) (local.tee $t (f64x2.sub (f64x2.sub (local.get $di) (local.get $x3)) (f64x2.div (local.get $ei) (local.get $q3)))) (f64x2.lt (f64x2.abs (local.get $t)) (local.get $piv))))
            (local.set $c0 (f64x2.add (local.get $c0)
              (v128.and (f64x2.le (local.get $q0) (v128.const i64x2 0 0)) (local.get $one))))
            (local.set $c1 (f64x2.add (local.get $c1)
              (v128.and (f64x2.le (local.get $q1) (v128.const i64x2 0 0)) (local.get $one))))
            (local.set $c2 (f64x2.add (local.get $c2)
              (v128.and (f64x2.le (local.get $q2) (v128.const i64x2 0 0)) (local.get $one))))
            (local.set $c3 (f64x2.add (local.get $c3)
              (v128.and (f64x2.le (local.get $q3) (v128.const i64x2 0 0)) (local.get $one))))
            (local.set $i (i32.add (local.get $i) (i32.const 8)))
            (br $is)))
        (local.set $lanes (i32.add (local.get $out) (i32.shl (local.get $s) (i32.const 3))))
        (v128.store (local.get $lanes) (local.get $c0))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 2)) (local.get $count))
          (then (v128.store offset=16 (local.get $lanes) (local.get $c1))))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 4)) (local.get $count))
          (then (v128.store offset=32 (local.get $lanes) (local.get $c2))))
        (if (i32.lt_s (i32.add (local.get $s) (i32.const 6)) (local.get $count))
          (then (v128.store offset=48 (local.get $lanes) (local.get $c3))))
        (local.set $s (i32.add (local.get $s) (i32.const 8)))
        (br $ss))))

;; ---------------------------------------------------------------------------
  ;; trsm(v, rows, ldv, r, ldr, w): the leaf of V <- V R^{-1} for an upper-triangular
  ;; w x w block R (eigen side: orthogonalize.ts, trsmRight). v points at V's first
  ;; column of the block, r at R's diagonal corner; ldv and ldr in BYTES. Row by row,
  ;; x_j = v_j / r_jj, then v_l -= x_j r_jl for l > j, two l per f64x2 (mul, then sub),
  ;; the tail alone: the operations of the TypeScript leaf, so both give the same bits.
  ;; Rows with x_j = 0 skip the update, as there.
  ;; ---------------------------------------------------------------------------
  (func (export "trsm") (param $v i32) (param $rows i32) (param $ldv i32)
                        (param $r i32) (param $ldr i32) (param $w i32)
    (local $i i32) (local $j i32) (local $l i32) (local $end i32) (local $rj i32)
    (local $x f64) (local $xs v128)
    (local.set $end (i32.shl (local.get $w) (i32.const 3)))
    (block $iDone
      (loop $is
        (br_if $iDone (i32.ge_s (local.get $i) (local.get $rows)))
        (local.set $j (i32.const 0))
        (local.set $rj (local.get $r))
        (block $jDone
          (loop $js
            (br_if $jDone (i32.ge_s (local.get $j) (local.get $end)))
            (local.set $x (f64.div (f64.load (i32.add (local.get $v) (local.get $j)))
                                   (f64.load (i32.add (local.get $rj) (local.get $j)))))
            (f64.store (i32.add (local.get $v) (local.get $j)) (local.get $x))
            (if (f64.ne (local.get $x) (f64.const 0))
              (then
                (local.set $xs (f64x2.splat (local.get $x)))
                (local.set $l (i32.add (local.get $j) (i32.const 8)))
                (block $lDone
                  (loop $ls
                    (br_if $lDone (i32.gt_s (i32.add (local.get $l) (i32.const 8)) (i32.sub (local.get $end) (i32.const 8))))
                    (v128.store (i32.add (local.get $v) (local.get $l))
                      (f64x2.sub (v128.load (i32.add (local.get $v) (local.get $l)))
                        (f64x2.mul (local.get $xs) (v128.load (i32.add (local.get $rj) (local.get $l))))))
                    (local.set $l (i32.add (local.get $l) (i32.const 16)))
                    (br $ls)))
                (if (i32.lt_s (local.get $l) (local.get $end))
                  (then
                    (f64.store (i32.add (local.get $v) (local.get $l))
                      (f64.sub (f64.load (i32.add (local.get $v) (local.get $l)))
                        (f64.mul (local.get $x) (f64.load (i32.add (local.get $rj) (local.get $l))))))))))
            (local.set $rj (i32.add (local.get $rj) (local.get $ldr)))
            (local.set $j (i32.add (local.get $j) (i32.const 8)))
            (br $js)))
        (local.set $v (i32.add (local.get $v) (local.get $ldv)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $is))))

  ;; ---------------------------------------------------------------------------
  ;; csrmm(ptr, idx, val, rows, b, ld, c): C += A B for A sparse (CSR: row pointers ptr
  ;; and column indices idx as i32, values val as f64), B and C dense row-major with a
  ;; leading dimension of ld BYTES, a multiple of 16 (the caller pads odd widths with a
  ;; zero column and zeroes C: the product of a graph Laplacian and X X^T). Four entries of a row per sweep,
  ;; each C entry updated as c + (((v0 b0 + v1 b1) + v2 b2) + v3 b3), then the rest one
  ;; by one: the operations of CsrMatrix.multiplyMatrix (linalg/sparse.ts), so both
  ;; give the same bits.
  ;; ---------------------------------------------------------------------------
  (func (export "csrmm") (param $ptr i32) (param $idx i32) (param $val i32) (param $rows i32)
                         (param $b i32) (param $ld i32) (param $c i32)
    (call $csrmmCols (local.get $ptr) (local.get $idx) (local.get $val) (local.get $rows)
      (local.get $b) (local.get $ld) (local.get $ld) (local.get $c) (local.get $ld)))

  ;; csrmmCols(ptr, idx, val, rows, b, ldb, width, c, ldc): csrmm on the first `width`
  ;; bytes (a multiple of 16) of each row of B, whose rows are ldb bytes apart, into C
  ;; with rows ldc bytes apart: a block of columns of A B (L U of U^T L U split by
  ;; columns over threads, methods/zstep/gramOperator.ts). Each entry is the
  ;; same sum as in the full product, so a split gives the full product's bits.
  (func $csrmmCols (export "csrmmCols") (param $ptr i32) (param $idx i32) (param $val i32)
                   (param $rows i32) (param $b i32) (param $ldb i32) (param $width i32)
                   (param $c i32) (param $ldc i32)
    (local $i i32) (local $p i32) (local $e i32) (local $r i32)
    (local $b0 i32) (local $b1 i32) (local $b2 i32) (local $b3 i32)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (block $iDone
      (loop $is
        (br_if $iDone (i32.ge_s (local.get $i) (local.get $rows)))
        (local.set $p (i32.load (local.tee $e (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $e (i32.load offset=4 (local.get $e)))
        (block $qDone
          (loop $qs
            (br_if $qDone (i32.ge_s (i32.add (local.get $p) (i32.const 3)) (local.get $e)))
            (local.set $v0 (v128.load64_splat (local.tee $r (i32.add (local.get $val) (i32.shl (local.get $p) (i32.const 3))))))
            (local.set $v1 (v128.load64_splat offset=8 (local.get $r)))
            (local.set $v2 (v128.load64_splat offset=16 (local.get $r)))
            (local.set $v3 (v128.load64_splat offset=24 (local.get $r)))
            (local.set $b0 (call $rowOf (local.get $b) (local.get $idx) (local.get $p) (local.get $ldb)))
            (local.set $b1 (call $rowOf (local.get $b) (local.get $idx) (i32.add (local.get $p) (i32.const 1)) (local.get $ldb)))
            (local.set $b2 (call $rowOf (local.get $b) (local.get $idx) (i32.add (local.get $p) (i32.const 2)) (local.get $ldb)))
            (local.set $b3 (call $rowOf (local.get $b) (local.get $idx) (i32.add (local.get $p) (i32.const 3)) (local.get $ldb)))
            (local.set $r (i32.const 0))
            (block $rDone
              (loop $rs
                (br_if $rDone (i32.ge_s (local.get $r) (local.get $width)))
                (v128.store (i32.add (local.get $c) (local.get $r))
                  (f64x2.add (v128.load (i32.add (local.get $c) (local.get $r)))
                    (f64x2.add
                      (f64x2.add
                        (f64x2.add
                          (f64x2.mul (local.get $v0) (v128.load (i32.add (local.get $b0) (local.get $r))))
                          (f64x2.mul (local.get $v1) (v128.load (i32.add (local.get $b1) (local.get $r)))))
                        (f64x2.mul (local.get $v2) (v128.load (i32.add (local.get $b2) (local.get $r)))))
                      (f64x2.mul (local.get $v3) (v128.load (i32.add (local.get $b3) (local.get $r)))))))
                (local.set $r (i32.add (local.get $r) (i32.const 16)))
                (br $rs)))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (br $qs)))
        (block $pDone
          (loop $ps
            (br_if $pDone (i32.ge_s (local.get $p) (local.get $e)))
            (local.set $v0 (v128.load64_splat (i32.add (local.get $val) (i32.shl (local.get $p) (i32.const 3)))))
            (local.set $b0 (call $rowOf (local.get $b) (local.get $idx) (local.get $p) (local.get $ldb)))
            (local.set $r (i32.const 0))
            (block $r1Done
              (loop $r1s
                (br_if $r1Done (i32.ge_s (local.get $r) (local.get $width)))
                (v128.store (i32.add (local.get $c) (local.get $r))
                  (f64x2.add (v128.load (i32.add (local.get $c) (local.get $r)))
                    (f64x2.mul (local.get $v0) (v128.load (i32.add (local.get $b0) (local.get $r))))))
                (local.set $r (i32.add (local.get $r) (i32.const 16)))
                (br $r1s)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $ps)))
        ;; c walks down the rows of C.
        (local.set $c (i32.add (local.get $c) (local.get $ldc)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $is))))

  ;; ---------------------------------------------------------------------------
  ;; edgeTrace(ptr, idx, val, rows, f, c, w) -> sum over the stored entries (i, j) of a
  ;; symmetric CSR matrix S with j > i of val_p * sum_t ((f_it - f_jt) w_t)^2, F (rows x
  ;; c, row-major, rows of c doubles) and w (c doubles) at byte offsets f and w: the
  ;; trace Tr((F W)^T L (F W)) of the graph term. Lane 0 sums the even t, lane 1 the odd
  ;; t, a last odd column goes to lane 0, and the two lanes are added per edge: the
  ;; operations of symmetricLaplacianTrace (graph/laplacian.ts) in its order, so both
  ;; give the same bits.
  ;; ---------------------------------------------------------------------------
  (func (export "edgeTrace") (param $ptr i32) (param $idx i32) (param $val i32) (param $rows i32)
                             (param $f i32) (param $c i32) (param $w i32) (result f64)
    (local $i i32) (local $p i32) (local $e i32) (local $j i32) (local $t i32)
    (local $oi i32) (local $oj i32) (local $ld i32) (local $even i32)
    (local $acc v128) (local $d v128) (local $s0 f64) (local $d0 f64) (local $total f64)
    (local.set $ld (i32.shl (local.get $c) (i32.const 3)))
    ;; bytes covered by the two-lane loop: t + 1 < c for t = 0, 2, ...
    (local.set $even (i32.shl (i32.and (local.get $c) (i32.const -2)) (i32.const 3)))
    (block $iDone
      (loop $is
        (br_if $iDone (i32.ge_s (local.get $i) (local.get $rows)))
        (local.set $oi (i32.add (local.get $f) (i32.mul (local.get $i) (local.get $ld))))
        (local.set $p (i32.load (local.tee $e (i32.add (local.get $ptr) (i32.shl (local.get $i) (i32.const 2))))))
        (local.set $e (i32.load offset=4 (local.get $e)))
        (block $pDone
          (loop $ps
            (br_if $pDone (i32.ge_s (local.get $p) (local.get $e)))
            (local.set $j (i32.load (i32.add (local.get $idx) (i32.shl (local.get $p) (i32.const 2)))))
            (if (i32.gt_s (local.get $j) (local.get $i))
              (then
                (local.set $oj (i32.add (local.get $f) (i32.mul (local.get $j) (local.get $ld))))
                (local.set $acc (v128.const i64x2 0 0))
                (local.set $t (i32.const 0))
                (block $tDone
                  (loop $ts
                    (br_if $tDone (i32.ge_s (local.get $t) (local.get $even)))
                    (local.set $d
                      (f64x2.mul
                        (f64x2.sub (v128.load (i32.add (local.get $oi) (local.get $t)))
                                   (v128.load (i32.add (local.get $oj) (local.get $t))))
                        (v128.load (i32.add (local.get $w) (local.get $t)))))
                    (local.set $acc (f64x2.add (local.get $acc) (f64x2.mul (local.get $d) (local.get $d))))
                    (local.set $t (i32.add (local.get $t) (i32.const 16)))
                    (br $ts)))
                (local.set $s0 (f64x2.extract_lane 0 (local.get $acc)))
                (if (i32.lt_s (local.get $t) (local.get $ld))
                  (then
                    (local.set $d0
                      (f64.mul
                        (f64.sub (f64.load (i32.add (local.get $oi) (local.get $t)))
                                 (f64.load (i32.add (local.get $oj) (local.get $t))))
                        (f64.load (i32.add (local.get $w) (local.get $t)))))
                    (local.set $s0 (f64.add (local.get $s0) (f64.mul (local.get $d0) (local.get $d0))))))
                (local.set $total
                  (f64.add (local.get $total)
                    (f64.mul (f64.load (i32.add (local.get $val) (i32.shl (local.get $p) (i32.const 3))))
                      (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $acc))))))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $ps)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $is)))
    (local.get $total))

  ;; The address of row idx[p] of B (rows of ld bytes).
  (func $rowOf (param $b i32) (param $idx i32) (param $p i32) (param $ld i32) (result i32)
    (i32.add (local.get $b)
      (i32.mul (i32.load (i32.add (local.get $idx) (i32.shl (local.get $p) (i32.const 2)))) (local.get $ld))))

  ;; *p += v
  (func $addTo (param $p i32) (param $v f64)
    (f64.store (local.get $p) (f64.add (f64.load (local.get $p)) (local.get $v))))

  ;; The loops of the tridiagonal eigen-solver (bisection, inverse iteration).
  ;; @include tridiagonal.wat

  ;; The single-precision product of the screened neighbour search.
  ;; @include single.wat

  ;; The pair loop of the neighbour scans, filtered before the heaps.
  ;; @include pairs.wat

  ;; The products of SDSPCAAN's Z-step basis with its thin block of columns beyond U.
  ;; @include thin.wat

  ;; The per-column loops of the Householder reduction and the back-transformation.
  ;; @include householder.wat
)
