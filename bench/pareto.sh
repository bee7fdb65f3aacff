#!/bin/sh
# Accuracy against fit time on MNIST and Fashion-MNIST: the four learners
# of the paper preset (scn train, L = 500 and 1000), the fast preset of
# 2DSCN, 2DRVFL and RVFL (bench/curve; wall time of the whole fit, data
# loading excluded), and the numpy ELM peer (../shared/peers/elm_numpy.py, float32, ridge 1)
# when python3-numpy is present. Writes bench/pareto.csv and the SVG plots
# bench/pareto-<data>.svg. Usage, from the repository root:
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
echo "data,learner,nodes,fit_s,cpu_s,test_acc" > "$tmp/pareto.csv"
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
			echo "$data,$model paper,$nodes,$fit,,$acc" >> "$tmp/pareto.csv"
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
	if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
			gzip -dc "$d/$f.gz" > "$tmp/$f"
		done
		for nodes in 1000 3000 5000 7000; do
			# ELM-NUMPY L=.. dtype=.. alpha=.. fit=..s test_acc=0.9736 ...
			/usr/bin/python3 ../shared/peers/elm_numpy.py "$tmp" $nodes 1 f32 |
				sed -n "s/.*fit=\([0-9.]*\)s test_acc=\([0-9.]*\).*/$data,numpy ELM f32,$nodes,\1,,\2/p" |
				awk -F, -v OFS=, '{ $6 = sprintf("%.2f", 100 * $6); print }' >> "$tmp/pareto.csv"
		done
	fi
done
mv "$tmp/pareto.csv" "$out"
go run ./bench/pareto "$out" bench
