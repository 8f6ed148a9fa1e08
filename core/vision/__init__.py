"""§3.3.1-3.3.2, the Vision & multimodal panel: pixels -> patches -> visual tokens -> the
three data volumes (layout; the calculators on it in calculator, a request's image lists in
images, the vision tower's FLOPs in encoder, the image-file pixel limit in pixel_limit),
image generation's repeated latent updates (image_gen),
the panel's state model (state) and what it draws (figures). Loading and resizing real
images is the top-level vision/ package."""
