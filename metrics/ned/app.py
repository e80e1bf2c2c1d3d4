"""Gradio demo of the `ned` metric: the library's text-pair page (`multimodal_metrics.demo.text_pair_app`).

Run `python app.py` in this folder (or in the Space); the playground Space reuses `build_ui()`.
"""

from multimodal_metrics.demo import text_pair_app

intro = "**1 - NED**, string accuracy and CER for text recognition (an empty line is an empty string)."
DEMO, compute, build_ui, demo = text_pair_app("ned", __file__, intro)

if __name__ == "__main__":
    demo.launch()
