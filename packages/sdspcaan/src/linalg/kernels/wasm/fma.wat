;; The "fast" backend's WebAssembly GEMM: gemm.wat with every multiply-add fused
;; (f64x2.relaxed_madd, which scripts/build-wasm.ts writes in place of each
;; (f64x2.add S (f64x2.mul X Y)) of gemm.wat), so half the vector operations of the
;; module's GEMM. A module of its own on the kernels' memory (imported), assembled with
;; the relaxed-SIMD feature: backend.ts loads it only where WebAssembly.validate accepts
;; it (Node >= 22, current Chromium) and otherwise keeps the module's own GEMM.
;;
;; relaxed_madd may round once or twice, as the engine chooses; on a given engine and
;; CPU it does the same every time, so a given input gives the same bits on every call,
;; and every entry is still summed in gemm.wat's order whatever the product's shape.
(module
  (import "env" "memory" (memory 1))

  ;; @include gemm.wat
)
