"""The inputs of one simulated RL loop (`lab simulate rl`).

Every key is a core.registry.Param, so text parses, ranges and error messages are the same
as everywhere else in the lab; RLParams holds the checked values with the defaults. The
book's figures are 例题 3-4's (Qwen3-8B, P = 1024, G = 256, 16 kept of 32); defaults marked
示意 (the MFU, the link, the switch, the sandbox) are assumptions, not measurements.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from core.registry import Param, ParamError
from core.serving.aliases import unknown_key
from core.serving.model_choice import BOOK_HARDWARE, hardware_keys
from core.training.model import dense_model_keys

MODES = ("synchronous", "one_step", "async", "partial")
PLACEMENTS = ("separate", "colocated")
LENGTHS = ("fixed", "lognormal", "pareto", "trace")
KEEPS = ("ratio", "drop_equal")
REWARDS = ("rule", "model", "sandbox")
SYNCS = ("broadcast", "independent")
# Valid inputs finish in seconds or are refused: at ~50 µs of engine time a sample, this bound
# is ~60 steps of 512 x 8 (the report scales GPU-hours to 1,000 steps from the steps run).
MAX_SAMPLES = 250_000  # steps x prompts x group
MAX_GENERATED_TOKENS = 5e8  # steps x samples x max_tokens: what the engine may be asked to decode

PARAMS: tuple[Param, ...] = (
    # -- the loop -----------------------------------------------------------------------
    Param("model", "", "qwen3-8b", "policy (and reference) model: a catalog key or a dense decoder's config.json",
          kind="path", choices=dense_model_keys()),
    Param("steps", "steps", 20, "RL steps simulated (one update each)", 1, 100_000, kind="int"),
    Param("prompts", "prompts", 2, "prompts per step", 1, 65_536, kind="int"),
    Param("group", "samples", 16, "samples per prompt (the group; they share the prompt's prefix)", 1, 4096,
          kind="int"),
    Param("prompt_tokens", "tokens", 1024, "P: prompt tokens", 1, 1_000_000, kind="int", label="P"),
    Param("lengths", "", "fixed", "output lengths: fixed (output_tokens), lognormal (median output_tokens, "
          "sigma), pareto (minimum output_tokens, alpha) or trace (lengths_file)", kind="choice", choices=LENGTHS),
    Param("output_tokens", "tokens", 256, "G: the fixed length, the lognormal's median or the Pareto minimum",
          1, 1_000_000, kind="int", label="G"),
    Param("sigma", "", 1.0, "lognormal: sigma of log length", 0, 5, illustrative=True),
    Param("alpha", "", 1.5, "pareto: tail index (smaller: longer tail)", 0.1, 100, illustrative=True),
    Param("lengths_file", "", None, "trace: a file of output lengths (one whole number per line, or a CSV "
          "with an output_tokens column), drawn with replacement", kind="path"),
    Param("max_tokens", "tokens", 32_768, "max response length: longer samples are truncated here", 1,
          1_000_000, kind="int"),
    Param("seed", "", 0, "seed of the lengths, rewards and kept samples", 0, 2**31 - 1, kind="int"),
    # -- keep rule and reward ------------------------------------------------------------
    Param("keep", "", "ratio", "ratio: keep a share keep_ratio of the samples (例题 3-4's a); drop_equal: drop "
          "groups whose rewards are all equal (zero advantage)", kind="choice", choices=KEEPS),
    Param("keep_ratio", "", 0.5, "a: share of generated samples kept (keep=ratio)", 0, 1, min_exclusive=True,
          label="a"),
    Param("reward_p", "", 0.5, "keep=drop_equal: chance a sample is right (reward 1, else 0)", 0, 1,
          illustrative=True),
    Param("reward", "", "rule", "rule (negligible), model (a reward model's forward on the trainer cards) or "
          "sandbox (a time per sample on CPU workers)", kind="choice", choices=REWARDS),
    Param("reward_model", "", None, "reward=model: its shape (a catalog key or config.json; default: the policy's)",
          kind="path", choices=dense_model_keys()),
    Param("sandbox_s", "s", 2.0, "reward=sandbox: median time per sample", 0, 3600, illustrative=True),
    Param("sandbox_sigma", "", 0.5, "reward=sandbox: lognormal sigma of the time", 0, 5, illustrative=True),
    Param("sandbox_workers", "workers", 256, "reward=sandbox: sandboxes running at once", 1, 1_000_000, kind="int",
          illustrative=True),
    Param("reference", "", True, "the reference model's forward (KL) over every generated sample", kind="bool"),
    # -- placement and cards -----------------------------------------------------------
    Param("placement", "", "separate", "separate: rollout replicas and trainer cards are different pools; "
          "colocated: the same cards switch between rollout and training", kind="choice", choices=PLACEMENTS),
    Param("hardware", "", BOOK_HARDWARE, "the card of both pools (catalog key or card TOML)", kind="path",
          choices=hardware_keys()),
    Param("rollout_replicas", "replicas", 4, "separate: rollout engines (each rollout_tp cards)", 1, 256, kind="int"),
    Param("rollout_tp", "cards", 1, "tensor parallel size of one rollout engine", 1, 16, kind="int"),
    Param("trainer_cards", "cards", 8, "separate: the trainer's cards (colocated: cards)", 1, 65_536, kind="int"),
    Param("cards", "cards", 8, "colocated: the cards that do everything (rollout engines of rollout_tp cards)",
          1, 4096, kind="int"),
    Param("switch_s", "s", 10.0, "colocated: one switch between rollout and training (offload, reload, reshard)",
          0, 3600, illustrative=True),
    Param("mfu", "", 0.4, "MFU of the reference, reward model and update on the trainer cards", 0, 1,
          min_exclusive=True, illustrative=True),
    Param("zero", "", 3, "ZeRO stage of the trainer's state (memory only): 0 none, 1 optimizer, 2 + grads, "
          "3 + weights", 0, 3, kind="int"),
    # -- weight sync ---------------------------------------------------------------------
    Param("sync", "", "broadcast", "broadcast: one transfer reaches every replica; independent: one send per "
          "replica (练习 3-7's total)", kind="choice", choices=SYNCS),
    Param("link_bytes_per_s", "B/s", 50e9, "trainer -> rollout link for the BF16 weights", 1, 1e15,
          illustrative=True),
    Param("sync_latency_s", "s", 0.0, "fixed cost of one sync (handshake, reload)", 0, 3600, illustrative=True),
    # -- mode ----------------------------------------------------------------------------
    Param("mode", "", "synchronous", "synchronous; one_step (rollout of step k+1 overlaps the update of step k); "
          "async (a staleness bound eta); partial (stop at partial_tokens per sample, resume next step)",
          kind="choice", choices=MODES),
    Param("staleness", "versions", 1, "async: eta, the most policy versions a consumed sample may lag", 0, 64,
          kind="int", label="η"),
    Param("partial_tokens", "tokens", 2048, "partial: tokens a sample may generate in one step", 1, 1_000_000,
          kind="int"),
    Param("price_per_card_hour", "USD/h", None, "price of one card-hour (default: the card's list price)", 0, 1e6),
)
PARAM_BY_NAME = {p.name: p for p in PARAMS}


@dataclass(frozen=True)
class RLParams:
    """Checked inputs of simulate_rl; build from text with from_raw (or replace() and check())."""

    model: str = "qwen3-8b"
    steps: int = 20
    prompts: int = 2
    group: int = 16
    prompt_tokens: int = 1024
    lengths: str = "fixed"
    output_tokens: int = 256
    sigma: float = 1.0
    alpha: float = 1.5
    lengths_file: str | None = None
    max_tokens: int = 32_768
    seed: int = 0
    keep: str = "ratio"
    keep_ratio: float = 0.5
    reward_p: float = 0.5
    reward: str = "rule"
    reward_model: str | None = None
    sandbox_s: float = 2.0
    sandbox_sigma: float = 0.5
    sandbox_workers: int = 256
    reference: bool = True
    placement: str = "separate"
    hardware: str = BOOK_HARDWARE
    rollout_replicas: int = 4
    rollout_tp: int = 1
    trainer_cards: int = 8
    cards: int = 8
    switch_s: float = 10.0
    mfu: float = 0.4
    zero: int = 3
    sync: str = "broadcast"
    link_bytes_per_s: float = 50e9
    sync_latency_s: float = 0.0
    mode: str = "synchronous"
    staleness: int = 1
    partial_tokens: int = 2048
    price_per_card_hour: float | None = None

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any]) -> RLParams:
        """Text values (the CLI's key=value) -> checked params; ParamError names the field."""
        values: dict[str, Any] = {}
        for key, text in raw.items():
            p = PARAM_BY_NAME.get(key)
            if p is None:
                raise unknown_key(key, PARAM_BY_NAME, f"unknown parameter of lab simulate rl; valid: "
                                  f"{', '.join(PARAM_BY_NAME)}")  # did you mean, as every command
            values[key] = p.parse(text)
        params = cls(**values)
        params.check()
        return params

    def with_(self, **changes: Any) -> RLParams:
        params = replace(self, **changes)
        params.check()
        return params

    @property
    def samples_per_step(self) -> int:
        return self.prompts * self.group

    @property
    def replicas(self) -> int:
        """Rollout engines: separate pools' rollout_replicas, or the colocated cards in engines of rollout_tp."""
        return self.rollout_replicas if self.placement == "separate" else self.cards // self.rollout_tp

    @property
    def train_cards(self) -> int:
        return self.trainer_cards if self.placement == "separate" else self.cards

    @property
    def total_cards(self) -> int:
        return self.rollout_replicas * self.rollout_tp + self.trainer_cards if self.placement == "separate" \
            else self.cards

    def check(self) -> None:
        """Each value in its range and the cross-field rules (the work bound too); raises ParamError."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                PARAM_BY_NAME[f.name].parse(value)
        if self.lengths == "trace" and self.lengths_file is None:
            raise ParamError("lengths_file", "lengths=trace needs the file; valid: lengths_file=FILE")
        if self.lengths_file is not None and self.lengths != "trace":
            raise ParamError("lengths_file", f"applies to lengths=trace; valid: leave it out with lengths={self.lengths}")
        if self.reward_model is not None and self.reward != "model":
            raise ParamError("reward_model", f"applies to reward=model; valid: leave it out with reward={self.reward}")
        if self.placement == "colocated":
            if self.mode in ("one_step", "async"):
                raise ParamError("mode", f"got {self.mode} with placement=colocated: the same cards cannot generate "
                                 "and train at once; valid: synchronous or partial (or placement=separate)")
            if self.cards % self.rollout_tp:
                raise ParamError("rollout_tp", f"{self.rollout_tp} does not divide cards={self.cards}; valid: a "
                                 "divisor of cards")
        samples = self.steps * self.samples_per_step
        if samples > MAX_SAMPLES:
            raise ParamError("steps", f"{self.steps:,} steps x {self.samples_per_step:,} samples = {samples:,}; "
                             f"valid: steps x prompts x group <= {MAX_SAMPLES:,} (steps <= "
                             f"{max(1, MAX_SAMPLES // self.samples_per_step):,} here)")
        longest = min(self.max_tokens, self.partial_tokens if self.mode == "partial" else self.max_tokens)
        if self.lengths == "fixed":
            longest = min(longest, self.output_tokens)
        if samples * float(longest) > MAX_GENERATED_TOKENS:
            raise ParamError("max_tokens", f"{samples:,} samples of up to {longest:,} tokens; valid: steps x "
                             f"samples x max_tokens <= {MAX_GENERATED_TOKENS:,.0f} (the engine's work bound)")
