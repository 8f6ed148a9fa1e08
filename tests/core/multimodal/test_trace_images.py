"""A trace's `images` column (CSV, JSONL, Mooncake JSONL): read per request, kept aligned
through the loader's transforms, and its visual tokens added to the prompts."""
import numpy as np
import pytest

from core.registry import ParamError
from core.serving import traces
from core.serving.headless import serving_report
from core.serving.multimodal import images as im
from core.serving.multimodal.lm import with_images
from core.serving.traces.images import parse_cell
from core.serving.workload import PrefixBlocks, Workload

PLAIN = ('{"arrival_s": 0.0, "input_tokens": 100, "output_tokens": 10, "images": ["cat:640x640", "320x480"]}\n'
         '{"arrival_s": 0.5, "input_tokens": 50, "output_tokens": 5}\n'
         '{"arrival_s": 1.0, "input_tokens": 80, "output_tokens": 8, "images": '
         '[{"id": "cat", "height": 640, "width": 640, "file_bytes": 1000}]}\n')
CSV = "arrival_s,input_tokens,output_tokens,images\n1,80,8,cat:640x640\n0,100,10,cat:640x640;320x480\n0.5,50,5,\n"
MOONCAKE = ('{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2], "images": ["cat:640x640"]}\n'
            '{"timestamp": 1000, "input_length": 600, "output_length": 10, "hash_ids": [1, 3], "images": ["cat:640x640"]}\n')
FIRST = [("cat", 640, 640, 0), ("#1.1", 320, 480, 0)]


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_jsonl_and_csv_rows_keep_their_images(tmp_path):
    plain = traces.load_trace(_write(tmp_path, "a.jsonl", PLAIN))
    assert plain.meta["images"] == [FIRST, [], [("cat", 640, 640, 1000)]]
    # The CSV's rows are out of order: the images follow their requests into arrival order.
    csv = traces.load_trace(_write(tmp_path, "c.csv", CSV))
    assert csv.arrival_s.tolist() == [0.0, 0.5, 1.0]
    assert csv.meta["images"] == [[("cat", 640, 640, 0), ("#2.1", 320, 480, 0)], [], [("cat", 640, 640, 0)]]
    # window= and limit= keep each request's own images.
    cut = traces.load_trace(_write(tmp_path, "b.jsonl", PLAIN), window=(0.25, 2.0), limit=1)
    assert cut.meta["images"] == [[]] and cut.input_tokens.tolist() == [50]


def test_the_visual_tokens_join_the_prompts(tmp_path):
    work = traces.load_trace(_write(tmp_path, "a.jsonl", PLAIN))
    table = im.table(work.meta["images"])
    assert table.ids == ("cat", "#1.1")  # the same id twice is one image
    lm = with_images(work, table)
    assert lm.input_tokens.tolist() == [100 + 400 + im.figures(320, 480).visual_tokens, 50, 80 + 400]


def test_mooncake_images_and_hash_ids(tmp_path):
    work = traces.load_trace(_write(tmp_path, "m.jsonl", MOONCAKE))
    assert work.meta["format"] == "mooncake" and work.meta["images"] == [[("cat", 640, 640, 0)]] * 2
    lm = with_images(work, im.table(work.meta["images"]))
    # 600 text tokens: one full 512-token block keeps its id; the rest of 1,000 tokens is new.
    assert lm.input_tokens.tolist() == [1000, 1000]
    assert lm.prefix.ids.tolist() == [1, 4, 1, 5] and lm.prefix.offsets.tolist() == [0, 2, 4]
    report, _ = serving_report({"trace": str(tmp_path / "m.jsonl"), "encoder_cache_size": "10000"})
    assert (report["images"]["encoder_cache_hits"], report["images"]["encoder_cache_misses"]) == (1, 1)
    assert report["cached_tokens_total"] == 512  # the shared text block, not the image's


def test_prefix_blocks_extend_by_hand():
    w = Workload(arrival_s=np.array([0.0, 1.0]), input_tokens=np.array([600, 100]), output_tokens=np.array([4, 4]),
                 prefix=PrefixBlocks(ids=np.array([1, 2, 1]), offsets=np.array([0, 2, 3]), block_tokens=512))
    x = with_images(w, im.table([[("a", 640, 640)], [("b", 1280, 1280)]]))
    assert x.input_tokens.tolist() == [1000, 1700]
    assert x.prefix.ids.tolist() == [1, 3, 4, 5, 6, 7] and x.prefix.offsets.tolist() == [0, 2, 6]


@pytest.mark.parametrize("cell, message", [
    (["640"], "image 1 is '640'"), ("a:64x64:big", "image 1"), ([{"height": 1, "w": 2}], "image 1"),
    ({"id": "x"}, "images is"), (["1x300"], "image 1"), ([{"id": "", "height": 64, "width": 64}], "image id"),
])
def test_bad_cells_name_the_row(cell, message):
    with pytest.raises(ParamError, match=message) as err:
        parse_cell(cell, 7, "line")
    assert err.value.param == "trace" and "line 7" in str(err.value)


def test_cell_forms():
    assert parse_cell("a:64x32:99; 16x16", 2) == [("a", 64, 32, 99), ("#2.1", 16, 16, 0)]
    assert parse_cell('["a:64x32"]', 2) == [("a", 64, 32, 0)]
    assert parse_cell(b"", 2) == [] and parse_cell(None, 2) == []


def test_a_trace_with_an_images_column_runs_with_images(tmp_path):
    """No image key needed: the column says which requests carry what (vLLM's default
    encoder cache: the encoder budget, here the token budget)."""
    report, (result, work) = serving_report({"trace": _write(tmp_path, "c.csv", CSV)})
    b = report["images"]
    assert (b["images"], b["image_requests"], b["encoder_cache_size"]) == (3, 2, 8192)
    assert (b["encoder_cache_hits"], b["encoder_cache_misses"]) == (1, 2)
    assert work.input_tokens.tolist() == [100 + 400 + im.figures(320, 480).visual_tokens, 50, 80 + 400]
    plain, _ = serving_report({"trace": _write(tmp_path, "p.csv", "arrival_s,input_tokens,output_tokens\n0,10,2\n")})
    assert "images" not in plain


SESSIONS = ('{"session_id": "a", "turn": 0, "arrival_s": 0.0, "input_tokens": 100, "output_tokens": 20, '
            '"images": ["cat:640x640"]}\n'
            '{"session_id": "a", "turn": 1, "think_time_s": 2.0, "input_tokens": 30, "output_tokens": 10}\n'
            '{"session_id": "a", "turn": 2, "think_time_s": 2.0, "input_tokens": 30, "output_tokens": 10, '
            '"images": ["dog:640x640"]}\n'
            '{"session_id": "b", "turn": 0, "arrival_s": 0.5, "input_tokens": 50, "output_tokens": 5}\n')


def test_session_turns_carry_their_images_into_the_history(tmp_path):
    work = traces.load_trace(_write(tmp_path, "s.jsonl", SESSIONS))
    assert work.meta["images"] == [[("cat", 640, 640, 0)], [], [], [("dog", 640, 640, 0)]]
    lm = with_images(work, im.table(work.meta["images"]))
    # Rows in arrival order: a0, b0, a1, a2. a0: 100 + 400; a1 keeps a0's 500 + 20 and adds 30;
    # a2 keeps a1's 550 + 10 and adds 30 + 400 (the dog).
    assert lm.input_tokens.tolist() == [500, 50, 550, 990]
    assert lm.sessions.shared_prefix_tokens.tolist() == [0, 0, 520, 560]
    assert lm.sessions.new_input_tokens.tolist() == [500, 50, 30, 430]
    report, (result, _) = serving_report({"trace": str(tmp_path / "s.jsonl")})
    assert (report["images"]["images"], report["images"]["encoder_cache_misses"]) == (2, 2)
    assert result.cached_tokens[2] > 0  # the image's KV is in the history the next turn reuses


def test_aiperf_mooncake_sessions_carry_images(tmp_path):
    text = ('{"session_id": "a", "timestamp": 0, "input_length": 100, "output_length": 20, "images": ["cat:640x640"]}\n'
            '{"session_id": "a", "delay": 2000, "input_length": 30, "output_length": 10}\n')
    work = traces.load_trace(_write(tmp_path, "ms.jsonl", text))
    assert work.meta["format"] == "mooncake" and work.sessions is not None
    assert work.meta["images"] == [[("cat", 640, 640, 0)], []]
    assert with_images(work, im.table(work.meta["images"])).input_tokens.tolist() == [500, 550]
