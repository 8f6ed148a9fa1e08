"""A calibration profile (card, engine, fitted coefficients, samples, runs): the file format
lives in core/serving/profile.py, where `lab simulate serving`'s keys read it
(hardware=P.toml, profile=P.toml); re-exported here for the calibration's callers."""
from __future__ import annotations

from core.serving.profile import (
                                  COEF_KEYS,
                                  FORMAT,
                                  VERSION,
                                  Profile,
                                  card_table,
                                  choose_with_profile,
                                  is_profile,
                                  load_profile,
                                  read_cached,
                                  save_profile,
)

__all__ = ["COEF_KEYS", "FORMAT", "VERSION", "Profile", "card_table", "choose_with_profile", "is_profile",
           "load_profile", "read_cached", "save_profile"]
