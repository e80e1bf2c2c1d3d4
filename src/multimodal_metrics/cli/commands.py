"""The metric commands of `mm-score` (anls, vqa-acc, codebleu, ned, det-f1, text-qa, ru-meteor): the file
formats each reads (``FORMATS``: the reader, the --help text, the preset that reproduces the official
scoring), the registry (``@command``), each command's parser and ``run_metric``: read the files, cut
--shard's block, score (or compare, or save the state), write and print.

Adding a metric command is one function: register it with ``@command(...)`` (see ``ned`` below); the
function adds the command's flags beyond the metric's option table (usually none). A new file format is one
reader in formats.py plus a ``Format`` entry in FORMATS."""

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from . import formats as mm_formats
from . import state_commands as mm_state
from .arguments import (
    COMMON_EPILOG,
    add_option_arguments,
    add_output_arguments,
    add_preset_argument,
    add_resampling_arguments,
    presets_help,
)
from .formats import Loaded
from .output import print_result, write_per_example
from .scoring import PROGRESS_MIN, compare, score


# ----------------------------------------------------------------------------------------------
# Formats: which files a format reads and how (readers live in mm_formats)
# ----------------------------------------------------------------------------------------------
@dataclass
class Format:
    name: str
    read: Callable  # (args) -> Loaded
    doc: str  # shown in --help: the files, with a minimal example each
    preset: str = "default"  # the preset that reproduces the official scoring of these files
    extra_files: tuple = ()  # (flag, help) of files besides --gt / --pred
    suffix: str = ".json"  # without --format, the format whose suffix the --pred file has is read
    many_gt: bool = False  # --gt takes several files (one reference per file and example)


FORMATS = {
    "docvqa": Format(
        "docvqa",
        lambda a: mm_formats.docvqa(a.gt, a.pred),
        """docvqa (DocVQA / InfographicVQA, RRC scoring script; also ST-VQA files in this layout):
  --gt    {"dataset_name": "docvqa", "data": [{"questionId": 1, "question": "...", "answers": ["5", "five"]}]}
  --pred  [{"questionId": 1, "answer": "5"}]
  One answer (a single string) per ground-truth questionId, any order, no extra ids.""",
    ),
    "vqa_v2": Format(
        "vqa_v2",
        lambda a: mm_formats.vqa_v2(a.gt, a.pred, a.questions),
        """vqa_v2 (VQA v2 / VQA-CP / TDIUC, GT-Vision-Lab API layout):
  --gt / --annotations  {"annotations": [{"question_id": 1, "question_type": "how many", "answer_type": "number",
                          "answers": [{"answer": "2", "answer_id": 1}, ... 10 answers]}]}
  --pred / --results    [{"question_id": 1, "answer": "2"}]
  --questions (optional) {"questions": [{"question_id": 1, "image_id": 9, "question": "How many?"}]}
  The results cover exactly the annotated questions (as the official loadRes asserts).
  Preset tdiuc scores answers[0] of each annotation against its question_type (Kafle's script).""",
        "vqa_v2",
        (("--questions", "VQA questions JSON: every annotated question_id must be in it"),),
    ),
    "fb2021_vqa": Format(
        "fusion_brain_2021",
        lambda a: mm_formats.fb2021_vqa(a.gt, a.pred),
        """fusion_brain_2021 (AIJ 2021 Fusion Brain VQA, true_VQA.json / prediction_VQA.json):
  --gt    {"0": {"answer": "yes", "question_id": 0, "lang": "en"}, "1": {"answer": ["кошка", "кот"], "lang": "ru"}}
  --pred  {"0": "yes", "1": "кошка"}
  Same ids in both files (the official script asserts it).""",
        "fusion_brain_2021",
    ),
    "fb2021_code": Format(
        "fusion_brain_2021",
        lambda a: mm_formats.fb2021_code(a.gt, a.pred),
        """fusion_brain_2021 (AIJ 2021 Fusion Brain C2C, true_C2C.json / prediction_C2C.json):
  --gt    {"0": "def f ( x ) : NEW_LINE INDENT return x NEW_LINE DEDENT"}
  --pred  {"0": "def f ( x ) : NEW_LINE INDENT return x + 1 NEW_LINE DEDENT"}
  Every ground-truth id needs a prediction; extra prediction ids are ignored (as the official script).""",
        "fusion_brain_2021",
    ),
    "codexglue": Format(
        "codexglue",
        lambda a: mm_formats.codexglue(a.gt, a.pred),
        """codexglue (CodeXGLUE evaluator/CodeBLEU/calc_code_bleu.py: --refs / --hyp text files; read without
--format when --pred ends in .txt):
  --gt / --refs  ref.txt [ref2.txt ...]   one reference per line; several files: several references per example
  --pred / --hyp hyp.txt                  one prediction per line, the same number of lines as every --gt file
  Each line is stripped of surrounding whitespace (as calc_code_bleu.py); give --lang (CodeXGLUE's --lang)
  and, for CodeXGLUE's --params, --weights.""",
        suffix=".txt",
        many_gt=True,
    ),
    "fb2021_htr": Format(
        "fusion_brain_2021",
        lambda a: mm_formats.fb2021_htr(a.gt, a.pred),
        """fusion_brain_2021 (AIJ 2021 Fusion Brain HTR, true_HTR.json / prediction_HTR.json):
  --gt    {"0.png": "Become", "1.png": "a"}
  --pred  {"0.png": "Become", "1.png": "o"}
  The contest score is string_accuracy (exact match). As in the official script, a missing
  prediction counts as "" (with a warning) and extra ids are ignored.""",
    ),
    "fb2021_zsod": Format(
        "fusion_brain_2021",
        lambda a: mm_formats.fb2021_zsod(a.gt, a.pred),
        """fusion_brain_2021 (AIJ 2021 Fusion Brain zsOD, true_zsOD.json / prediction_zsOD.json):
  --gt    {"1.jpg": {"cat": [[10, 20, 50, 40]], "dog": []}}
  --pred  {"1.jpg": {"cat": [[12, 18, 50, 40]], "dog": [], "car": [[0, 0, 5, 5]]}}
  Boxes are [x, y, w, h]; same images in both files; every requested (ground-truth) class needs an
  entry in the predictions ([] or [[]] for no box); other predicted classes are ignored.""",
    ),
    "fb2022_text": Format(
        "fusion_brain_2022",
        lambda a: mm_formats.fb2022_text(a.gt, a.pred),
        """fusion_brain_2022 (AIJ 2022 FusionBrain 2.0 common format, e.g. split/textqa/textqa_gt.json,
textqa_pred.json, also mathqa_*.json and text_recognition_*.json):
  --gt    {"0": [{"type": "text", "content": ["a", "на 0,3 секунды"]}]}
  --pred  {"0": [{"type": "text", "content": "a"}, {"type": "image", "content": "images/0.jpg"}]}
  The answer is the first element of type "text" ("" if none); the ground truth lists every
  accepted answer. Same ids in both files (the official drivers assert it).""",
    ),
    "fb2022_captioning": Format(
        "fusion_brain_2022_captioning",
        lambda a: mm_formats.fb2022_text(a.gt, a.pred),
        """fusion_brain_2022_captioning (AIJ 2022 captioning, split/captioning/captioning_gt.json, captioning_pred.json):
  --gt    {"0": [{"type": "text", "content": ["Две птицы летают над водой.", "птицы над озером"]}]}
  --pred  {"0": [{"type": "text", "content": "две птицы летали над водою"}]}
  The caption is the first element of type "text" ("" if none: 0); the ground truth lists every
  reference caption. Scores the METEOR half of the sub-task (the other half is ruCLIP).""",
        "captioning",
    ),
    "fb2022_vqa": Format(
        "fusion_brain_2022_vqa",
        lambda a: mm_formats.fb2022_text(a.gt, a.pred),
        """fusion_brain_2022_vqa (AIJ 2022 VisualQA, split/vqa/vqa_gt.json, vqa_pred.json):
  --gt    {"0": [{"type": "text", "content": ["желтого", "ярко-желтого"]}]}
  --pred  {"0": [{"type": "text", "content": "Желтый"}]}
  The answer is the first element of type "text" ("" if none); the ground truth lists every
  accepted answer.""",
        "vqa",
    ),
}


# ----------------------------------------------------------------------------------------------
# Metric commands
# ----------------------------------------------------------------------------------------------
@dataclass
class Command:
    name: str  # kebab-case command name
    metric: str  # the library module, multimodal_metrics.<metric>
    summary: str
    formats: dict  # --format value -> Format (the first is the default)
    add_options: Callable  # (group) -> None: the command's flags beyond the metric's option table
    prepare: Callable | None = None  # (Loaded, preset) -> Loaded, e.g. TDIUC's first answer
    presets: dict = field(default_factory=dict)  # --help: a note on some of the metric's PRESETS (by name)
    notes: str = ""
    # options given as a file on the command line: option name -> (help, reader(path) -> option value)
    files: dict = field(default_factory=dict)


COMMANDS: dict = {}


def command(name, metric, summary, formats, presets, notes="", prepare=None, files=None):
    """Register a metric command; the decorated function adds its flags beyond the option table. ``presets``:
    notes on some presets for --help (the list itself is the metric's PRESETS)."""

    def register(add_options):
        COMMANDS[name] = Command(name, metric, summary, {f.name: f for f in formats}, add_options, prepare, presets,
                                 notes, dict(files or {}))  # fmt: skip
        return add_options

    return register


@command(
    "anls",
    "anls",
    "ANLS of DocVQA / InfographicVQA answers",
    [FORMATS["docvqa"]],
    {"default": "official RRC script"},
)
def anls(group):
    """threshold, boundary, text_norm, length_norm: the option table."""


def _vqa_prepare(loaded: Loaded, preset: str) -> Loaded:
    if preset == "tdiuc":  # Kafle's script scores the first annotation answer
        loaded.references = [refs[0] for refs in loaded.references]
    return loaded


@command(
    "vqa-acc",
    "vqa_acc",
    "VQA accuracy (VQA v2 / VQA-CP / TDIUC / WUPS / BLEU-1; Fusion Brain 2021 VQA)",
    [FORMATS["vqa_v2"], FORMATS["fb2021_vqa"]],
    {"vqa_v2": "= default"},
    prepare=_vqa_prepare,
    files={
        "answer_key": (
            "tdiuc: the official script's answer-key CSV (answer,id rows): a ground-truth answer "
            "outside it is always wrong",
            mm_formats.answer_key_csv,
        )
    },
)
def vqa_acc(group):
    """normalize, num_answers, epsilon, threshold, wordnet_path, lowercase: the option table; --answer-key: a CSV."""


@command(
    "codebleu",
    "codebleu",
    "CodeBLEU of code translations (Fusion Brain 2021 C2C; CodeXGLUE text files)",
    [FORMATS["fb2021_code"], FORMATS["codexglue"]],
    {"default": "CodeXGLUE, for codexglue files", "fusion_brain_2021": "for fusion_brain_2021 files"},
)
def codebleu(group):
    """lang, weights, keywords, remove_comments, strip, missing_dataflow, ast_clipping, grammar_library: the table."""


@command(
    "ned",
    "ned",
    "1 - NED, string accuracy and CER of text recognition",
    [FORMATS["fb2022_text"], FORMATS["fb2021_htr"]],
    {"default": "AIJ 2022 calculate_NED"},
    notes="Fusion Brain 2022 TRitW reports one_minus_ned; Fusion Brain 2021 HTR reports string_accuracy.",
)
def ned(group):
    """case_fold, fullwidth_to_halfwidth, both_empty: the option table."""


@command(
    "det-f1",
    "det_f1",
    "zero-shot detection F1 (Fusion Brain 2021 zsOD)",
    [FORMATS["fb2021_zsod"]],
    {"default": "= fusion_brain_2021"},
)
def det_f1(group):
    """matching, iou_threshold, iou_boundary, box_format, missing_class: the option table."""


@command(
    "text-qa",
    "text_qa",
    "token F1 / exact match of Russian QA answers (Fusion Brain 2022 TextQA, MathQA)",
    [FORMATS["fb2022_text"]],
    {"default": "= textqa", "textqa": "TextQA F1", "mathqa": "MathQA exact match"},
)
def text_qa(group):
    """measure, keep_hyphen, letter_fallback: the option table."""


@command(
    "ru-meteor",
    "ru_meteor",
    "METEOR of Russian captions / VQA answers (Fusion Brain 2022) and English (NLTK)",
    [FORMATS["fb2022_captioning"], FORMATS["fb2022_vqa"]],
    {"captioning": "= default"},
    notes="RuWordNet is not on PyPI: pass --ruwordnet-path (or set RUWORDNET_DB), or --synonyms none.",
)
def ru_meteor(group):
    """preprocess, number_words, tokenizer, stemmer, synonyms, alpha, beta, gamma, ...: the option table."""


# ----------------------------------------------------------------------------------------------
# Running a metric command
# ----------------------------------------------------------------------------------------------
def choose_format(cmd: Command, args) -> Format:
    """``--format``, else the format whose suffix the --pred file has (``.txt``: codexglue), else the
    command's first; a format that reads one --gt file refuses several."""
    if args.format is not None:
        fmt = cmd.formats[args.format]
    else:
        first = next(iter(cmd.formats.values()))
        fmt = next(
            (f for f in cmd.formats.values() if f.suffix != ".json" and str(args.pred).endswith(f.suffix)),
            first,
        )
    if isinstance(args.gt, list) and not fmt.many_gt:
        if len(args.gt) != 1:
            raise ValueError(f"--gt: format {fmt.name} reads one ground-truth file, got {len(args.gt)}")
        args.gt = args.gt[0]
    args.format = fmt.name
    return fmt


def run_metric(cmd: Command, args) -> int:
    fmt = choose_format(cmd, args)
    loaded = fmt.read(args)
    for warning in loaded.warnings:
        print(f"mm-score {cmd.name}: warning: {warning}", file=sys.stderr)
    preset = args.preset or fmt.preset
    if cmd.prepare:
        loaded = cmd.prepare(loaded, preset)
    loaded = mm_state.select(args, loaded)  # --shard I/N: one block of the records
    options = {dest: getattr(args, dest) for dest in args.option_dests}
    for name, (_, read) in cmd.files.items():  # options given as files: read here (errors name the file)
        if options.get(name) is not None:
            options[name] = read(options[name])
    if args.p_value is not None and not args.compare_pred:
        raise ValueError("--p-value is the rule of the paired test: give --compare-pred too")
    if args.compare_pred:
        result = compare(cmd, args, preset, loaded, options)
    elif args.save_state:  # the result from the state that is saved (equal to score)
        result = mm_state.score_and_save(cmd, args, preset, loaded, options)
    else:
        result = score(cmd.metric, preset, loaded, options, bool(args.per_example), args.progress)
    if args.per_example:
        write_per_example(args.per_example_out, loaded, result)
        result.pop("per_example")
    result["examples"] = len(loaded.ids)
    print_result(result, args.json)
    return 0


def add_parser(sub, cmd: Command) -> None:
    """The parser of metric command ``cmd``: --format, --gt / --pred (and the format's other files), --preset,
    the metric's option table, the resampling and paired-test flags, the outputs, the shard flags."""
    from .. import stats as mm_stats  # the paired tests' declarations (--p-value's choices)

    formats = "\n\n".join(f.doc for f in cmd.formats.values())
    epilog = f"File formats (--format):\n{formats}\n\nPresets (--preset): {presets_help(cmd.metric, cmd.presets)}\n"
    epilog += (cmd.notes + "\n" if cmd.notes else "") + COMMON_EPILOG
    aliases = [cmd.metric] if cmd.metric != cmd.name else []
    p = sub.add_parser(
        cmd.name,
        aliases=aliases,
        help=cmd.summary,
        description=cmd.summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(run=lambda args, cmd=cmd: run_metric(cmd, args))
    names = list(cmd.formats)
    by_suffix = [f"{f.name} for *{f.suffix}" for f in cmd.formats.values() if f.suffix != ".json"]
    p.add_argument("--format", choices=names, help=f"file format (default {names[0]}"
                   + "".join(f"; {x} --pred files" for x in by_suffix) + ")")  # fmt: skip
    gt_alias = (
        ("--annotations",) if "vqa_v2" in cmd.formats else ("--refs",) if "codexglue" in cmd.formats else ()
    )
    pred_alias = (
        ("--results",) if "vqa_v2" in cmd.formats else ("--hyp",) if "codexglue" in cmd.formats else ()
    )
    many = any(f.many_gt for f in cmd.formats.values())
    p.add_argument(
        "--gt",
        *gt_alias,
        required=True,
        metavar="FILE",
        nargs="+" if many else None,
        help="ground-truth file" + (" (codexglue: one or more reference files)" if many else ""),
    )
    p.add_argument("--pred", *pred_alias, required=True, metavar="FILE", help="predictions file")
    for f in cmd.formats.values():
        for flag, help_ in f.extra_files:
            p.add_argument(flag, metavar="FILE", help=help_)
    add_preset_argument(
        p,
        cmd.metric,
        f"metric preset, one of {presets_help(cmd.metric, cmd.presets)} (default: the one that reproduces "
        "the official scoring of --format)",
    )
    before = add_option_arguments(p, cmd.metric, files=cmd.files, own=cmd.add_options)
    add_resampling_arguments(
        p,
        "confidence interval (bootstrap over the examples)",
        "bootstrap resamples (default {default}); with --compare-pred: resamples or trials",
    )
    p.set_defaults(option_dests=[a.dest for a in p._actions if a.dest not in before])
    paired = p.add_argument_group("paired comparison (sacrebleu's paired tests)")
    paired.add_argument(
        "--compare-pred",
        metavar="FILE",
        help="predictions of a second system (same format as --pred): print the difference "
        "--pred minus this, its paired bootstrap interval and the p-value",
    )
    paired.add_argument(
        "--test",
        choices=["approximate_randomization", "paired_bootstrap"],
        default="approximate_randomization",
        help="paired test (default approximate_randomization)",
    )
    paired.add_argument(
        "--p-value",
        choices=mm_stats.P_VALUES,
        metavar="RULE",
        help=f"the p-value's rule, one of {', '.join(mm_stats.P_VALUES)} (default "
        f"{mm_stats.DEFAULT_P_VALUE}: trials as far apart as A and B count, ties included; "
        "sacrebleu: sacrebleu's strict count); recorded in the signature as p:RULE",
    )
    add_output_arguments(
        p,
        "write per-example scores as JSON lines",
        f"progress bar on stderr (default: on a terminal, from {PROGRESS_MIN} examples on)",
    )
    mm_state.add_arguments(p)
