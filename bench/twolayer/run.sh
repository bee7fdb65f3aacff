#!/bin/bash
# One vs two layers of local nodes in scn itself, on held-out splits of the training sets (docs/local.md, "Two
# layers"): natural-images (a fifth of each class's training photos held out, shuffled with seed 7) and
# Fashion-MNIST (12000 of the 60000 training images held out, RandomState(5)). Prints one line per fit: the
# flags, the held-out accuracy, wall / user / system seconds and peak KB of scn train, and the load.
#
# usage: bench/twolayer/run.sh [nat|fm|both]   (from the repository's root; DATA defaults to /work/shared/data)
set -e
DATA=${DATA:-/work/shared/data}
W=${WORK:-$(mktemp -d)}
go build -o "$W/scn" ./cmd/scn
/usr/bin/python3 - "$DATA" "$W" <<'PY'
import os, sys, random, gzip, numpy as np
data, w = sys.argv[1], sys.argv[2]
R = os.path.join(data, 'natural-images', 'train')
for c in sorted(os.listdir(R)):
    fs = sorted(f for f in os.listdir(os.path.join(R, c)) if f.endswith('.jpg'))
    random.Random(7).shuffle(fs)
    nv = len(fs) // 5
    for part, lst in (('test', fs[:nv]), ('train', fs[nv:])):
        d = os.path.join(w, 'nat-hold', part, c); os.makedirs(d, exist_ok=True)
        for f in lst:
            t = os.path.join(d, f)
            if not os.path.exists(t): os.symlink(os.path.join(R, c, f), t)
F = os.path.join(data, 'fashion-mnist')
def rd(p):
    b = gzip.open(os.path.join(F, p)).read()
    if b[2:4] == b'\x08\x03':
        n, r, c = np.frombuffer(b[4:16], '>i4'); return np.frombuffer(b[16:], np.uint8).reshape(n, r, c)
    return np.frombuffer(b[8:], np.uint8)
X, y = rd('train-images-idx3-ubyte.gz'), rd('train-labels-idx1-ubyte.gz')
perm = np.random.RandomState(5).permutation(len(y)); nv = 12000
os.makedirs(os.path.join(w, 'fm'), exist_ok=True)
def wr(p, a):
    hdr = (b'\x00\x00\x08\x03' if a.ndim == 3 else b'\x00\x00\x08\x01') + np.array(a.shape, '>i4').tobytes()
    with gzip.open(os.path.join(w, 'fm', p), 'wb', compresslevel=1) as f: f.write(hdr + a.tobytes())
wr('hold-images.gz', X[perm[:nv]]); wr('hold-labels.gz', y[perm[:nv]])
wr('fit-images.gz', X[perm[nv:]]); wr('fit-labels.gz', y[perm[nv:]])
PY
fit() { # fit SET FLAGS...
	set=$1; shift
	if [ "$set" = nat ]; then
		tr=(--folder "$W/nat-hold/train"); te=(--folder "$W/nat-hold/test")
	else
		tr=(--idx-images "$W/fm/fit-images.gz" --idx-labels "$W/fm/fit-labels.gz")
		te=(--idx-images "$W/fm/hold-images.gz" --idx-labels "$W/fm/hold-labels.gz")
	fi
	/usr/bin/time -o "$W/time" -f "%e %U %S %M" "$W/scn" train -q "${tr[@]}" "$@" -o "$W/m.scn" >/dev/null
	acc=$("$W/scn" eval "$W/m.scn" "${te[@]}" | grep '^accuracy' | head -1)
	echo "$set | $* | held out $acc | wall/user/sys/KB $(cat "$W/time") | load $(cut -d' ' -f1 /proc/loadavg)"
}
what=${1:-both}
P="--model 2drvfl --local 5x5"
if [ "$what" != fm ]; then
	for r in 100 300; do fit nat $P --whiten --filters 256 --ridge $r; done
	fit nat $P --whiten --filters 512 --ridge 300
	for r in 300 1000; do fit nat $P --whiten --filters 64 --local2 3x3 --filters2 128 --ridge $r; done
	fit nat $P --whiten --filters 64 --local2 3x3 --filters2 128 --ridge 1000 --concat=false
	fit nat $P --whiten --filters 64 --local2 3x3 --filters2 192 --ridge 1000
	fit nat $P --whiten --filters 96 --local2 3x3 --filters2 128 --ridge 1000
	fit nat $P --whiten --filters 64 --local2 3x3 --filters2 192 --ridge 1000 --mid-pool 3 --mid-stride 2
fi
if [ "$what" != nat ]; then
	for f in 128 192; do fit fm $P --filters $f --pooling avg+max --ridge 10; done
	for r in 10 30; do fit fm $P --filters 32 --pooling avg+max --local2 3x3 --filters2 96 --ridge $r; done
fi
