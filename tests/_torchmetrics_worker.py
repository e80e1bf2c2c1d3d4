"""The multi-process runs of tests/test_torchmetrics.py: ``python _torchmetrics_worker.py MODE OUT_DIR N``.

MODE ``lightning``: a Lightning ``Trainer(strategy="ddp", accelerator="cpu", devices=2)`` (gloo; Lightning starts
the second rank by running this script again) trains a tiny model for two epochs and validates it on N examples
after each; the validation set's DataLoader gets Lightning's DistributedSampler (shuffle off, the last round
padded). Epoch e validates on the examples of ``engine_cases.case(metric, N, seed=e)``, so a state that was not
reset would meet the same index with another row (a refused merge). Logged with ``self.log``:

* ``val/anls`` (``update`` with ``index``), ``val/vqa_acc`` (``forward`` with ``index`` and two more per-example
  columns), ``val/det_f1`` (``update`` without ``index``, ``total=N``: the padded repeats found by number);
* ``val/coll/*``: a ``MetricCollection`` of ANLS, NED and TextQA on the same answers (``log_dict``).

Each rank writes OUT_DIR/lightning_rank<r>.json: per epoch, the logged values (``callback_metrics``, as floats
and dtypes) and the Results of anls and det_f1 (``.result``), and how many examples the rank's own state held.

MODE ``torchrun`` (under ``torchrun --nproc_per_node=2``): the same three metrics in a plain loop over the
examples of DistributedSampler(shuffle=False), batches of 64; ``compute`` on both ranks; then the rank's own
state (after the merge, torchmetrics' ``unsync``). Writes OUT_DIR/torchrun_rank<r>.json.
"""

import json
import os
import sys
import time
import warnings

from engine_cases import RESULT_KWARGS, as_json, case

BATCH = 64
TEXT = ("anls", "ned", "text_qa")  # the collection's metrics, on the answers of the ned case


def metrics(n: int) -> dict:
    from torchmetrics import MetricCollection

    from multimodal_metrics.torchmetrics import ANLS, NED, DetF1, TextQA, VQAAccuracy

    kwargs = dict(RESULT_KWARGS)
    return {
        "anls": ANLS(**case("anls", n).options, **kwargs),
        "vqa_acc": VQAAccuracy(**case("vqa_acc", n).options, **kwargs),
        "det_f1": DetF1(**case("det_f1", n).options, total=n, **kwargs),
        "coll": MetricCollection({"anls": ANLS(), "ned": NED(), "text_qa": TextQA()}, prefix="val/coll/"),
    }


def batch_inputs(metric: str, n: int, seed: int, ids: list[int]):
    """(preds, target, the other per-example inputs) of examples ``ids``."""
    take = case(metric, n, seed=seed).take(ids)
    return take.pop("predictions"), take.pop("references"), take


def lightning(out_dir: str, n: int) -> None:
    import lightning as L
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)
            for name, metric in metrics(n).items():
                setattr(self, f"val_{name}", metric)

        def training_step(self, batch, batch_idx):
            (x,) = batch
            return self.layer(x).pow(2).mean()

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

        def validation_step(self, batch, batch_idx):
            (ids,) = batch
            seed = self.current_epoch
            self.layer(torch.zeros(len(ids), 4))  # the model runs; the answers come from the epoch's case
            preds, target, _ = batch_inputs("anls", n, seed, ids.tolist())
            self.val_anls.update(preds, target, index=ids)
            self.log("val/anls", self.val_anls)
            preds, target, more = batch_inputs("vqa_acc", n, seed, ids.tolist())
            self.val_vqa_acc(preds, target, index=ids, **more)  # forward: the batch's value
            self.log("val/vqa_acc", self.val_vqa_acc)
            preds, target, _ = batch_inputs("det_f1", n, seed, ids.tolist())
            self.val_det_f1.update(preds, target)  # no index: numbered as the sampler deals, total=n
            self.log("val/det_f1", self.val_det_f1)
            preds, target, _ = batch_inputs("ned", n, seed, ids.tolist())
            self.val_coll.update(preds, target, index=ids)
            self.log_dict(self.val_coll)

    class Record(L.Callback):
        def __init__(self):
            self.epochs = []

        def on_validation_epoch_end(self, trainer, module):
            self.held = {m: len(getattr(module, f"val_{m}").state) for m in ("anls", "vqa_acc", "det_f1")}

        def on_validation_end(self, trainer, module):
            logged = {k: v for k, v in trainer.callback_metrics.items() if k.startswith("val/")}
            self.epochs.append(
                {
                    "logged": {k: v.item() for k, v in logged.items()},
                    "dtypes": {k: str(v.dtype) for k, v in logged.items()},
                    "anls": as_json(module.val_anls.result),
                    "det_f1": as_json(module.val_det_f1.result),
                    "held": self.held,
                }
            )

    torch.manual_seed(0)
    train = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8)
    val = DataLoader(TensorDataset(torch.arange(n)), batch_size=BATCH)
    record = Record()
    trainer = L.Trainer(
        strategy="ddp",
        accelerator="cpu",
        devices=2,
        max_epochs=2,
        num_sanity_val_steps=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[record],
    )
    start = time.monotonic()
    trainer.fit(Model(), train, val)
    rank = trainer.global_rank
    with open(os.path.join(out_dir, f"lightning_rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump({"rank": rank, "epochs": record.epochs, "seconds": time.monotonic() - start}, f)


def torchrun(out_dir: str, n: int) -> None:
    import torch.distributed as dist
    from torch.utils.data import DistributedSampler

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ids = list(DistributedSampler(range(n), shuffle=False))
    objects = metrics(n)
    out = {"rank": rank, "shard": len(ids)}
    batch_values = []
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        objects["anls"].update(*batch_inputs("anls", n, 0, batch)[:2], index=batch)
        preds, target, more = batch_inputs("vqa_acc", n, 0, batch)
        batch_values.append(objects["vqa_acc"](preds, target, index=batch, **more).item())
        objects["det_f1"].update(*batch_inputs("det_f1", n, 0, batch)[:2])
    for name in ("anls", "vqa_acc", "det_f1"):
        value = objects[name].compute()
        out[name] = {
            "value": value.item(),
            "dtype": str(value.dtype),
            "result": as_json(objects[name].result),
            "held_after": len(objects[name].state),  # the rank's own state again
        }
    out["vqa_acc"]["batch_values"] = batch_values
    with open(os.path.join(out_dir, f"torchrun_rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    mode, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"lightning": lightning, "torchrun": torchrun}[mode](out, size)
