"""§3.3.2-3.3.3, the Audio panel: the frame-inside-a-frame loop of speech generation
(frames), the timing of a streamed reply through the jitter buffer (timing), the panel's
presets (presets), its state model (state) and what it draws (figures). The real-time
engine that plays a stream is the top-level audio/ package."""
