"""mm-score: score official benchmark and contest files with the Multimodal Metrics library.

    mm-score anls --gt val_v1.0.json --pred submission.json               # DocVQA / InfographicVQA
    mm-score vqa-acc --annotations A.json --results R.json [--questions Q.json]   # VQA v2 / VQA-CP
    mm-score vqa-acc --format fusion_brain_2021 --gt true_VQA.json --pred prediction_VQA.json
    mm-score codebleu --gt true_C2C.json --pred prediction_C2C.json       # Fusion Brain 2021 C2C
    mm-score ned --format fusion_brain_2021 --gt true_HTR.json --pred prediction_HTR.json
    mm-score det-f1 --gt true_zsOD.json --pred prediction_zsOD.json
    mm-score text-qa --preset mathqa --gt mathqa_gt.json --pred mathqa_pred.json  # Fusion Brain 2022
    mm-score ru-meteor --gt captioning_gt.json --pred captioning_pred.json --ruwordnet-path ruwordnet.db
    mm-score ru-meteor --format fusion_brain_2022_vqa --gt vqa_gt.json --pred vqa_pred.json --synonyms none
    mm-score fusion-brain-2021 FOLDER        # integral score: sum of the four rounded sub-task scores
    mm-score fusion-brain-2022 FOLDER        # integral score: (1/15) x sum of the open sub-task scores
    mm-score anls --gt G.json --pred A.json --confidence 0.95             # + bootstrap interval(s)
    mm-score anls --gt G.json --pred A.json --compare-pred B.json         # paired test of A against B

(`python -m multimodal_metrics.cli ...` is the same command.) Every metric command takes `--preset`, the
metric's options, `--per-example out.jsonl`, `--json`; `mm-score COMMAND --help` describes the file
formats with minimal examples. A malformed file gives one error line naming the file, the record
and the field, and exit status 2; so do a badly typed flag, an input that is not a regular file (refused
before it is opened), a JSON object that repeats a key, and an output path that cannot be written
(checked before any scoring starts: cli/paths.py).

Scoring is the library's functional API, `multimodal_metrics.<metric>.score(...)` / `.compare(...)`, from
any working directory: no evaluate, no checkout, no Hub. The option flags are the metric's option table
(`OPTIONS.add_arguments`: `--text-norm` for `text_norm`, booleans as `--flag/--no-flag`).

Adding a metric command is one function: register it with `@command(...)` (see `ned` below); the
function adds the command's flags beyond the metric's option table (usually none). A new file format
is one reader in formats.py plus a `Format` entry in FORMATS. The contests' integral scores (which files,
which metric per sub-task, how the scores combine) are in integral.py; how errors are worded (files, records,
flags) in words.py.
"""

import argparse
import importlib
import inspect
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..stats import RESAMPLING  # the resampling options beside every metric's own
from . import formats as mm_formats
from . import integral as mm_integral
from . import paths as mm_paths
from . import state_commands as mm_state
from .formats import FormatError, Loaded
from .integral import INTEGRALS  # noqa: F401 (the integral commands, by name)
from .words import command_flags, in_flags, joined_negative_values, locate, missing_dependency

PROGRESS_MIN = 2000  # a progress report from this many examples on (on a terminal)
CHUNK = 1000  # kept for callers sizing inputs by it (the library scores all examples in one call)


def library(metric: str):
    """``multimodal_metrics.<metric>``: the metric's ``OPTIONS``, ``PRESETS``, ``score`` and ``compare``."""
    return importlib.import_module(f"..{metric}", __package__)


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


def presets_help(metric: str, notes: dict) -> str:
    """The presets of ``metric`` as --help lists them: every name of its ``PRESETS``, in order, with the
    command's note where it has one."""
    return ", ".join(f"{name} ({notes[name]})" if name in notes else name for name in library(metric).PRESETS)


def add_preset_argument(parser, metric: str, help_: str, default=None) -> None:
    """``--preset``: one of the metric's ``PRESETS``."""
    parser.add_argument("--preset", default=default, choices=list(library(metric).PRESETS), metavar="PRESET",
                        help=help_)  # fmt: skip


def add_option_arguments(parser, metric: str, skip=(), files=None, own=None) -> None:
    """The metric's option flags, from its option table (``OPTIONS.add_arguments``, skipping ``skip``; the
    flags naming paths recorded for ``paths.check_paths``), then the options read from files (``files``:
    name -> (help, reader)) and the command's own flags (``own(group)``), then the resampling flags; the
    dests of all of them in ``option_dests``."""
    table = library(metric).OPTIONS
    files = files or {}
    before = {a.dest for a in parser._actions}
    group = parser.add_argument_group("metric options (override the preset; default: the preset's value)")
    table.add_arguments(group, skip=(*skip, *files))
    mm_paths.register(parser, mm_paths.table_roles(table, skip=(*skip, *files)))
    for name, (help_, _) in files.items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, metavar="FILE", help=help_)
    if own is not None:
        own(group)
    return before


def add_resampling_arguments(parser, title: str, n_resamples: str) -> None:
    """``--confidence``, ``--n-resamples``, ``--seed``: the options of ``stats.RESAMPLING`` (flag, type and
    default from the table; ``n_resamples``: this command's help of the number of resamples)."""
    defaults = RESAMPLING.presets[RESAMPLING.default_preset]
    help_ = {
        "confidence": "add the C interval of the scores, e.g. 0.95",
        "n_resamples": n_resamples.format(default=defaults["n_resamples"]),
        "seed": f"seed of the resampling (default {defaults['seed']})",
    }
    metavar = {"confidence": "C", "n_resamples": "N"}
    group = parser.add_argument_group(title)
    for option in RESAMPLING:
        group.add_argument("--" + option.name.replace("_", "-"), dest=option.name, type=option.cli,
                           metavar=metavar.get(option.name), help=help_[option.name])  # fmt: skip


def add_output_arguments(parser, per_example: str, progress: str | None) -> None:
    """``--per-example FILE`` (a path checked before scoring), ``--json`` and ``--progress`` (unless None)."""
    mm_paths.add_argument(parser, "--per-example", "output", metavar="FILE", help=per_example)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    if progress is not None:
        parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help=progress)


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
# Scoring: the library's functional API
# ----------------------------------------------------------------------------------------------
def input_columns(lib, preset: str, columns: dict) -> dict:
    """The per-example columns a format read that the metric's ``score`` takes: its keyword-only inputs
    (``question_types=``, ``texts=``, found from its signature), for vqa_acc only those of the preset."""
    params = inspect.signature(lib.score).parameters.values()
    takes = {p.name for p in params if p.kind is p.KEYWORD_ONLY} - {"return_per_example", *RESAMPLING.names}
    if hasattr(lib, "extra_inputs"):  # vqa_acc: each preset takes its own per-question inputs
        takes &= set(lib.extra_inputs(preset))
    return {name: values for name, values in columns.items() if name in takes}


class Progress:
    """ "<metric>: scoring" and the number of examples on stderr while the library scores them (``show``),
    then the count done and the time taken."""

    def __init__(self, total: int, desc: str, show: bool):
        self.total, self.desc, self.show, self.start = total, desc, show, time.perf_counter()
        if show:
            print(f"{desc}: 0/{total} ex", end="", file=sys.stderr, flush=True)

    def close(self, done: bool = True) -> None:
        if self.show:
            count = self.total if done else 0
            print(
                f"\r{self.desc}: {count}/{self.total} ex [{time.perf_counter() - self.start:.1f}s]",
                file=sys.stderr,
            )
            self.show = False


def score(
    metric_name: str, preset: str, loaded: Loaded, options: dict, per_example: bool, progress=None
) -> dict:
    """The metric's result on loaded inputs: ``multimodal_metrics.<metric_name>.score`` of all examples at
    once (a progress report on stderr meanwhile, see ``Progress``); errors name the file and the record."""
    lib = library(metric_name)
    lib.OPTIONS.check_preset(preset)
    columns = input_columns(lib, preset, loaded.columns)
    n = len(loaded.predictions)
    if n == 0:
        raise FormatError(loaded.gt_path, "holds no examples")
    # progress: None = on a terminal from PROGRESS_MIN examples on; True / False = always / never
    show = progress if progress is not None else (n >= PROGRESS_MIN and sys.stderr.isatty())
    bar = Progress(n, f"{metric_name}: scoring", bool(show))
    try:
        result = lib.score(loaded.predictions, loaded.references, preset, return_per_example=per_example,
                           **columns, **{k: v for k, v in options.items() if v is not None})  # fmt: skip
    except (ValueError, TypeError) as err:
        bar.close(done=False)
        raise ValueError(locate(err, loaded)) from None
    bar.close()
    return dict(result)


def compare(cmd: Command, args, preset: str, loaded: Loaded, options: dict) -> dict:
    """``multimodal_metrics.<metric>.compare`` of --pred (system A) against --compare-pred (system B) on the
    same ground truth."""
    if args.per_example or options.get("confidence") is not None:
        raise ValueError("--compare-pred prints a paired test: leave out --per-example and --confidence")
    loaded_b = cmd.formats[args.format].read(argparse.Namespace(**{**vars(args), "pred": args.compare_pred}))
    if cmd.prepare:
        loaded_b = cmd.prepare(loaded_b, preset)
    if loaded_b.ids != loaded.ids:
        raise FormatError(args.compare_pred, "does not cover the same ground-truth records as --pred")
    lib = library(cmd.metric)
    lib.OPTIONS.check_preset(preset)
    columns = input_columns(lib, preset, loaded.columns)
    kwargs = {k: v for k, v in options.items() if v is not None and k not in RESAMPLING}
    rule = {"p_value": args.p_value} if args.p_value is not None else {}  # else the library's default
    return lib.compare(loaded.predictions, loaded_b.predictions, loaded.references, args.test,
                       n_resamples=options.get("n_resamples"), seed=options.get("seed"), preset=preset,
                       **columns, **rule, **kwargs)  # fmt: skip


def write_per_example(out, loaded: Loaded, result: dict) -> None:
    """One JSON line per example, in ground-truth order: {"id": ..., <primary key>: score} (or the
    example's dict of scores), into ``out`` (the ``paths.Output`` checked before scoring, or a path)."""
    out = out if isinstance(out, mm_paths.Output) else mm_paths.Output(out, "--per-example")
    primary = next(iter(result))
    lines = []
    for key, value in zip(loaded.ids, result["per_example"]):
        row = {"id": key, **value} if isinstance(value, dict) else {"id": key, primary: value}
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    out.write("".join(lines))


def print_result(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:<{width}}  {value:.6f}" if isinstance(value, float) else f"{key:<{width}}  {value}")


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


# ----------------------------------------------------------------------------------------------
# fid_clip: Fusion Brain 2022 image generation (image folders + prompts, not a --gt/--pred pair)
# ----------------------------------------------------------------------------------------------
GENERATION_DOC = """Files (AIJ 2022 FusionBrain 2.0 image generation, split/generation/):
  --gt-images DIR    the real images (FID reference side: every bmp/jpg/jpeg/pgm/png/ppm/tif/tiff/webp file)
  --pred-images DIR  the generated images (FID generated side; same number of files)
  --input FILE       generation_input.json, the prompts:
                     {"0": [{"type": "text", "content": "Сгенерируй изображение."}, {"type": "text", "content": "Кот"}]}
                     (element 1 when the list has 2 elements, else element 0 without its first sentence)
  --pred FILE        generation_pred.json, the generated image of each prompt at element 1, relative to this file:
                     {"0": [{"type": "text", "content": ""}, {"type": "image", "content": "images/0.jpg"}]}
                     (no existing image there: that example's CLIP score is 0, as in the official loop;
                     an absolute path, or one resolving outside this file's folder or into --gt-images, is refused)
score = 0.5 * (CLIP + (200 - min(200, FID)) / 200). Preset fusion_brain_2022 (default here) reproduces the
contest script; it needs the FID Inception weights (--inception-weights, pt_inception-2015-12-05-6726825d.pth)
and the ruCLIP ViT-L/14-336 checkpoint folder (--clip-model), both local.
--confidence C adds fid_ci_*, clip_score_ci_* and score_ci_*, resampling the generated images with their
prompts (FID's reference images held fixed; FID's interval moved by the bootstrap bias estimate; 200
resamples by default, see the fid_clip card). score_ci_* needs every prompt's image to exist and be a
file of --pred-images (one joint resampling); otherwise fid and clip_score get separate intervals."""


def _aligned(loaded: Loaded, pred_images: list) -> bool:
    """Every prompt's generated image exists and the prompts' images are exactly the folder's files."""
    if any(image is None for image in loaded.predictions) or len(loaded.predictions) != len(pred_images):
        return False
    return sorted(os.path.realpath(p) for p in loaded.predictions) == sorted(
        os.path.realpath(p) for p in pred_images
    )


def run_generation(args) -> int:
    """`mm-score fid-clip`; an image PIL refuses as a decompression bomb is one error line naming the file."""
    from PIL import Image

    try:
        return _run_generation(args)
    except Image.DecompressionBombError as err:
        clip_images = mm_formats.fb2022_generation(
            args.input, args.pred, exclude=[args.gt_images]
        ).predictions
        images = [
            *mm_formats.image_folder(args.pred_images),
            *mm_formats.image_folder(args.gt_images),
            *(p for p in clip_images if p is not None),
        ]
        where = mm_paths.find_bomb(images) or f"an image of {args.pred_images} or {args.gt_images}"
        raise ValueError(f"{where}: refused: {err}") from None


def _run_generation(args) -> int:
    loaded = mm_formats.fb2022_generation(args.input, args.pred, exclude=[args.gt_images])
    for warning in loaded.warnings:
        print(f"mm-score fid-clip: warning: {warning}", file=sys.stderr)
    gt_images, pred_images = (
        mm_formats.image_folder(args.gt_images),
        mm_formats.image_folder(args.pred_images, contained=True),
    )
    if len(gt_images) != len(pred_images):
        raise FormatError(
            args.pred_images,
            f"holds {len(pred_images)} images but {args.gt_images} holds "
            f"{len(gt_images)}: one generated image per prompt (official assertion)",
        )
    options = {dest: getattr(args, dest) for dest in args.option_dests}
    resampling = {key: options.pop(key) for key in RESAMPLING.names}
    # the library's bar over the images follows --progress / --no-progress (None: its own default)
    options["progress"] = args.progress
    if options["clip_model"] is None:  # no CLIP model: FID alone (the CLIP and generation scores need one)
        return run_fid_alone(args, gt_images, pred_images, options, resampling)
    if args.shard or args.save_state:  # fid_clip's state of the (image, prompt) pairs and the real images
        if not _aligned(loaded, pred_images):
            raise ValueError(
                f"--shard / --save-state with --clip-model score the (image, prompt) pairs in one state: every "
                f"prompt's image must exist and be a file of {args.pred_images}"
            )
        return run_generation_jointly(args, loaded, gt_images, options, resampling)
    if resampling["confidence"] is not None:
        if _aligned(loaded, pred_images):
            return run_generation_jointly(args, loaded, gt_images, options, resampling)
        print(
            "mm-score fid-clip: warning: no score interval: it needs every prompt's image to exist and be a file "
            f"of {args.pred_images} (one joint resampling); fid and clip_score get separate intervals",
            file=sys.stderr,
        )
    fid = score(
        "fid_clip",
        args.preset,
        Loaded(
            [os.path.basename(p) for p in pred_images],
            pred_images,
            gt_images,
            gt_path=args.gt_images,
            pred_path=args.pred_images,
        ),
        {**options, **resampling, "clip_model": None},
        False,
        args.progress,
    )
    usable = [i for i, image in enumerate(loaded.predictions) if image is not None]
    per_example = [0.0] * len(loaded.ids)
    clip = {"signature": ""}
    if usable:
        pairs = Loaded(
            [loaded.ids[i] for i in usable],
            [loaded.predictions[i] for i in usable],
            [],
            {"texts": [loaded.columns["texts"][i] for i in usable]},
            args.input,
            args.pred,
        )
        clip = score_clip(args.preset, pairs, {**options, "inception_weights": None})
        for i, value in zip(usable, clip["per_example"]):
            per_example[i] = value
    from ..fid_clip import core

    clip_score = sum(per_example) / len(per_example)
    result = {
        "score": core.generation_score(clip_score, fid["fid"]),
        "fid": fid["fid"],
        "clip_score": clip_score,
    }
    if (
        resampling["confidence"] is not None
    ):  # the prompts resampled, a missing image counting 0 (as the score)
        from .. import stats

        checked = stats.Resampling(**resampling)
        if resampling["n_resamples"] is None:  # as many resamples as FID's (the module's default with FID)
            checked.n_resamples = int(re.search(r"\|bs:(\d+)\|", fid["signature"])[1])
        low, high = stats.bootstrap_interval(
            stats.mean_statistic({"clip_score": per_example}),
            checked.confidence,
            checked.n_resamples,
            checked.seed,
        )["clip_score"]
        result.update(
            fid_ci_low=fid["fid_ci_low"],
            fid_ci_high=fid["fid_ci_high"],
            clip_score_ci_low=low,
            clip_score_ci_high=high,
        )
        if clip["signature"]:
            clip["signature"] = _with_fields(clip["signature"], checked.signature_fields())
    result.update(signature_fid=fid["signature"], signature_clip=clip["signature"], examples=len(loaded.ids))
    if args.per_example:
        write_per_example(args.per_example_out, loaded, {"clip_score": 0.0, "per_example": per_example})
    print_result(result, args.json)
    return 0


def run_fid_alone(args, gt_images: list, pred_images: list, options: dict, resampling: dict) -> int:
    """`mm-score fid-clip` without --clip-model: FID of the two folders (and its interval with --confidence);
    a warning says that the CLIP score and the generation score need --clip-model."""
    if args.per_example:
        raise ValueError("--per-example writes the CLIP score of every prompt: it needs --clip-model")
    folders = Loaded(
        [os.path.basename(p) for p in pred_images],
        pred_images,
        gt_images,
        gt_path=args.gt_images,
        pred_path=args.pred_images,
    )
    warning = (
        "mm-score fid-clip: warning: no --clip-model: FID alone (clip_score and score need a CLIP checkpoint "
        "folder, e.g. ruCLIP's for --preset fusion_brain_2022)"
    )
    return score_generation(args, folders, options, resampling, warning)


def run_generation_jointly(args, loaded: Loaded, gt_images: list, options: dict, resampling: dict) -> int:
    """--confidence (or --shard / --save-state) with one existing generated image per prompt: one fid_clip
    computation gives FID, the CLIP score, the score and their intervals from the same resamples of the
    (image, prompt) pairs."""
    pairs = Loaded(
        loaded.ids, loaded.predictions, gt_images, {"texts": loaded.columns["texts"]}, args.input, args.pred
    )
    return score_generation(args, pairs, options, resampling)


def score_generation(args, examples: Loaded, options: dict, resampling: dict, warning: str = "") -> int:
    """One fid_clip computation of ``examples`` (the two folders, or the pairs with the real images), or of
    --shard's block of them through fid_clip's state (--save-state), printed as ``generation_result``
    (``warning`` on stderr once it is computed)."""
    if args.shard or args.save_state:
        values, ids = mm_state.score_generation_shard(args, examples, options, resampling)
    else:
        per_example = bool(args.per_example)
        values = score(
            "fid_clip", args.preset, examples, {**options, **resampling}, per_example, args.progress
        )
        ids = examples.ids
    if warning:
        print(warning, file=sys.stderr)
    if args.per_example:
        rows = {"clip_score": 0.0, "per_example": values["per_example"] if values else []}
        write_per_example(args.per_example_out, Loaded(ids, [], []), rows)
    print_result(
        mm_state.generation_result(values, len(ids)) if values else {"examples": len(ids)}, args.json
    )
    return 0


def _with_fields(signature: str, fields: dict) -> str:
    """`signature` with `fields` (k:v) inserted before its version field."""
    head, _, version = signature.rpartition("|v:")
    extra = "|".join(f"{k}:{v}" for k, v in fields.items())
    return f"{head}|{extra}|v:{version}" if head else f"{signature}|{extra}"


def score_clip(preset: str, pairs: Loaded, options: dict) -> dict:
    """fid_clip's CLIP score of (image, text) pairs, per example (images as `predictions`, no FID side)."""
    from .. import fid_clip

    options = {k: v for k, v in options.items() if v is not None}
    try:
        return dict(fid_clip.score(pairs.predictions, None, preset, texts=pairs.columns["texts"],
                                   return_per_example=True, **options))  # fmt: skip
    except (ValueError, TypeError) as err:
        raise ValueError(locate(err, pairs)) from None


def add_generation_parser(sub) -> None:
    from ..fid_clip.scoring import FID_RESAMPLES  # (a light module: torch is imported when scoring)

    summary = "FID, CLIP score and the Fusion Brain 2022 image generation score (fid_clip)"
    p = sub.add_parser(
        "fid-clip",
        aliases=["fid_clip"],
        help=summary,
        description=summary,
        epilog=GENERATION_DOC + "\n" + COMMON_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--gt-images", required=True, metavar="DIR", help="folder of the real images")
    p.add_argument("--pred-images", required=True, metavar="DIR", help="folder of the generated images")
    p.add_argument("--input", required=True, metavar="FILE", help="generation_input.json (the prompts)")
    p.add_argument(
        "--pred", required=True, metavar="FILE", help="generation_pred.json (the generated image paths)"
    )
    preset = "fusion_brain_2022"
    add_preset_argument(p, "fid_clip", "one of " + presets_help("fid_clip", {preset: "default here"}), preset)
    # fid_clip's option table; the command's own --progress drives `progress`, and `meteor` (the captioning
    # score) has no place in the generation score
    before = add_option_arguments(p, "fid_clip", skip=("progress", "meteor"))
    add_resampling_arguments(
        p,
        "confidence interval (bootstrap over the generated images and their prompts)",
        f"bootstrap resamples (default {FID_RESAMPLES} with FID)",
    )
    p.set_defaults(option_dests=[a.dest for a in p._actions if a.dest not in before], run=run_generation)
    add_output_arguments(p, "write the CLIP score of every prompt as JSON lines", "progress bar on stderr")
    mm_state.add_arguments(
        p,
        "the examples (with --clip-model the prompts of --input, else the files of --pred-images; each with "
        "the file of --gt-images at its place)",
        "example",
    )


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------
COMMON_EPILOG = """Output: the result dict (scores, signature, examples) as text, or as JSON with --json.
--per-example FILE writes one JSON line per example: {"id": ..., "<score>": ...}.
--confidence 0.95 adds <score>_ci_low / <score>_ci_high (percentile bootstrap over the examples).
--compare-pred B.json prints, per score, <score>_a, <score>_b, <score>_difference (A - B), its interval
and <score>_p_value (approximate randomisation, 10,000 trials, or --test paired_bootstrap, 1,000 resamples;
--p-value sacrebleu: sacrebleu's strict count, ties left out; the default counts them).
Errors (a malformed file, a metric error) are one line naming the file, the record and the field; exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: a bad value of a typed flag (``--iou-threshold abc``), an unknown
    flag or a missing file flag is ``mm-score <command>: error: ...`` and exit status 2, without the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from .. import stats as mm_stats  # the paired tests' declarations (--p-value's choices)
    from .._version import __version__

    parser = Parser(
        prog="mm-score",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `mm-score COMMAND --help` for the file formats of a command.",
    )
    parser.add_argument("--version", action="version", version=f"mm-score {__version__} (multimodal-metrics)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for cmd in COMMANDS.values():
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
            ("--annotations",)
            if "vqa_v2" in cmd.formats
            else ("--refs",)
            if "codexglue" in cmd.formats
            else ()
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
    add_generation_parser(sub)
    mm_integral.add_parsers(sub, score, PROGRESS_MIN)
    mm_state.add_merge_parser(sub)
    return parser


def main(argv=None) -> int:
    import warnings

    parser = build_parser()
    argv = joined_negative_values(parser, list(sys.argv[1:] if argv is None else argv))
    try:
        args, unknown = parser.parse_known_args(argv)
    except SystemExit as exit_:  # --help, --version (0) or a one-line usage error (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    if unknown:  # named by the command they were given to
        print(
            f"mm-score {args.command}: error: unrecognized arguments: {' '.join(unknown)} "
            f"(see mm-score {args.command} --help)",
            file=sys.stderr,
        )
        return 2
    flags = command_flags(parser, args.command)

    def one_line(message, category, filename, lineno, file=None, line=None):
        print(
            f"mm-score {args.command}: warning: {in_flags(' '.join(str(message).split()), flags)}",
            file=sys.stderr,
        )

    shown = warnings.showwarning
    warnings.showwarning = one_line
    try:
        mm_paths.check_paths(args)
        return args.run(args)
    except (
        ValueError,
        TypeError,
        RuntimeError,
        OSError,
    ) as err:  # FormatError is a ValueError; RuntimeError: a missing build
        print(
            f"mm-score {args.command}: error: {in_flags(' '.join(str(err).split()), flags)}", file=sys.stderr
        )
        return 2
    except ImportError as err:  # an optional dependency of the metric (the library imports them when scoring)
        print(f"mm-score {args.command}: error: {missing_dependency(err)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"mm-score {args.command}: error: out of memory: an input is too large for this machine",
            file=sys.stderr,
        )
        return 2
    finally:
        warnings.showwarning = shown
        if getattr(args, "per_example_out", None) is not None:
            args.per_example_out.discard()


if __name__ == "__main__":
    sys.exit(main())
