#!/usr/bin/env python3
# One vs two layers of random local nodes with a ridge read-out, in PyTorch (float32 features, float64 solve): the
# prototype behind docs/local.md's "Two layers" section (issue 31, item 2), for a fast first look before the Go
# implementation (scn train --local2).
#
# First layer: F1 separable filters u v^T x w of k1 x k1, drawn in the space of ZCA-whitened patches (eps 0.1, planes
# standardised), two-sided ReLU. Second layer (--f2 > 0): the first layer's 2 F1 maps pooled between the layers
# (--pool1 max2, avg2, max3s2, avg3s2), standardised plane by plane (--norm2 std) or ZCA-whitened (whiten) or not
# (none), then F2 random filters of k2 x k2 over all the planes (separable with --sep2 1, full with 0), two-sided ReLU.
# Each kept layer is pooled over a p x p grid (avg, or avg+max); the hidden outputs are the second layer's, after the
# first layer's with --concat 1; standardised; ridge read-out for each --ridges value.
#
# usage: /usr/bin/python3 randconv2.py nat|fm|DIR [--f1 N] [--f2 N] [--k2 K] [--pool1 P] [--concat 0|1] [--ridges a,b]
#   nat: natural-images, fm: Fashion-MNIST (held out: a fifth of the training set, RandomState(123); --test 1 scores
#   the test set); DIR: a folder with train/ and test/ class folders of JPEGs (scored on its test part).
import os, sys, time, gzip, argparse, numpy as np, torch, torch.nn.functional as F
from PIL import Image
torch.set_num_threads(2)
ap = argparse.ArgumentParser()
ap.add_argument('set'); ap.add_argument('--f1', type=int, default=128); ap.add_argument('--f2', type=int, default=0)
ap.add_argument('--k1', type=int, default=5); ap.add_argument('--k2', type=int, default=3)
ap.add_argument('--pool1', default='max2')  # intermediate pooling: max2, avg2, max3s2, avg3s2
ap.add_argument('--norm2', default='std')   # std | whiten | none
ap.add_argument('--concat', type=int, default=1)
ap.add_argument('--pool', type=int, default=3); ap.add_argument('--pooling', default='avg')
ap.add_argument('--ridges', default='10,100,1000'); ap.add_argument('--test', type=int, default=0)
ap.add_argument('--seed', type=int, default=1); ap.add_argument('--sep2', type=int, default=1)
ap.add_argument('--onesided2', type=int, default=0)
a = ap.parse_args()
torch.manual_seed(a.seed); np.random.seed(a.seed)
t0 = time.time()
def load_folder(root, split):
    cls = sorted(os.listdir(os.path.join(root, 'train'))); X, y = [], []
    for i, c in enumerate(cls):
        d = os.path.join(root, split, c)
        for f in sorted(os.listdir(d)):
            if not f.endswith('.jpg'): continue
            im = Image.open(os.path.join(d, f)).convert('RGB')
            X.append(np.asarray(im, dtype=np.float32) / 255); y.append(i)
    return torch.tensor(np.stack(X)).permute(0, 3, 1, 2).contiguous(), np.array(y)
def idx(p):
    with gzip.open(p) as f: b = f.read()
    if b[2:4] == b'\x08\x03':
        n, r, c = np.frombuffer(b[4:16], '>i4'); return np.frombuffer(b[16:], np.uint8).reshape(n, 1, r, c).astype(np.float32) / 255
    return np.frombuffer(b[8:], np.uint8).astype(np.int64)
DATA = os.environ.get('SCN_DATA', '/work/shared/data')
if a.set not in ('nat', 'fm'):
    Xtr, ytr = load_folder(a.set, 'train'); Xte, yte = load_folder(a.set, 'test'); a.test = 1
elif a.set == 'nat':
    R = DATA + '/natural-images'; Xtr, ytr = load_folder(R, 'train'); Xte, yte = load_folder(R, 'test')
else:
    R = DATA + '/fashion-mnist'
    Xtr = torch.tensor(idx(R + '/train-images-idx3-ubyte.gz')); ytr = idx(R + '/train-labels-idx1-ubyte.gz')
    Xte = torch.tensor(idx(R + '/t10k-images-idx3-ubyte.gz')); yte = idx(R + '/t10k-labels-idx1-ubyte.gz')
if not a.test:  # held-out split of the training set
    g = np.random.RandomState(123); perm = g.permutation(len(ytr)); nv = len(ytr) // 5
    Xte, yte = Xtr[perm[:nv]], ytr[perm[:nv]]; Xtr, ytr = Xtr[perm[nv:]], ytr[perm[nv:]]
k = int(ytr.max()) + 1; C = Xtr.shape[1]
m = Xtr.mean((0, 2, 3), keepdim=True); s = Xtr.std((0, 2, 3), keepdim=True); Xtr = (Xtr - m) / s; Xte = (Xte - m) / s
t1 = time.time()
def zca(X, ks, pad, eps, n=50000):
    P = F.unfold(X[torch.randint(len(X), (min(len(X), 2000),))], ks, padding=pad).transpose(1, 2).reshape(-1, X.shape[1] * ks * ks)
    P = P[torch.randperm(len(P))[:n]].double()
    mu = P.mean(0); Cv = torch.cov(P.T); d, V = torch.linalg.eigh(Cv)
    W = V @ torch.diag((d + eps) ** -0.5) @ V.T
    return W.float(), mu.float()
def sepfilters(Fn, ks, Cin):
    u = torch.randn(Fn, ks); v = torch.randn(Fn, ks); w = torch.randn(Fn, Cin)
    Wt = torch.einsum('ki,kj,kc->kcij', u, v, w)
    return Wt / Wt.flatten(1).norm(dim=1).view(-1, 1, 1, 1)
# layer 1: whitened separable filters
Wz, mu = zca(Xtr, a.k1, a.k1 // 2, 0.1)
f1 = sepfilters(a.f1, a.k1, C).flatten(1)  # in whitened space
W1 = (f1 @ Wz).view(a.f1, C, a.k1, a.k1)  # Wz symmetric
b1 = torch.rand(a.f1) - 0.5 - (f1 @ Wz) @ mu
def inter_pool(h):
    if a.pool1 == 'max2': return F.max_pool2d(h, 2)
    if a.pool1 == 'avg2': return F.avg_pool2d(h, 2)
    if a.pool1 == 'max3s2': return F.max_pool2d(h, 3, 2, padding=1)
    if a.pool1 == 'avg3s2': return F.avg_pool2d(h, 3, 2, padding=1, count_include_pad=False)
    raise ValueError
def final_pool(h):
    o = [F.adaptive_avg_pool2d(h, a.pool).flatten(1)]
    if a.pooling == 'avg+max': o.append(F.adaptive_max_pool2d(h, a.pool).flatten(1))
    return torch.cat(o, 1)
def layer1(X):
    h = F.conv2d(X, W1, b1, padding=a.k1 // 2)
    return torch.cat([F.relu(h), F.relu(-h)], 1)
def batches(X, f, bs=100):
    return torch.cat([f(X[i:i + bs]) for i in range(0, len(X), bs)])
# second layer set-up: moments of the pooled first-layer maps
if a.f2:
    sub = Xtr[torch.randperm(len(Xtr))[:2000]]
    P1 = batches(sub, lambda x: inter_pool(layer1(x)))
    C2 = P1.shape[1]
    m2 = P1.mean((0, 2, 3)).view(1, -1, 1, 1); s2 = P1.std((0, 2, 3)).view(1, -1, 1, 1) + 1e-6
    if a.norm2 == 'none': m2 = torch.zeros_like(m2); s2 = torch.ones_like(s2)
    if a.sep2: f2 = sepfilters(a.f2, a.k2, C2)
    else:
        f2 = torch.randn(a.f2, C2, a.k2, a.k2); f2 = f2 / f2.flatten(1).norm(dim=1).view(-1, 1, 1, 1)
    if a.norm2 == 'whiten':
        Wz2, mu2 = zca((P1 - m2) / s2, a.k2, a.k2 // 2, 0.1)
        ff = f2.flatten(1); W2 = (ff @ Wz2).view_as(f2); b2 = torch.rand(a.f2) - 0.5 - (ff @ Wz2) @ mu2
    else:
        W2 = f2; b2 = torch.rand(a.f2) - 0.5
    del P1
def feats(X):
    h1 = layer1(X); o = []
    if a.concat or not a.f2: o.append(final_pool(h1))
    if a.f2:
        p = (inter_pool(h1) - m2) / s2
        h2 = F.conv2d(p, W2, b2, padding=a.k2 // 2)
        h2 = F.relu(h2) if a.onesided2 else torch.cat([F.relu(h2), F.relu(-h2)], 1)
        o.append(final_pool(h2))
    return torch.cat(o, 1)
with torch.no_grad():
    Htr = batches(Xtr, feats); Hte = batches(Xte, feats)
mu_h = Htr.mean(0); sd_h = Htr.std(0) + 1e-6; Htr = (Htr - mu_h) / sd_h; Hte = (Hte - mu_h) / sd_h
T = torch.tensor(np.eye(k)[ytr], dtype=torch.float32)
G = (Htr.T @ Htr).double(); HT = (Htr.T @ T).double()
t2 = time.time()
res = []
for lam in [float(r) for r in a.ridges.split(',')]:
    t3 = time.time()
    B = torch.linalg.solve(G + lam * torch.eye(len(G), dtype=torch.float64), HT).float()
    acc = ((Hte @ B).argmax(1).numpy() == yte).mean() * 100
    res.append(f'{lam:g}:{acc:.2f}')
    ts = time.time() - t3
print(f'{a.set} {"TEST" if a.test else "heldout"} f1={a.f1} f2={a.f2} k2={a.k2} pool1={a.pool1} norm2={a.norm2} concat={a.concat} sep2={a.sep2} pooling={a.pooling} L={Htr.shape[1]} feat+gram={t2-t1:.1f}s solve={ts:.1f}s | ' + ' '.join(res), flush=True)
