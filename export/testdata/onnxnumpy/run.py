"""Runs an exported ONNX graph op by op in numpy (the ops the exporter
uses), after the ONNX checker: python3 run.py MODEL X.f32 N ROWS COLS OUT.npy.
A cross-check where onnxruntime is not installed; export_test.go runs it."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
n, rows, cols = (int(v) for v in sys.argv[3:6])
env = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
env["x"] = np.fromfile(sys.argv[2], dtype="<f4").reshape(n, rows, cols)
for node in m.graph.node:
    i = [env[k] for k in node.input]
    a = {t.name: onnx.helper.get_attribute_value(t) for t in node.attribute}
    op = node.op_type
    if op == "MatMul":
        r = np.matmul(i[0], i[1])
    elif op == "Mul":
        r = i[0] * i[1]
    elif op == "Add":
        r = i[0] + i[1]
    elif op == "ReduceSum":
        r = i[0].sum(axis=tuple(i[1]), keepdims=bool(a.get("keepdims", 1)))
    elif op == "Sigmoid":
        r = (1 / (1 + np.exp(-i[0]))).astype(i[0].dtype)
    elif op == "Tanh":
        r = np.tanh(i[0])
    elif op == "Relu":
        r = np.maximum(i[0], 0)
    elif op == "Cast":
        r = i[0].astype(np.float64)
    elif op == "Concat":
        r = np.concatenate(i, axis=a["axis"])
    elif op == "Reshape":
        r = i[0].reshape(i[1])
    elif op == "Unsqueeze":
        r = np.expand_dims(i[0], tuple(i[1]))
    elif op == "ArgMax":
        r = i[0].argmax(axis=a["axis"])
    else:
        sys.exit("op " + op + " not interpreted")
    env[node.output[0]] = r
np.save(sys.argv[6], env["y"])
