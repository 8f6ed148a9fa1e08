"""The tiny model the CPU vLLM server serves: a LlamaForCausalLM config.json and a tokenizer
built here with `tokenizers` (no download; the weights are random: --load-format dummy).

One word per token ("w0" .. "w4091" after four special tokens, split on whitespace, no BOS
added), so a prompt of N words is exactly N prompt tokens and the lab's lengths are the
server's. Usage: python make_model.py DIR (run with the vllm venv's python: it has tokenizers).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

SPECIALS = ("<unk>", "<s>", "</s>", "<pad>")
VOCAB = 4096
# The lab's view of the same model (model=tiny-llama-cpu) is this very file: one source.
CONFIG_FILE = Path(__file__).resolve().parents[2] / "core/data/model_configs/tiny-llama-cpu.json"
CONFIG = json.loads(CONFIG_FILE.read_text())
assert CONFIG["vocab_size"] == VOCAB, CONFIG_FILE


def words() -> list[str]:
    """The vocabulary in id order: the special tokens, then w0, w1, ..."""
    return list(SPECIALS) + [f"w{i}" for i in range(VOCAB - len(SPECIALS))]


def write(folder: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n")
    vocab = {w: i for i, w in enumerate(words())}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(list(SPECIALS))
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>",
        "add_bos_token": False, "add_eos_token": False, "clean_up_tokenization_spaces": False,
        "model_max_length": CONFIG["max_position_embeddings"],
    }, indent=2) + "\n")
    (folder / "generation_config.json").write_text(json.dumps(
        {"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 3}, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_model.py DIR")
    write(Path(sys.argv[1]))
