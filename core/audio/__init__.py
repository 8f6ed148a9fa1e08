"""§3.3.2-3.3.3, the Audio panel: the frame-inside-a-frame loop of speech generation
(frames); a streamed reply's network delays and adaptive buffer target (jitter), its chunk
timeline through the jitter buffer (timeline), an interrupt's moments (interrupt) and the
calculators on them (timing); the panel's presets (presets), its state model (state) and
what it draws (figures). The real-time
engine that plays a stream is the top-level audio/ package."""
