"""Training the cell models (`python -m api.train.cells`); needs the `train` extra (PyTorch),
which users never do: the shipped models run on ONNX Runtime.
"""
