"""The kit every panel uses: the generated parameter forms (param_form, calculator_card,
binding), plot cards with export (plot_card, export, export_menu, vector_render), the
timeline player, the page layout (page, reflow), the theme and its semantic palette, the
zoom (zoom_factor, zoom, plot_zoom), the language (i18n, i18n_tree), toasts, the one job
runner for long work (jobs, helper_process) and panel discovery (panels)."""
