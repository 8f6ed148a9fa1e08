"""Images: safe loading, resize policy, patch grid and merge, overlays as numpy arrays. No Qt."""
