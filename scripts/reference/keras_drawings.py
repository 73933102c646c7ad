#!/usr/bin/env python3
"""The drawing judge trained in Keras (TensorFlow from PyPI), for comparison with
`sentio train drawings`: the same network, the same split, epochs, batch size and optimizer.

Runs in its own virtual environment (~/.cache/sentio/venv-keras, made on first use with
tensorflow-cpu and numpy).

  sentio train drawings --data DIR --out /tmp/judge.tflite --epochs E --batch-size B --save-split SPLIT
  scripts/reference/keras_drawings.py SPLIT --epochs E --batch-size B [--optimizer adam|sgd] [--seed S] [--threads N]

Prints one JSON line: {"test_accuracy", "train_accuracy", "loss", "seconds", "epochs", "batch_size", "threads"}.
The network, as SequentialNetwork.drawingJudge: 3 × (Conv2D 3×3 + ReLU; 16, 32, 32 filters,
VALID) → MaxPooling2D 2×2 → Dropout 0.25 → Dense 64 + ReLU → Dropout 0.5 → Dense + softmax;
Keras's default initializers (Glorot uniform, zero biases), sparse categorical cross-entropy.
"""
import json
import os
import subprocess
import sys
import time

VENV = os.path.expanduser("~/.cache/sentio/venv-keras")
PACKAGES = ["tensorflow-cpu", "numpy"]


def ensure_venv():
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", *PACKAGES], check=True)
    os.execv(python, [python, *sys.argv])


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("split")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--optimizer", default="adam")
    parser.add_argument("--learning-rate", type=float)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    ensure_venv()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf
    from tensorflow import keras
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    keras.utils.set_random_seed(args.seed)
    load = lambda name: np.load(os.path.join(args.split, name))
    train_x, train_y, test_x, test_y = load("train_x.npy"), load("train_y.npy"), load("test_x.npy"), load("test_y.npy")
    classes = int(max(train_y.max(), test_y.max())) + 1
    model = keras.Sequential([
        keras.Input(shape=train_x.shape[1:]),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Dropout(0.25),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(classes, activation="softmax"),
    ])
    if args.optimizer == "adam":
        optimizer = keras.optimizers.Adam(learning_rate=args.learning_rate or 0.001)
    else:
        optimizer = keras.optimizers.SGD(learning_rate=args.learning_rate or 0.01, momentum=0.9)
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    history = model.fit(train_x, train_y, epochs=args.epochs, batch_size=args.batch_size, shuffle=True, verbose=0)
    seconds = time.perf_counter() - start
    _, test_accuracy = model.evaluate(test_x, test_y, verbose=0)
    print(json.dumps({"test_accuracy": float(test_accuracy), "train_accuracy": float(history.history["accuracy"][-1]),
                      "loss": float(history.history["loss"][-1]), "seconds": seconds, "epochs": args.epochs,
                      "batch_size": args.batch_size, "threads": args.threads}), flush=True)


if __name__ == "__main__":
    main()
