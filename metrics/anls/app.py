"""Gradio demo of the `anls` metric: the library's text-pair page (`multimodal_metrics.demo.text_pair_app`).

Run `python app.py` in this folder (or in the Space); the playground Space reuses `build_ui()`.
"""

from multimodal_metrics.demo import text_pair_app

intro = "**ANLS** for DocVQA-style answers."
DEMO, compute, build_ui, demo = text_pair_app("anls", __file__, intro)

if __name__ == "__main__":
    demo.launch()
