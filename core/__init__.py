"""Load Lab's pure core: units, catalogs, calculators and simulators. No Qt, no Pillow,
no sounddevice; deterministic."""
