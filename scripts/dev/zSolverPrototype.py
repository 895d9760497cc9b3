"""
Developer prototype (NumPy, dense Z): two questions about SDSPCAAN's Z-step at k = 50 that
decide what the next large-n solver should be. Not part of the product and not a test;
it borrows helpers of the independent reference implementation
(../shared/reference/sdspcaan_ref.py: TrainPrep, resolve_params, adaptive_neighbors,
laplacian, sqdist, eigh_smallest) and runs its own outer iterations with exact eigenpairs, so that every
variant below starts from the same iterate. Fashion-MNIST's first n training images,
train-zscore, a = b = c = 1, m = 15, as scripts/dev/zPreconditioner.ts.

  shifts  How many LOBPCG iterations a solve takes with each kind of search direction,
          outer iterations 2..T, warm-started from the previous outer iteration's block
          (all but two guard vectors kept, as FRESH_GUARDS = 2), tolerance 1e-10 relative:
            none      the plain residuals;
            interior  (Z - sigma I)^-1 r with sigma from interiorShifts, applied while the
                      Ritz values below sigma stay below it (today's preconditioner);
            multiS    (Z - sigma_j I)^-1 x_j, sigma_j the nearest of S shifts placed in gaps
                      of the previous Ritz values at evenly spaced ranks (S exact setups);
            rqi       (Z - theta_j I)^-1 x_j, every column its own Ritz value (inverse
                      iteration directions; one exact shifted inverse per column);
            pencil    the rqi directions with (Z - theta_j I) replaced by Z - s_j E0,
                      E0 = beta D - sigma, i.e. from one factorisation at sigma only.
          The exact inverses are taken from Z's eigendecomposition: this measures
          iteration counts, not cost.
  span    Rayleigh-Ritz of Z on K_J = span{W, D^ W, ..., D^J W} (W an orthonormal basis
          of [U, Y], D^ = beta D scaled to [-1, 1], the blocks by block Lanczos in D^) at
          outer iteration 2: every eigenvector of Z with eigenvalue lambda below min(beta D)
          is (beta D - lambda I)^-1 W u, so K_J should hold the wanted ones to about
          omega^J, omega = |l - sqrt(l^2 - 1)| with l = lambda_k scaled like D^. Prints the
          error of the Ritz pairs against Z's exact ones, how many LOBPCG iterations the
          k = 50 problem takes inside K_J (none / interior, as above), and how many plain
          LOBPCG iterations on Z then meet the tolerance from K_J's Ritz vectors.

Usage (BLAS on one thread, as the reference asks):
  OPENBLAS_NUM_THREADS=1 python3 scripts/dev/zSolverPrototype.py shifts --n 3000 --t 4 \
      --data-dir ../shared/data
  OPENBLAS_NUM_THREADS=1 python3 scripts/dev/zSolverPrototype.py span --n 8000 --j 4 \
      --data-dir ../shared/data
"""
import argparse
import gzip
import os
import sys

import numpy as np
import scipy.linalg as sla

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "reference"))
import sdspcaan_ref as ref  # noqa: E402

TOL = 1e-10


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    nd = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims)


def interior_shifts(theta, k):
    """src/methods/zstep/zPreconditioner.ts interiorShifts, best first."""
    b = len(theta)
    g = theta[b - 1] - theta[k - 1]
    scored = []
    for i in range(1, k):
        h = 0.5 * (theta[i] - theta[i - 1])
        if not h > 0:
            continue
        s = theta[i - 1] + h
        d = theta[k - 1] - s
        scored.append((h / d * min(1, d / (2 * g), (16 * g) / d), s))
    scored.sort(reverse=True)
    return [s for _, s in scored]


def orthonormalize_against(V, bases):
    for _ in range(2):
        for B in bases:
            V = V - B @ (B.T @ V)
    norms = np.linalg.norm(V, axis=0)
    V = V[:, norms > 1e-13 * max(norms.max(), 1e-300)]
    if V.shape[1] == 0:
        return V
    # SVQB: drop numerically dependent directions instead of breaking down
    d = np.linalg.norm(V, axis=0)
    G = (V.T @ V) / d[:, None] / d[None, :]
    ev, E = np.linalg.eigh(G)
    keep = ev > 1e-12 * ev.max()
    V = (V / d) @ (E[:, keep] / np.sqrt(ev[keep]))
    for B in bases:
        V = V - B @ (B.T @ V)
    return np.linalg.qr(V)[0]


class Directions:
    """The search directions of one variant; the exact inverses from Z = E diag(ev) E^T."""

    def __init__(self, kind, Z, ev, E, prev_theta, k, bD):
        self.kind, self.ev, self.E, self.k = kind, ev, E, k
        self.sigma = self.below = None
        if kind == "interior":
            self.sigma = interior_shifts(prev_theta, k)[0]
            self.below = int((ev < self.sigma).sum())
        elif kind.startswith("multi"):
            s = int(kind[5:])
            ranks = np.unique(np.round((np.arange(s) + 0.5) * k / s).astype(int).clip(1, k - 1))
            self.shifts = 0.5 * (prev_theta[ranks - 1] + prev_theta[ranks])
        elif kind == "pencil":
            self.sigma = interior_shifts(prev_theta, k)[0]
            self.E0 = bD - self.sigma
            self.e = 1 / np.sqrt(self.E0)
            Zs = (Z - self.sigma * np.eye(Z.shape[0])) * self.e[:, None] * self.e[None, :]
            self.mu, self.Us = np.linalg.eigh(0.5 * (Zs + Zs.T))

    def inverse(self, shift, v):
        den = self.ev - shift
        den = np.where(np.abs(den) < 1e-14 * abs(shift), 1e-14 * abs(shift), den)
        return self.E @ ((self.E.T @ v) / den)

    def __call__(self, X, R, theta, act):
        """The directions for the active columns act of the block X (residuals R)."""
        kind = self.kind
        if kind == "interior" and theta[self.below - 1] < self.sigma:
            return self.E @ ((self.E.T @ R[:, act]) / (self.ev - self.sigma)[:, None])
        if kind in ("none", "interior"):
            return plain(X, R, theta, act)
        X, theta = X[:, act], theta[act]
        out = np.empty_like(X)
        for j in range(X.shape[1]):
            if kind.startswith("multi"):
                s = self.shifts[np.argmin(np.abs(self.shifts - theta[j]))]
                out[:, j] = self.inverse(s, X[:, j])
            elif kind == "rqi":
                out[:, j] = self.inverse(theta[j], X[:, j])
            else:  # pencil: (Z - s E0)^-1 x with s = (theta - sigma) / (x^T E0 x)
                x = X[:, j]
                s = (theta[j] - self.sigma) / (x @ (self.E0 * x))
                den = self.mu - s
                den = np.where(np.abs(den) < 1e-14, 1e-14, den)
                out[:, j] = self.e * (self.Us @ ((self.Us.T @ (self.e * x)) / den))
        return out


def plain(X, R, theta, act):
    """The residuals of the active columns, unpreconditioned."""
    return R[:, act]


def lobpcg(Z, X0, k, directions, max_iter=300):
    """LOBPCG in the form of src/linalg/eigen/lobpcg.ts (soft locking, P built in
    coordinates); returns the iterations taken to meet the residual test."""
    b = X0.shape[1]
    X = np.linalg.qr(X0)[0]
    AX = Z @ X
    theta, C = np.linalg.eigh(X.T @ AX)
    X, AX = X @ C, AX @ C
    P = AP = None
    it = 0
    while True:
        R = AX - X * theta
        ok = np.linalg.norm(R, axis=0) <= TOL * np.abs(theta).max()
        if ok[:k].all() or it >= max_iter:
            return it if ok[:k].all() else f">{max_iter}"
        it += 1
        act = np.where(~ok)[0]
        bases = [X] + ([P] if P is not None else [])
        W = orthonormalize_against(directions(X, R, theta, act), bases)
        if W.shape[1] == 0:
            return it
        S = np.hstack(bases + [W])
        AS = np.hstack([AX] + ([AP] if P is not None else []) + [Z @ W])
        H = S.T @ AS
        tt, CC = np.linalg.eigh(0.5 * (H + H.T))
        m = S.shape[1]
        Cx, theta = CC[:, :b], tt[:b]
        Y = np.zeros((m, len(act)))
        Y[b:, :] = CC[b:, act]
        Y -= Cx @ (Cx.T @ Y)
        q, r = np.linalg.qr(Y)
        Cp = q[:, np.abs(np.diag(r)) > 1e-12]
        X, AX = S @ Cx, AS @ Cx
        P, AP = (S @ Cp, AS @ Cp) if Cp.shape[1] else (None, None)


class Fit:
    """SDSPCAAN's outer iterations with exact eigenpairs (dense Z)."""

    def __init__(self, n, data_dir):
        d = os.path.join(data_dir, "fashion-mnist")
        X = read_idx(os.path.join(d, "train-images-idx3-ubyte.gz"))[:n].reshape(n, -1)
        X = X.astype(float)
        y = read_idx(os.path.join(d, "train-labels-idx1-ubyte.gz"))[:n].astype(int)
        mu, sd = X.mean(0), X.std(0)
        sd[sd == 0] = 1
        self.prep = ref.TrainPrep((X - mu) / sd, y)
        self.p = ref.resolve_params(self.prep, 1, 1, 1)
        self.G, self.trG = self.prep.get("G"), self.prep.get("trG")
        self.Z0 = -self.G - self.p["alpha"] * self.prep.get("YYt")
        self.Dd = np.ones(n)
        self.lam = 1.0
        self.S = None

    def z(self, t):
        """Z of outer iteration t (t = 1: the initial graph) and beta D."""
        if t == 1:
            g0 = self.prep.get("graph0")
            self.L, M = g0["L"], g0["M"]
        else:
            self.L = ref.laplacian(0.5 * (self.S + self.S.T))
            M = self.G @ self.L @ self.G
        bD = self.p["beta_mult"] * self.trG / self.Dd.sum() * self.Dd
        Z = self.Z0 + np.diag(bD) + self.p["delta_mult"] * self.trG / np.trace(M) * M
        return 0.5 * (Z + Z.T), bD

    def update(self, Q):
        """D, lambda and S from the trailing eigenvectors Q (Algorithm 3's order)."""
        prep = self.prep
        self.Dd = 1.0 / (2.0 * np.sqrt((Q * Q).sum(axis=1) + prep.eps))
        eL = ref.eigh_smallest(self.L, prep.c + 1, vectors=False)
        if eL[: prep.c].sum() > 1e-3:
            self.lam *= 2
        elif eL.sum() < 1e-3:
            self.lam *= 0.5
        dist = ref.sqdist(self.G @ Q) + self.lam * prep.get("labeldist")
        self.S, _ = ref.adaptive_neighbors(dist, prep.m, prep.eps, prep.denominator)


def guards(k):
    return k + max(10, -(-k // 4))


def run_shifts(a):
    fit, k = Fit(a.n, a.data_dir), a.k
    b = guards(k)
    rng = np.random.default_rng(0)
    prev_block = prev_theta = None
    for t in range(1, a.t + 1):
        Z, bD = fit.z(t)
        ev, E = np.linalg.eigh(Z)
        print(f"t={t} beta D in [{bD.min():.4g}, {bD.max():.4g}], lambda_1 {ev[0]:.4g}, "
              f"lambda_k {ev[k - 1]:.4g}, lambda_b {ev[b - 1]:.4g}", flush=True)
        if prev_block is not None:
            X0 = np.hstack([prev_block[:, : b - 2], rng.standard_normal((a.n, 2))])
            for kind in a.variants.split(","):
                its = lobpcg(Z, X0, k, Directions(kind, Z, ev, E, prev_theta, k, bD), a.max_iter)
                print(f"  {kind:9s} LOBPCG iterations {its}", flush=True)
        prev_block, prev_theta = E[:, :b], ev[:b]
        fit.update(E[:, :k])


def state_at(a, t):
    """The fit after exact outer iterations 1..t-1, Z of iteration t and its b smallest
    eigenpairs, beta D's scaling, the previous iteration's eigenpairs and W."""
    fit, k = Fit(a.n, a.data_dir), a.k
    b = guards(k)
    ev1 = Q1 = None
    for s in range(1, t):
        Z, _ = fit.z(s)
        ev1, Q1 = sla.eigh(Z, subset_by_index=(0, b - 1), driver="evr")
        fit.update(Q1[:, :k])
    Z, bD = fit.z(t)
    ev, V = sla.eigh(Z, subset_by_index=(0, b - 1), driver="evr")
    lo, hi = bD.min(), bD.max()
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    l = (ev[k - 1] - centre) / half
    omega = abs(l) - np.sqrt(l * l - 1)
    print(f"n={a.n} t={t}: beta D in [{lo:.4g}, {hi:.4g}], lambda_1 {ev[0]:.4g}, "
          f"lambda_k {ev[k - 1]:.4g}, l {l:.4g}, omega {omega:.3g}", flush=True)
    U = np.linalg.svd(fit.prep.Xc, full_matrices=False)[0]
    W = np.linalg.qr(np.hstack([U, fit.prep.Y]))[0]
    return fit, k, b, Z, bD, ev, V, ev1, Q1, (bD - centre) / half, W


def run_span(a):
    fit, k, b, Z, bD, ev, V, ev1, Q1, Dh, W = state_at(a, 2)
    basis, last, ZB = W, W, Z @ W
    rng = np.random.default_rng(0)
    for J in range(a.j + 1):
        if J > 0:
            new = orthonormalize_against(Dh[:, None] * last, [basis])
            basis, last = np.hstack([basis, new]), new
            ZB = np.hstack([ZB, Z @ new])
        H = basis.T @ ZB
        H = 0.5 * (H + H.T)
        theta, C = np.linalg.eigh(H)
        Vr = basis @ C[:, :k]
        res = np.linalg.norm(ZB @ C[:, :k] - Vr * theta[:k], axis=0).max() / np.abs(theta[:k]).max()
        err = (np.abs(theta[:k] - ev[:k]) / np.abs(ev[:k])).max()
        ang = sla.subspace_angles(Vr, V[:, :k]).max()
        line = (f"J={J} dim {basis.shape[1]}: eigenvalues {err:.1e} relative, residual "
                f"{res:.1e} relative, largest principal angle {ang:.1e} rad")
        if J >= 1:
            X0 = basis.T @ np.hstack([Q1[:, : b - 2], rng.standard_normal((a.n, 2))])
            interior = Directions("interior", H, theta, C, ev1, k, None)
            counts = [lobpcg(H, X0, k, d, a.max_iter) for d in (plain, interior)]
            line += f"; LOBPCG in K_J: {counts[0]} iterations plain, {counts[1]} interior"
        # The polish: plain LOBPCG on Z itself from the Ritz vectors of K_J (b columns).
        polish = lobpcg(Z, basis @ C[:, :b], k, plain, a.max_iter)
        line += f"; then on Z: {polish} iterations"
        print(line, flush=True)


def run_lift(a):
    """Rayleigh-Ritz on the lifted spaces span{W, T_1(D^) W Y, ..., T_p(D^) W Y}, Y (m x b)
    from K_0's Ritz coefficients (pass 1) or from C W^T x of the previous pass' Ritz
    vectors x (pass 2, 3), against K_1, at outer iteration --t (exact eigenpairs before)."""
    fit, k, b, Z, bD, ev, V, ev1, Q1, Dh, W = state_at(a, a.t)
    ZW = Z @ W
    C = W.T @ ZW - W.T @ (bD[:, None] * W)

    bw = int(a.width * b)

    def rr(basis, label):
        ZB = Z @ basis
        H = basis.T @ ZB
        theta, Cv = np.linalg.eigh(0.5 * (H + H.T))
        X = basis @ Cv[:, :b]
        ang = sla.subspace_angles(X[:, :k], V[:, :k]).max()
        gang = sla.subspace_angles(X[:, :b], V[:, :b]).max()
        err = (np.abs(theta[:k] - ev[:k]) / np.abs(ev[:k])).max()
        polish = lobpcg(Z, X, k, plain, a.max_iter)
        print(f"  {label:24s} dim {basis.shape[1]:5d}: angle {ang:.1e} rad (all b: {gang:.1e}), "
              f"eigenvalues {err:.1e}, then {polish} plain LOBPCG iterations on Z", flush=True)
        return basis @ Cv[:, :bw]

    X0 = rr(W, "K_0")
    rr(np.hstack([W, orthonormalize_against(Dh[:, None] * W, [W])]), "K_1")
    for p in (1, 2, 3):
        X = X0
        for pas in (1, 2, 3):
            Y = W.T @ X if pas == 1 else C @ (W.T @ X)
            P, cur, prev = [], W @ Y, None
            for j in range(1, p + 1):
                nxt = Dh[:, None] * cur if j == 1 else 2 * Dh[:, None] * cur - prev
                prev, cur = cur, nxt
                P.append(cur)
            basis = np.hstack([W, orthonormalize_against(np.hstack(P), [W])])
            X = rr(basis, f"lift p={p} pass {pas}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["shifts", "span", "lift"])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--t", type=int, default=5, help="shifts: outer iterations")
    ap.add_argument("--j", type=int, default=4, help="span: largest J")
    ap.add_argument("--variants", default="interior,multi2,multi4,multi8,multi16,rqi,pencil")
    ap.add_argument("--width", type=float, default=1.0, help="lift: Y's columns in units of b")
    ap.add_argument("--max-iter", type=int, default=60)
    ap.add_argument("--data-dir", required=True, help="the directory holding fashion-mnist/")
    a = ap.parse_args()
    {"shifts": run_shifts, "span": run_span, "lift": run_lift}[a.mode](a)


if __name__ == "__main__":
    main()
