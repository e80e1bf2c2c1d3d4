"""Helpers for the tests: load a metric like a user, import its pure core, run it in a Trainer or a demo."""

import contextlib
import functools
import importlib
import importlib.util
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRICS = ROOT / "metrics"


def reference_levenshtein(a: str, b: str) -> int:
    """The textbook dynamic-programming edit distance, pure Python: the oracles' own, independent of rapidfuzz."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def metric_names() -> list[str]:
    """Every metric folder (metrics/<name>/<name>.py)."""
    return sorted(p.name for p in METRICS.iterdir() if (p / f"{p.name}.py").is_file())


@functools.cache
def _load(name: str, config_name: str | None):
    import evaluate

    path = str(METRICS / name)
    return evaluate.load(path, config_name) if config_name else evaluate.load(path)


def load_metric(name: str, config_name: str | None = None):
    """evaluate.load on the metric folder, the way users load it (cached per test session)."""
    return _load(name, config_name)


def run_two_ranks(target, *args, method: str = "fork", barrier: bool = False, timeout: float = 300) -> dict:
    """evaluate's distributed mode with two real processes: start ``target(rank, *args, queue[, barrier])``
    for ranks 0 and 1, take one ``(rank, result)`` from each off the queue, check both exited with 0,
    and return ``{rank: result}``."""
    import multiprocessing

    ctx = multiprocessing.get_context(method)
    queue = ctx.Queue()
    extra = (ctx.Barrier(2),) if barrier else ()
    procs = [ctx.Process(target=target, args=(rank, *args, queue, *extra)) for rank in (0, 1)]
    for p in procs:
        p.start()
    results = dict(queue.get(timeout=timeout) for _ in procs)
    for rank, p in enumerate(procs):
        p.join(timeout=60)
        assert p.exitcode == 0, f"rank {rank} exited with {p.exitcode}"
    return results


def check_mean_of_per_example(name: str, key: str, data) -> None:
    """``load_metric(name).compute`` on (prediction, references) pairs: ``key`` is the mean of the
    per-example scores and lies in [0, 1]."""
    r = load_metric(name).compute(
        predictions=[p for p, _ in data], references=[r for _, r in data], return_per_example=True
    )
    import pytest

    assert r[key] == pytest.approx(sum(r["per_example"]) / len(data))
    assert 0.0 <= r[key] <= 1.0


def readme_blocks(heading: str) -> list[tuple[str, str]]:
    """(language, code) of each python or bash block of the README's section ``## <heading>``, in order."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(f"## {heading}") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```(python|bash)\n(.*?)```", section, re.S)


def run_readme_block(block: tuple[str, str], timeout: float) -> str:
    """Run a (language, code) block of :func:`readme_blocks` as written, from the checkout (``python -c`` or
    ``bash -euo pipefail -c``); assert it exits 0 and return its stdout."""
    import os
    import subprocess

    lang, code = block
    command = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=timeout
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def run_python_json(script: str, *args: str, cwd, env: dict, timeout: float = 300):
    """Run ``python -c script *args`` in ``cwd`` with the environment ``env``; assert it exits 0 and return
    the JSON of its last line of output."""
    import json
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load_rank(name: str, rank: int, experiment_id: str, cache_dir: str, timeout: float, **kwargs):
    """``evaluate.load`` of metrics/<name> as process ``rank`` of evaluate's distributed mode (``num_process=2``)."""
    import evaluate

    return evaluate.load(
        str(METRICS / name),
        num_process=2,
        process_id=rank,
        experiment_id=experiment_id,
        cache_dir=cache_dir,
        timeout=timeout,
        **kwargs,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_app(app_path: Path):
    """Import a Gradio app.py (it builds `demo` without launching), serve it on 127.0.0.1.

    Returns (demo, gradio_client.Client); call demo.close() when done.
    """
    from gradio_client import Client

    spec = importlib.util.spec_from_file_location(f"app_{app_path.parent.name}", app_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    demo = mod.demo
    if hasattr(mod, "DEMO"):  # compute's inputs, in order, and what the page shows in each on loading
        demo.input_defaults = {n: c.value for n, c in zip(mod.DEMO.names, mod.DEMO.components, strict=True)}
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    client = Client(f"http://127.0.0.1:{port}/", verbose=False)
    return demo, client


def predict_by_name(client, demo, **values):
    """The app's compute endpoint with its inputs given by name (``preds``, ``preset``, ``opt_<option>``, as
    the page's ``DEMO.names`` lists them); an input not given is sent as the page shows it on loading (an
    option at "preset", an upload box empty)."""
    unknown = set(values) - set(demo.input_defaults)
    assert not unknown, f"the page has no input {sorted(unknown)}: {list(demo.input_defaults)}"
    sent = [values.get(name, default) for name, default in demo.input_defaults.items()]
    return client.predict(*sent, api_name="/compute")


@contextlib.contextmanager
def served_compute(name: str):
    """metrics/<name>/app.py served for the block (:func:`serve_app`); yields ``compute(preds, refs, preset,
    **values)``: the first output of the page's compute endpoint, the other inputs by name as
    :func:`predict_by_name` sends them."""
    demo, client = serve_app(ROOT / "metrics" / name / "app.py")

    def compute(preds, refs, preset, **values):
        return predict_by_name(client, demo, preds=preds, refs=refs, preset=preset, **values)[0]

    try:
        yield compute
    finally:
        demo.close()


# training arguments of every Trainer run in the tests: on the CPU, no logger integration, no progress bars
QUIET_CPU = {"use_cpu": True, "report_to": "none", "disable_tqdm": True}


def run_in_trainer(compute_metrics, n_eval: int = 16, num_labels: int = 4) -> dict:
    """Train a tiny random BERT (built from a config) for one epoch and evaluate it.

    `compute_metrics(eval_pred)` receives numpy logits and label ids (as in any Trainer run) and
    must turn them into the metric's inputs. Returns the metrics dict of `trainer.evaluate()`.
    """
    import numpy as np
    import torch
    from datasets import Dataset
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        num_labels=num_labels,
    )
    model = BertForSequenceClassification(config)
    rng = np.random.default_rng(0)
    data = Dataset.from_dict(
        {
            "input_ids": rng.integers(1, 50, size=(n_eval, 8)).tolist(),
            "labels": (np.arange(n_eval) % num_labels).tolist(),
        }
    )
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=8,
            per_device_eval_batch_size=8,
            num_train_epochs=1,
            save_strategy="no",
            logging_strategy="no",
            **QUIET_CPU,
        )
        trainer = Trainer(
            model=model, args=args, train_dataset=data, eval_dataset=data, compute_metrics=compute_metrics
        )
        trainer.train()
        return trainer.evaluate()


def run_in_seq2seq_trainer(compute_metrics, n_eval: int = 12, log_metrics: bool = True) -> dict:
    """Evaluate a tiny random T5 (built from a config) with `Seq2SeqTrainer(predict_with_generate=True)`.

    `compute_metrics(eval_pred)` receives generated token ids and label ids (-100 where padded), as
    in any generation run; `decode_ids` turns them into text without a tokenizer. Returns the
    metrics dict of `trainer.evaluate()` after passing it through `trainer.log_metrics` (which
    formats every value as a number, as users' scripts do).
    """
    import tempfile

    import numpy as np
    from datasets import Dataset
    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments

    model = tiny_t5(40)
    rng = np.random.default_rng(0)
    data = Dataset.from_dict(
        {
            "input_ids": rng.integers(2, 40, size=(n_eval, 6)).tolist(),
            "labels": rng.integers(2, 40, size=(n_eval, 5)).tolist(),
        }
    )
    with tempfile.TemporaryDirectory() as out:
        args = Seq2SeqTrainingArguments(
            output_dir=out,
            per_device_eval_batch_size=4,
            predict_with_generate=True,
            generation_max_length=6,
            **QUIET_CPU,
        )
        trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=data, compute_metrics=compute_metrics)
        metrics = trainer.evaluate()
        if log_metrics:
            trainer.log_metrics("eval", metrics)
        return metrics


def tiny_t5(vocab_size: int):
    """A tiny random T5 (torch seed 0) over ``vocab_size`` token ids: 0 pads and starts decoding, 1 ends."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(
        vocab_size=vocab_size,
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    return T5ForConditionalGeneration(config)


def decode_ids(ids) -> list[str]:
    """Token ids -> text, one letter per id (a stand-in for tokenizer.batch_decode): 0/1 (pad/eos)
    and -100 (ignored label positions) are dropped."""
    return ["".join(chr(ord("a") + (int(t) - 2) % 26) for t in row if t > 1) for row in ids]


def train_in_seq2seq_trainer(compute_metrics, epochs: int = 3, n: int = 12, hp_backend=None, **arguments):
    """Train a tiny random T5 (``model_init``, so ``hyperparameter_search`` can re-create it) with
    `Seq2SeqTrainer(predict_with_generate=True)`, evaluating every epoch; ``arguments`` go to
    `Seq2SeqTrainingArguments` (``metric_for_best_model``, ``greater_is_better``, ...). Returns the trainer
    (its ``state.log_history`` holds every evaluation) in a temporary output folder that lives as long as
    the trainer object."""
    import tempfile

    import numpy as np
    from datasets import Dataset
    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments

    def model_init(trial=None):
        return tiny_t5(12)

    rng = np.random.default_rng(0)
    inputs = rng.integers(2, 12, size=(n, 4))
    data = Dataset.from_dict(
        {"input_ids": inputs.tolist(), "labels": [[*row[:3], 1] for row in inputs.tolist()]}
    )
    out = tempfile.TemporaryDirectory()
    args = Seq2SeqTrainingArguments(
        output_dir=out.name,
        per_device_train_batch_size=4,
        per_device_eval_batch_size=6,
        predict_with_generate=True,
        generation_max_length=5,
        **QUIET_CPU,
        num_train_epochs=epochs,
        learning_rate=3e-2,
        eval_strategy="epoch",
        save_strategy="epoch",
        logging_strategy="epoch",
        **arguments,
    )
    trainer = Seq2SeqTrainer(
        model_init=model_init,
        args=args,
        train_dataset=data,
        eval_dataset=data,
        compute_metrics=compute_metrics,
    )
    trainer._mm_output = out  # removed with the trainer
    return trainer
