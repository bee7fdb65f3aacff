# Writes scipy's MAT-files of matfile's tests (run: python3 make_scipy.py).
import numpy as np
from scipy.io import savemat
d = (np.arange(1, 13, dtype=np.float64).reshape(4, 3).T) / 4  # d[i, j] = (i + 3j + 1)/4
v = {
    "d": d,
    "s": (np.arange(1, 7, dtype=np.float32).reshape(3, 2).T) / 2,
    "u": np.array([0, 1, 2, 250, 255, 7], dtype=np.uint8).reshape(2, 3).T,
    "i16": np.array([[-32768], [-1], [0], [1], [32767]], dtype=np.int16),
    "n3": np.arange(24, dtype=np.float64).reshape(4, 3, 2).transpose(2, 1, 0),
    "st": {"a": 1.0, "b": np.array([1.0, 2.0])},
    "c": np.array([1.0, "two"], dtype=object),
}
savemat("scipy_plain.mat", v, do_compression=False)
savemat("scipy_zlib.mat", v, do_compression=True)
