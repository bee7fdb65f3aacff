#!/bin/sh
# Accuracy against fit time and against parameters on MNIST and
# Fashion-MNIST: the four learners of the paper preset (scn train, L = 500
# and 1000), the fast preset of 2DSCN, 2DRVFL and RVFL (bench/curve; wall
# time of the whole fit, data loading excluded), scn train --budget at 5,
# 10, 30, 60 and 120 s (wall time of the whole process), the numpy ELM peer
# (../shared/peers/elm_numpy.py, float32, ridge 1) when python3-numpy is
# present, and the PyTorch CNN peer (../shared/peers/cnn_torch.py, 2
# threads, one row per epoch, cumulative training time) when python3-torch
# is present. Writes bench/pareto.csv and the SVG plots
# bench/pareto-<data>.svg (accuracy against time) and
# bench/pareto-<data>-params.svg (accuracy against parameters). Usage,
# from the repository root:
#
#	sh bench/pareto.sh [DATA_ROOT]      # default ../shared/data
#
# PAPER_MODELS="2dscn" (say) limits the paper-preset rows to those
# learners (default: all four).
#
# Uses the OpenBLAS build (needs libopenblas-dev and pkg-config).
set -eu
root=${1:-../shared/data}
out=bench/pareto.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags openblas -o "$tmp/scn" ./cmd/scn
go build -tags openblas -o "$tmp/curve" ./bench/curve
echo "data,learner,nodes,fit_s,cpu_s,test_acc,params" > "$tmp/pareto.csv"
# params: the "parameters" field of scn inspect --json.
params() { "$tmp/scn" inspect --json "$1" | sed -n 's/.*"parameters": \([0-9]*\).*/\1/p'; }
for data in mnist fashion-mnist; do
	d=$root/$data
	for model in ${PAPER_MODELS:-2dscn scn 2drvfl rvfl}; do
		for nodes in 500 1000; do
			# scn train prints "...: L nodes (...), ..., T s"; eval "accuracy A%".
			line=$("$tmp/scn" train --model $model --preset paper --nodes $nodes -q -o "$tmp/m.scn" \
				--idx-images "$d/train-images-idx3-ubyte.gz" --idx-labels "$d/train-labels-idx1-ubyte.gz" | head -1)
			fit=$(echo "$line" | sed 's/.*, \([0-9.]*\) s$/\1/')
			acc=$("$tmp/scn" eval "$tmp/m.scn" --idx-images "$d/t10k-images-idx3-ubyte.gz" \
				--idx-labels "$d/t10k-labels-idx1-ubyte.gz" | sed -n 's/^accuracy \([0-9.]*\)%.*/\1/p')
			echo "$data,$model paper,$nodes,$fit,,$acc,$(params "$tmp/m.scn")" >> "$tmp/pareto.csv"
		done
	done
	# The fast preset: 2DSCN (one fit, every 500 nodes), 2DRVFL and RVFL
	# (one fit per L); on Fashion-MNIST also RVFL with random nodes (no
	# difference nodes), the better choice there, up to L = 12000.
	"$tmp/curve" --data "$d" --model 2dscn --preset fast --every 500 >> "$tmp/pareto.csv"
	"$tmp/curve" --data "$d" --model 2drvfl --preset fast --every 1000 >> "$tmp/pareto.csv"
	if [ $data = mnist ]; then
		"$tmp/curve" --data "$d" --model rvfl --preset fast --every 1000 --nodes 7000 >> "$tmp/pareto.csv"
	else
		"$tmp/curve" --data "$d" --model rvfl --preset fast --every 1000 >> "$tmp/pareto.csv"
		"$tmp/curve" --data "$d" --model rvfl --preset fast --differences 0 --nodes 12000 --every 2000 \
			--label "RVFL fast (random nodes)" >> "$tmp/pareto.csv"
	fi
	# scn train --budget: the whole process, reading the data included.
	for b in 5 10 30 60 120; do
		start=$(date +%s.%N)
		"$tmp/scn" train --budget ${b}s -q -o "$tmp/b.scn" \
			--idx-images "$d/train-images-idx3-ubyte.gz" --idx-labels "$d/train-labels-idx1-ubyte.gz" >/dev/null
		wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
		acc=$("$tmp/scn" eval "$tmp/b.scn" --idx-images "$d/t10k-images-idx3-ubyte.gz" \
			--idx-labels "$d/t10k-labels-idx1-ubyte.gz" | sed -n 's/^accuracy \([0-9.]*\)%.*/\1/p')
		nodes=$("$tmp/scn" inspect --json "$tmp/b.scn" | sed -n 's/^  "nodes": \([0-9]*\).*/\1/p')
		printf '%s,scn --budget (whole process),%s,%.1f,,%s,%s\n' "$data" "$nodes" "$wall" "$acc" "$(params "$tmp/b.scn")" >> "$tmp/pareto.csv"
	done
	if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
			gzip -dc "$d/$f.gz" > "$tmp/$f"
		done
		for nodes in 1000 3000 5000 7000; do
			# ELM-NUMPY L=.. dtype=.. alpha=.. fit=..s test_acc=0.9736 ...
			# An ELM of L nodes has L (784 + 1 + 10) parameters.
			/usr/bin/python3 ../shared/peers/elm_numpy.py "$tmp" $nodes 1 f32 |
				sed -n "s/.*fit=\([0-9.]*\)s test_acc=\([0-9.]*\).*/$data,numpy ELM f32,$nodes,\1,,\2/p" |
				awk -F, -v OFS=, '{ $6 = sprintf("%.2f", 100 * $6); $7 = $3 * (784 + 1 + 10); print }' >> "$tmp/pareto.csv"
		done
		if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
			# The CNN's parameters: conv 1->32 5x5 (832), conv 32->64 5x5
			# (51264), dense 3136->128 (401536), dense 128->10 (1290).
			/usr/bin/python3 ../shared/peers/cnn_torch.py "$tmp" ${CNN_EPOCHS:-5} 2 |
				sed -n "s/.*epoch=\([0-9]*\) fit=\([0-9.]*\)s test_acc=\([0-9.]*\).*/$data,PyTorch CNN (2 threads),\1,\2,,\3/p" |
				awk -F, -v OFS=, '{ $6 = sprintf("%.2f", 100 * $6); $7 = 454922; print }' >> "$tmp/pareto.csv"
		fi
	fi
done
mv "$tmp/pareto.csv" "$out"
go run ./bench/pareto "$out" bench
