#!/usr/bin/env python3
"""Baseline for `lectern-bench`: sentence-transformers (PyTorch) embedding the same texts with the
same all-MiniLM-L6-v2 files, on the same number of threads. Prints one JSON object.

Usage: bench_sentence_transformers.py MODEL_DIR TEXTS.json THREADS [--vectors]
With --vectors it prints the texts and their whole vectors instead, the f32 reference the tests
hold the int8 model to (tests/core/minilm-reference.json).
Needs `pip install sentence-transformers` (it brings PyTorch); run offline.
"""
import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main() -> None:
    model_dir, texts_path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    whole_vectors = sys.argv[4:] == ["--vectors"]
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    model = SentenceTransformer(model_dir, device="cpu")
    model.max_seq_length = 256
    model.encode(texts[:16], batch_size=16)  # warm-up
    start = time.perf_counter()
    vectors = model.encode(texts, batch_size=16, normalize_embeddings=True)
    elapsed = time.perf_counter() - start
    runtime = f"sentence-transformers {__import__('sentence_transformers').__version__}, torch {torch.__version__}"
    if whole_vectors:
        vectors = [[round(float(x), 6) for x in v] for v in vectors]
        print(json.dumps({"runtime": runtime, "texts": texts, "vectors": vectors}))
        return
    print(json.dumps({
        "runtime": runtime,
        "threads": threads,
        "chunks": len(texts),
        "seconds": elapsed,
        "chunks_per_second": len(texts) / elapsed,
        "first_vector_head": [float(x) for x in vectors[0][:4]],
    }))


if __name__ == "__main__":
    main()
