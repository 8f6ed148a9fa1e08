"""Real-time audio streaming engine: sources, pipeline model, jitter buffer, sinks, event log. No Qt."""
