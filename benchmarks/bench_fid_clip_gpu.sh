#!/usr/bin/env bash
# fid_clip's image path on CUDA against torchmetrics' FrechetInceptionDistance and pytorch-fid's loop,
# in one run: images per second, per CPU-second and peak memory, at batch 50 and 200, with
# and without decoding workers; the real-size FID Inception with random weights (one state dict for
# the three tools), 256x256 PNG files written to a temporary folder. No downloads.
#
# On a lent GPU machine, from the repository root (its plain python3 holds a CUDA torch, torchmetrics,
# PIL, scipy and tqdm; the library runs from src/ without installing):
#     benchmarks/bench_fid_clip_gpu.sh [IMAGES]          # default 2000 images (1,000 per side)
# Through the session's device tool: run(command="benchmarks/bench_fid_clip_gpu.sh 2000", timeout_s=480);
# the table is also written to $OUT/bench_fid_clip_gpu.txt when $OUT is set. About 3 to 5 minutes on
# one H100 (12 configurations, each in its own process; most of it is PNG decoding on the CPUs).
# pytorch-fid itself (pure Python; the GPU image has torchvision): where its wheel lies in .whl/
# (here: `echo /.whl/ >> .git/info/exclude; pip download --no-deps pytorch-fid==0.3.0 -d .whl`, and
# carry=[".whl"] in the run call), its own get_activations is timed; else its loop, transcribed.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGES="${1:-2000}"
PY="${PYTHON:-python3}"
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
    PY=.venv/bin/python
fi
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
"$PY" -c 'import torch; assert torch.cuda.is_available(), "no CUDA device"; print(torch.__version__, torch.cuda.get_device_name(0))'
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
if compgen -G ".whl/pytorch_fid-*.whl" >/dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/fid_site .whl/pytorch_fid-*.whl
    export PYTHONPATH="$PYTHONPATH:/tmp/fid_site"
fi
LOG="${OUT:-/tmp}/bench_fid_clip_gpu.txt"
"$PY" benchmarks/bench_fid_clip.py --images "$IMAGES" --device cuda --batches 50,200 2>&1 | tee "$LOG"
