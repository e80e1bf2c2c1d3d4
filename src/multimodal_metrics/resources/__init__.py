"""Resources the metrics read offline: English WordNet 3.0 (``wordnet``), Russian number words and lemmas (``russian``)."""
