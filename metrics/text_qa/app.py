"""Gradio demo of the `text_qa` metric: the library's text-pair page (`multimodal_metrics.demo.text_pair_app`).

Run `python app.py` in this folder (or in the Space); the playground Space reuses `build_ui()`.
"""

from multimodal_metrics.demo import text_pair_app

intro = "**Text QA** (AIJ 2022 TextQA token F1 / MathQA exact match, Russian lemmatisation)."
DEMO, compute, build_ui, demo = text_pair_app("text_qa", __file__, intro)

if __name__ == "__main__":
    demo.launch()
