"""Encoder work in the LM engine (E15's seam: Workload.encoder, EngineConfig's encoder budget):
the step that admits an image request adds exactly its encoder seconds; a hit adds none."""
import dataclasses

import numpy as np
import pytest

from core.serving.engine import replay
from core.serving.multimodal import encoder as enc
from core.serving.multimodal import images as im
from core.serving.multimodal.lm import engine_config, with_images
from core.serving.workload import Workload


def _one(table, capacity=0, text=0, out=1, arrivals=None):
    n = table.requests
    arrival = np.zeros(n) if arrivals is None else np.asarray(arrivals, dtype=float)
    work = Workload(arrival_s=arrival, input_tokens=np.full(n, text, dtype=np.int64),
                    output_tokens=np.full(n, out, dtype=np.int64))
    plan = enc.plan(table, np.argsort(arrival, kind="stable"), capacity, enc.encoder_flops_per_s())
    return with_images(work, table, plan), with_images(work, table), plan


def test_an_image_request_alone_pays_its_encoder_seconds_in_its_first_step():
    table = im.table([[("a", 640, 640)]])
    with_enc, without, plan = _one(table)
    config = engine_config()
    a, b = replay(with_enc, config), replay(without, config)
    assert with_enc.encoder.seconds[0] == plan.seconds[0] > 0
    assert a.first_token_s[0] - b.first_token_s[0] == pytest.approx(plan.seconds[0], rel=1e-9)
    assert a.extras["encoder_s"] == pytest.approx(plan.seconds[0], rel=1e-12)
    assert replay(with_enc, config, fast=False).first_token_s[0] == pytest.approx(a.first_token_s[0], rel=1e-12)


def test_a_cache_hit_adds_no_encoder_time():
    # The same image twice, the second long after the first: with the cache it encodes once.
    table = im.table([[("a", 640, 640)], [("a", 640, 640)]])
    config = engine_config()
    cached, _, plan = _one(table, capacity=10_000, arrivals=[0.0, 10.0])
    cold, plain, cold_plan = _one(table, capacity=0, arrivals=[0.0, 10.0])
    assert plan.seconds[1] == 0.0 and cold_plan.seconds[1] > 0
    r_cached, r_cold, r_plain = replay(cached, config), replay(cold, config), replay(plain, config)
    assert r_cached.ttft_s[1] == pytest.approx(r_plain.ttft_s[1], rel=1e-12)
    assert r_cold.ttft_s[1] - r_plain.ttft_s[1] == pytest.approx(cold_plan.seconds[1], rel=1e-9)
    assert r_cached.extras["encoder_s"] == pytest.approx(plan.seconds[0], rel=1e-12)


def test_the_encoder_budget_splits_two_image_requests():
    table = im.table([[("a", 640, 640)], [("b", 640, 640)]])
    work, _, _ = _one(table, out=2)
    wide, narrow = engine_config(encoder_budget=800), engine_config(encoder_budget=400)
    both, split = replay(work, wide), replay(work, narrow)
    assert both.first_token_s[0] == both.first_token_s[1]  # one step admitted both
    assert split.first_token_s[1] > split.first_token_s[0]  # the second waited for the next step
    assert dataclasses.replace(narrow).max_num_encoder_input_tokens == 400


def test_one_image_id_is_encoded_once_in_the_engine():
    # 30 requests of the same image, close together: the engine's steps carry one image's encoder time.
    table = im.table([[("same", 1280, 1280)]] * 30)
    work, _, plan = _one(table, capacity=1600, text=50, out=4, arrivals=np.arange(30) * 0.01)
    result = replay(work, engine_config())
    assert int(plan.misses.sum()) == 1
    assert result.extras["encoder_s"] == pytest.approx(im.figures(1280, 1280).encode_flops / enc.encoder_flops_per_s(),
                                                       rel=1e-12)
    assert int(result.preemptions.sum()) == 0
