"""The Calibrate section on the Serving panel: the keys it calibrates for (the pickers'
model and card, the deployment's keys) and what using a profile sets (the pickers' card
and model, the deployment's coefficients), kept out of the panel's own module."""
from __future__ import annotations

import os

from core import catalog
from widgets.serving.calibrate import CalibrateSection
from widgets.serving.deployment import raw_keys
from widgets.serving.trace_source import in_language


def calibration_keys(panel) -> dict[str, str]:
    """model=, hardware= and the deployment keys off their defaults; the client's limit
    is the run's own and the coefficients start from the defaults (a fit is from them)."""
    choice = panel.state.card("model_choice").inputs
    raw = {"model": str(choice["model"]), "hardware": str(choice["hardware"])}
    deployment = raw_keys(panel.deployment_section.card.inputs, {})
    deployment.pop("max_concurrency", None)
    return {**raw, **deployment}


def profile_hardware(profile) -> str:
    """What the hardware picker takes for a profile: its card's catalog key or file, else
    the profile's own file (hardware=P.toml reads the card from it)."""
    hw = str(profile.hardware)
    if hw in catalog.hardware_keys() or os.path.isfile(hw):
        return hw
    return str(profile.path or hw)


def apply_profile(panel, profile) -> str | None:
    """The profile's model and card in the pickers and its coefficients in the
    deployment: both replays run again; the message why not, if refused."""
    state = panel.state
    state.set_model_choice({"model": str(profile.model), "hardware": profile_hardware(profile)})
    errors = state.card("model_choice").errors
    if errors:
        return "; ".join(f"{k}: {v}" for k, v in errors.items())
    section = panel.deployment_section
    if not section.set_coefficients(dict(profile.coefficients)):
        return section.message.text() or "the coefficients were refused"
    return None


def attach(panel, key: str) -> CalibrateSection:
    section = in_language(CalibrateSection(key, lambda: calibration_keys(panel),
                                           lambda profile: apply_profile(panel, profile)))
    offer_trace(panel, section)
    return section


def offer_trace(panel, section: CalibrateSection) -> None:
    """The replays' trace as the run to calibrate on, when it is a measured result."""
    state = panel.state
    meta = getattr(state.trace_workload, "meta", None) or {}
    measured = state.trace_loaded is not None and bool(meta.get("measured"))
    section.offer_trace(state.trace_loaded.path if measured else None)
