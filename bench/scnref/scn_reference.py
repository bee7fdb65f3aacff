"""An independent reference of the authors' SCN algorithm (SCN.m of the
SCN_release_v1 MATLAB code by Wang and Li: SC_Search with nB = 1, T_max
candidates drawn once per lambda and reused for every r, admissible when
min_q xi_q > 0, the largest sum of xi_q taken, output weights by least
squares over all nodes), and of its 2D form (u^T X v + b, u and v uniform on
[-lambda, lambda]), run on the MATLAB rotated digits for a side-by-side
figure with scn's paper preset (see docs/e1-gap.md).

usage: python3 scn_reference.py {scn|2dscn} SEED L [DATA_DIR [ORDER]]
ORDER: authors (default: for each lambda, for each r, candidates drawn once
per lambda, as SCN.m), fresh (for each lambda, for each r, new candidates
for every (lambda, r) pair, as SPEC.md section 2 states the loop), or
r-outer (for each r, for each lambda: every scale is tried at the strictest
r before r is loosened, new candidates per pair).
Reads DigitsDataTrain.mat / DigitsDataTest.mat with scipy.io.loadmat.
Prints the training and test RMSE and PPA15/PPA25 at L.
"""
import sys
import time

import numpy as np
from scipy.io import loadmat

kind, seed, L = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = sys.argv[4] if len(sys.argv) > 4 else "/work/shared/data/matlab-digits"
order = sys.argv[5] if len(sys.argv) > 5 else "authors"
assert order in ("authors", "fresh", "r-outer"), order
tr = loadmat(data + "/DigitsDataTrain.mat")
te = loadmat(data + "/DigitsDataTest.mat")
# XTrain is 28 x 28 x 1 x N (rows x cols x C x N): image n is X[:, :, 0, n].
Xtr = np.ascontiguousarray(tr["XTrain"][:, :, 0, :].transpose(2, 0, 1))
Xte = np.ascontiguousarray(te["XTest"][:, :, 0, :].transpose(2, 0, 1))
Ttr = tr["anglesTrain"].astype(np.float64).reshape(-1, 1)
Tte = te["anglesTest"].astype(np.float64).reshape(-1, 1)
N = Xtr.shape[0]
lambdas = [1, 5, 15, 30, 50, 100, 150, 200, 250]
rs = [1 - 10.0 ** -j for j in range(2, 8)]
Tmax = 5
rng = np.random.default_rng(seed)
Ftr = Xtr.reshape(N, -1)


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def draw(lam):
    """T_max candidates at scale lam: parameters and training outputs."""
    b = lam * (2 * rng.random(Tmax) - 1)
    if kind == "scn":
        W = lam * (2 * rng.random((784, Tmax)) - 1)
        return (W, b), sigmoid(Ftr @ W + b)
    U = lam * (2 * rng.random((28, Tmax)) - 1)
    V = lam * (2 * rng.random((28, Tmax)) - 1)
    XV = Xtr @ V  # N x 28 x Tmax
    return (U, V, b), sigmoid(np.einsum("nit,it->nt", XV, U) + b)


def outputs(X, params):
    if kind == "scn":
        W, b = params
        return sigmoid(X.reshape(X.shape[0], -1) @ W + b)
    U, V, b = params
    return sigmoid(np.einsum("nit,it->nt", X @ V, U) + b)


E = Ttr.copy()
Q = np.zeros((N, L))
chosen = []
picked = {}  # (lambda, r) of each chosen node: counts
start = time.time()
for l in range(L):
    pick = None
    ee = (E * E).sum(0)
    if order == "r-outer":
        pairs = [(lam, r) for r in rs for lam in lambdas]
    else:
        pairs = [(lam, r) for lam in lambdas for r in rs]
    last = None
    for lam, r in pairs:
        if order != "authors" or lam != last:
            params, HT = draw(lam)
            eh = E.T @ HT  # m x Tmax
            hh = (HT * HT).sum(0)
            last = lam
        ksi = eh ** 2 / hh - (1 - r) * ee[:, None]
        ok = np.all(ksi > 0, axis=0)
        if ok.any():
            s = np.where(ok, ksi.sum(0), -np.inf)
            pick = (params, int(np.argmax(s)))
            picked[(lam, r)] = picked.get((lam, r), 0) + 1
            break
    if pick is None:
        print("stopped: no admissible candidate at L =", l)
        break
    params, j = pick
    sel = tuple(p[..., j:j + 1] for p in params)
    chosen.append(sel)
    h = outputs(Xtr, sel)[:, 0]
    for _ in range(2):  # Gram-Schmidt twice
        h = h - Q[:, :l] @ (Q[:, :l].T @ h)
    q = h / np.linalg.norm(h)
    Q[:, l] = q
    E -= np.outer(q, q @ E)
    if (l + 1) % 300 == 0:
        print(f"L {l + 1} train RMSE {np.sqrt((E * E).mean()):.4f} ({time.time() - start:.0f} s)", flush=True)

Lk = len(chosen)
params = tuple(np.concatenate([c[i] for c in chosen], axis=-1) for i in range(len(chosen[0])))
Htr, Hte = outputs(Xtr, params), outputs(Xte, params)
beta = np.linalg.lstsq(Htr, Ttr, rcond=None)[0]  # the minimum-norm least squares (pinv)


def report(name, H, T):
    e = H @ beta - T
    a = np.abs(e)
    return f"{name} RMSE {np.sqrt((e * e).mean()):.4f} PPA15 {100 * (a < 15).mean():.2f} PPA25 {100 * (a < 25).mean():.2f}"


print(f"{kind} {order} seed {seed} L {Lk}: {report('train', Htr, Ttr)}; {report('test', Hte, Tte)}; {time.time() - start:.0f} s")
print("chosen (lambda, 1 - r): nodes:", ", ".join(f"({lam:g}, {1 - r:.0e}): {n}" for (lam, r), n in sorted(picked.items())))
