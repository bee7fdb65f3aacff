#!/bin/sh
# Accuracy against fit time on MNIST and Fashion-MNIST: the four learners
# of the paper preset (scn train, L = 500 and 1000), the fast preset of
# 2DSCN and 2DRVFL (bench/curve: every 1000 nodes up to 7000 from one fit),
# and the numpy ELM peer (../shared/peers/elm_numpy.py, float32, ridge 1)
# when python3-numpy is present. Writes bench/pareto.csv and the SVG plots
# bench/pareto-<data>.svg. Usage, from the repository root:
#
#	sh bench/pareto.sh [DATA_ROOT]      # default ../shared/data
#
# Uses the OpenBLAS build (needs libopenblas-dev and pkg-config).
set -eu
root=${1:-../shared/data}
out=bench/pareto.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags openblas -o "$tmp/scn" ./cmd/scn
go build -tags openblas -o "$tmp/curve" ./bench/curve
echo "data,learner,nodes,fit_s,cpu_s,test_acc" > "$tmp/pareto.csv"
for data in mnist fashion-mnist; do
	d=$root/$data
	for model in 2dscn scn 2drvfl rvfl; do
		for nodes in 500 1000; do
			# scn train prints "...: L nodes (...), ..., T s"; eval "accuracy A%".
			line=$("$tmp/scn" train --model $model --nodes $nodes -q -o "$tmp/m.scn" \
				--idx-images "$d/train-images-idx3-ubyte.gz" --idx-labels "$d/train-labels-idx1-ubyte.gz" | head -1)
			fit=$(echo "$line" | sed 's/.*, \([0-9.]*\) s$/\1/')
			acc=$("$tmp/scn" eval "$tmp/m.scn" --idx-images "$d/t10k-images-idx3-ubyte.gz" \
				--idx-labels "$d/t10k-labels-idx1-ubyte.gz" | sed -n 's/^accuracy \([0-9.]*\)%.*/\1/p')
			echo "$data,$model paper,$nodes,$fit,,$acc" >> "$tmp/pareto.csv"
		done
	done
	for model in 2dscn 2drvfl; do
		"$tmp/curve" --data "$d" --model $model --preset fast >> "$tmp/pareto.csv"
	done
	if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
			gzip -dc "$d/$f.gz" > "$tmp/$f"
		done
		for nodes in 1000 3000 5000 7000 10000; do
			# ELM-NUMPY L=.. dtype=.. alpha=.. fit=..s test_acc=0.9736 ...
			/usr/bin/python3 ../shared/peers/elm_numpy.py "$tmp" $nodes 1 f32 |
				sed -n "s/.*fit=\([0-9.]*\)s test_acc=\([0-9.]*\).*/$data,numpy ELM f32,$nodes,\1,,\2/p" |
				awk -F, -v OFS=, '{ $6 = sprintf("%.2f", 100 * $6); print }' >> "$tmp/pareto.csv"
		done
	fi
done
mv "$tmp/pareto.csv" "$out"
go run ./bench/pareto "$out" bench
