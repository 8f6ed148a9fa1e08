"""The Serving panel's replays under a deployment (widgets/serving/deployment.py): which
deployment they run with, whether a side's result is of it, and replay A taking the values
a new one sets (or the choice's back when it is the book's again). A mixin of ServingPanel,
kept out of its module."""
from __future__ import annotations

from core.registry import ParamError, get
from core.serving import replay as rp
from core.serving.state import REPLAY_SIDES
from widgets.serving.deployment import NAMES, Deployed

_BOOK_DEPLOYMENT = Deployed()  # before the pickers are built: the book's


class DeployedReplays:
    """Needs self.state (a ServingState), self.deployment_section once built and
    self._on_replay_card_changed(side)."""

    @property
    def deployed(self):
        """The deployment the replays run with (widgets.serving.deployment.Deployed)."""
        section = self.deployment_section if hasattr(self, "deployment_section") else None
        return section.deployed if section is not None else _BOOK_DEPLOYMENT

    def _current(self, side: str) -> bool:
        """The side's result is of its current inputs, source and deployment."""
        card = self.state.replay(side)
        return self.state.replay_current(side) and (
            bool(card.errors) or (card.result or {}).get("deployment_key", ()) == self.deployed.key)

    def _on_deployed(self, deployed) -> None:
        """A new deployment: replay A takes the values it sets (B follows), or gets the
        choice's back when the deployment is the book's again; both replays run again."""
        values = dict(deployed.values)
        previous = getattr(self, "_deployed_values", {})
        if not values and previous:
            choice = dict((self.state.card("model_choice").result or {}).get("replay_values") or {})
            defaults = get("serving.replay").defaults()
            values = {k: choice.get(k, defaults[k]) for k in previous}
        self._deployed_values = dict(deployed.values)
        if values:
            self.state.replay("A").update(values)
        for side in REPLAY_SIDES:
            self._on_replay_card_changed(side)

    def _checked_client(self, deployed, inputs, workload, cost):
        """The deployment's client for these inputs, tried on their config here: a limit
        the replay cannot take (max_concurrency with replicas > 1) shows next to its field
        and the replay runs without it, rather than failing on the worker."""
        section = getattr(self, "deployment_section", None)
        try:
            client = deployed.client(inputs, workload)
            if client is not None:
                client(rp.config_from(inputs, cost))
        except ParamError as err:
            if section is None or err.param not in NAMES:
                raise
            section.show_replay_refusal(err)
            return None
        if section is not None:
            section.show_replay_refusal(None)
        return client
