"""Each metric's sources as evaluate's ``MetricInfo`` shows them: citation, home page, further references.

Declared once, as data: :data:`BIBTEX` holds every cited work once, by its BibTeX key (a work that several
metrics cite, such as the Fusion Brain evaluation code, is one entry); :data:`SOURCES` gives per metric the
keys of the works it cites, in order, its home page (the official scorer or the challenge) and its further
references. ``LibraryMetric._info`` builds the ``MetricInfo`` of a thin script from the row of its
``library``, so the scripts under ``metrics/`` keep only their class and docs. The cards
(``metrics/<metric>/README.md``) cite a selection of the same works under the same keys.
"""

from typing import NamedTuple

BIBTEX = {
    "biten2019scene": r"""@inproceedings{biten2019scene,
  title={Scene Text Visual Question Answering},
  author={Biten, Ali Furkan and Tito, Ruben and Mafla, Andres and Gomez, Lluis and Rusinol, Mar{\c{c}}al
          and Valveny, Ernest and Jawahar, C. V. and Karatzas, Dimosthenis},
  booktitle={ICCV},
  year={2019}
}""",
    "mathew2021docvqa": r"""@inproceedings{mathew2021docvqa,
  title={DocVQA: A Dataset for VQA on Document Images},
  author={Mathew, Minesh and Karatzas, Dimosthenis and Jawahar, C. V.},
  booktitle={WACV},
  year={2021}
}""",
    "ren2020codebleu": r"""@article{ren2020codebleu,
  title={CodeBLEU: a Method for Automatic Evaluation of Code Synthesis},
  author={Ren, Shuo and Guo, Daya and Lu, Shuai and Zhou, Long and Liu, Shujie and Tang, Duyu and Sundaresan, Neel
          and Zhou, Ming and Blanco, Ambrosio and Ma, Shuai},
  journal={arXiv preprint arXiv:2009.10297},
  year={2020}
}""",
    "lu2021codexglue": r"""@article{lu2021codexglue,
  title={CodeXGLUE: A Machine Learning Benchmark Dataset for Code Understanding and Generation},
  author={Lu, Shuai and Guo, Daya and Ren, Shuo and others},
  journal={arXiv preprint arXiv:2102.04664},
  year={2021}
}""",
    "fusion_brain_aij2021": r"""@misc{fusion_brain_aij2021,
  title={Fusion Brain Challenge (AI Journey 2021): evaluation code},
  author={{Sber AI}},
  year={2021},
  howpublished={\url{https://github.com/ai-forever/fusion_brain_aij2021}}
}""",
    "fbc2_aij2022": r"""@misc{fbc2_aij2022,
  title={FusionBrain Challenge 2.0 (AI Journey 2022): evaluation code},
  author={{Sber AI}},
  year={2022},
  howpublished={\url{https://github.com/ai-forever/fbc2_aij2022}}
}""",
    "heusel2017gans": r"""@inproceedings{heusel2017gans,
  title={GANs Trained by a Two Time-Scale Update Rule Converge to a Local Nash Equilibrium},
  author={Heusel, Martin and Ramsauer, Hubert and Unterthiner, Thomas and Nessler, Bernhard and Hochreiter, Sepp},
  booktitle={NeurIPS},
  year={2017}
}""",
    "hessel2021clipscore": r"""@inproceedings{hessel2021clipscore,
  title={CLIPScore: A Reference-free Evaluation Metric for Image Captioning},
  author={Hessel, Jack and Holtzman, Ari and Forbes, Maxwell and Le Bras, Ronan and Choi, Yejin},
  booktitle={EMNLP},
  year={2021}
}""",
    "liu2019rects": r"""@inproceedings{liu2019rects,
  title={ICDAR 2019 Robust Reading Challenge on Reading Chinese Text on Signboard},
  author={Liu, Xi and Zhang, Rui and Zhou, Yongsheng and Jiang, Qianyi and Song, Qi and Li, Nan and others},
  booktitle={ICDAR},
  year={2019}
}""",
    "lavie2007meteor": r"""@inproceedings{lavie2007meteor,
  title={METEOR: An Automatic Metric for MT Evaluation with High Levels of Correlation with Human Judgments},
  author={Lavie, Alon and Agarwal, Abhaya},
  booktitle={Proceedings of the Second Workshop on Statistical Machine Translation},
  pages={228--231},
  year={2007}
}""",
    "loukachevitch2016ruwordnet": r"""@inproceedings{loukachevitch2016ruwordnet,
  title={Creating a General Russian Sentiment Lexicon},
  author={Loukachevitch, Natalia and Lashevich, German and Gerasimova, Anastasia and Ivanov, Vladimir and
          Dobrov, Boris},
  booktitle={RuWordNet: Proceedings of the 8th Global WordNet Conference},
  year={2016}
}""",
    "rajpurkar2016squad": r"""@inproceedings{rajpurkar2016squad,
  title={SQuAD: 100,000+ Questions for Machine Comprehension of Text},
  author={Rajpurkar, Pranav and Zhang, Jian and Lopyrev, Konstantin and Liang, Percy},
  booktitle={EMNLP},
  year={2016}
}""",
    "goyal2017making": r"""@inproceedings{goyal2017making,
  title={Making the {V} in {VQA} Matter: Elevating the Role of Image Understanding in Visual Question Answering},
  author={Goyal, Yash and Khot, Tejas and Summers-Stay, Douglas and Batra, Dhruv and Parikh, Devi},
  booktitle={CVPR},
  year={2017}
}""",
    "kafle2017analysis": r"""@inproceedings{kafle2017analysis,
  title={An Analysis of Visual Question Answering Algorithms},
  author={Kafle, Kushal and Kanan, Christopher},
  booktitle={ICCV},
  year={2017}
}""",
    "malinowski2014multi": r"""@inproceedings{malinowski2014multi,
  title={A Multi-World Approach to Question Answering about Real-World Scenes based on Uncertain Input},
  author={Malinowski, Mateusz and Fritz, Mario},
  booktitle={NeurIPS},
  year={2014}
}""",
    "papineni2002bleu": r"""@inproceedings{papineni2002bleu,
  title={{BLEU}: a Method for Automatic Evaluation of Machine Translation},
  author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing},
  booktitle={ACL},
  year={2002}
}""",
}


class Sources(NamedTuple):
    """One metric's row of :data:`SOURCES`."""

    cites: tuple[str, ...]  # keys of BIBTEX, in the order of the citation
    homepage: str
    reference_urls: tuple[str, ...]

    @property
    def citation(self) -> str:
        """The BibTeX entries of ``cites``, one after the other (``MetricInfo.citation``)."""
        return "".join(BIBTEX[key] + "\n" for key in self.cites)


FB2021 = "https://github.com/ai-forever/fusion_brain_aij2021"
FB2022 = "https://github.com/ai-forever/fbc2_aij2022"

SOURCES = {
    "anls": Sources(
        ("biten2019scene", "mathew2021docvqa"),
        "https://rrc.cvc.uab.es/?ch=17",
        ("https://arxiv.org/abs/1905.13648", "https://arxiv.org/abs/2007.00398"),
    ),
    "codebleu": Sources(
        ("ren2020codebleu", "lu2021codexglue"),
        "https://github.com/microsoft/CodeXGLUE/tree/main/Code-Code/code-to-code-trans/evaluator/CodeBLEU",
        ("https://arxiv.org/abs/2009.10297", "https://github.com/k4black/codebleu"),
    ),
    "det_f1": Sources(("fusion_brain_aij2021",), FB2021, (f"{FB2021}/tree/main/evaluation/zsOD_F1",)),
    "fid_clip": Sources(
        ("heusel2017gans", "hessel2021clipscore", "fbc2_aij2022"),
        FB2022,
        (
            "https://github.com/mseitzer/pytorch-fid",
            "https://github.com/ai-forever/ru-clip",
            "https://arxiv.org/abs/2104.08718",
        ),
    ),
    "ned": Sources(
        ("fbc2_aij2022", "fusion_brain_aij2021", "liu2019rects"),
        FB2022,
        (
            FB2021,
            "https://rrc.cvc.uab.es/?ch=12",
            "https://github.com/clovaai/deep-text-recognition-benchmark",
        ),
    ),
    "ru_meteor": Sources(
        ("lavie2007meteor", "fbc2_aij2022", "loukachevitch2016ruwordnet"),
        FB2022,
        (
            "https://www.cs.cmu.edu/~alavie/METEOR/pdf/Lavie-Agarwal-2007-METEOR.pdf",
            "https://www.nltk.org/api/nltk.translate.meteor_score.html",
            "https://ruwordnet.ru/en",
        ),
    ),
    "text_qa": Sources(
        ("fbc2_aij2022", "rajpurkar2016squad"),
        FB2022,
        ("https://github.com/no-plagiarism/pymorphy3", "https://arxiv.org/abs/1606.05250"),
    ),
    "vqa_acc": Sources(
        ("goyal2017making", "kafle2017analysis", "malinowski2014multi", "papineni2002bleu"),
        "https://visualqa.org/evaluation.html",
        (
            "https://github.com/GT-Vision-Lab/VQA",
            FB2021,
            "https://kushalkafle.com/projects/tdiuc.html",
            "https://arxiv.org/abs/1410.0210",
            "https://flageval.baai.ac.cn/docs/en/multimodal/Visual-Question-Answering/metrics.html",
        ),
    ),
}
