"""Prompt texts of an exact word count (one token a word on the CPU server's tokenizer)."""
import numpy as np
import pytest

from core.observe.prompts import DEFAULT_WORDS, Prompts, words_from
from core.registry import ParamError
from core.serving.workload import PrefixBlocks


def test_word_counts_are_the_lengths_and_the_prefix_is_shared():
    lens = [12, 30, 9]
    p = Prompts(lens, prefix_tokens=8, seed=3)
    texts = [p.prompt(i).split() for i in range(3)]
    assert [len(t) for t in texts] == lens
    assert texts[0][:8] == texts[1][:8] == texts[2][:8]
    assert texts[0][8:] != texts[1][8:12]  # the rests are each prompt's own
    assert all(w in DEFAULT_WORDS for t in texts for w in t)
    again = Prompts(lens, prefix_tokens=8, seed=3)
    assert [again.prompt(i).split() for i in range(3)] == texts  # same seed, same texts


def test_special_tokens_are_subtracted():
    p = Prompts([10, 1], special_tokens=1)
    assert len(p.prompt(0).split()) == 9
    assert len(p.prompt(1).split()) == 1  # at least one word


def test_prefix_blocks_share_text_per_hash_id():
    blocks = PrefixBlocks(ids=np.array([5, 6, 5, 7], np.int64), offsets=np.array([0, 2, 4], np.int64), block_tokens=4)
    p = Prompts([8, 6], blocks=blocks)
    a, b = p.prompt(0).split(), p.prompt(1).split()
    assert len(a) == 8 and len(b) == 6
    assert a[:4] == b[:4]  # block 5 twice: the same four words
    assert a[4:8] != b[4:6] + ["", ""]


def test_words_from_file_and_list(tmp_path):
    f = tmp_path / "words.txt"
    f.write_text("alpha beta\ngamma\n")
    assert words_from(str(f)) == ("alpha", "beta", "gamma")
    assert words_from("x, y,z") == ("x", "y", "z")
    assert words_from(None) == DEFAULT_WORDS
    with pytest.raises(ParamError) as err:
        words_from("only")
    assert err.value.param == "prompt_words"
