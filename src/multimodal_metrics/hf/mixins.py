"""The evaluate glue: mixins an ``evaluate.Metric`` script lists before ``evaluate.Metric``.

* :class:`TrainerResults`: ``compute(..., for_trainer=True)`` returns only numbers under prefixed keys.
* :class:`PairedComparison`: intervals in ``compute`` (``confidence=``) and ``metric.compare(...)``.
* :class:`TextPairInputs`: the two feature schemas of text pairs, checked ``add_batch``/``add``, the
  inputs read back for ``_compute``; with ``TrainerResults`` and ``OptionsCheckedFirst``.
* :class:`LibraryMetric`: the link from a thin script to its library module (``library``): options
  from the module's ``OPTIONS`` table, ``_compute`` over its ``score_checked``, and ``MetricInfo`` with the
  preset checked first, built from the script's docs (:func:`documented`) and the metric's sources
  (``sources.SOURCES``).

evaluate picks the first ``evaluate.Metric`` subclass of a script, so none of these is one.
"""

from collections.abc import Mapping
from typing import NamedTuple

from ..inputs import check_same_length, check_text_system, nest
from ..results import Signature, directions_of, trainer_scores
from ..stats import (
    DEFAULT_P_VALUE,
    Resampling,
    Statistic,
    compare_scores,
    split_resampling,
)
from .arrow import (
    ArrowColumn,
    checked_features,
    read_flat_references,
    read_reference_lists,
    read_strings,
    reference_lists_to_arrow,
    strings_to_arrow,
)
from .direct import OptionsCheckedFirst, direct_path_supported, metric_lock
from .sources import SOURCES

# the batch arguments of ``add_batch`` and the one-example arguments of ``add``
_ONE_EXAMPLE = {"predictions": "prediction", "references": "reference", "texts": "text"}


def check_one_example(kwargs) -> None:
    """``add`` takes one example, as ``prediction=`` / ``reference=`` (``text=``): a batch argument of
    ``add_batch`` passed to it (``references=``, as evaluate's own docstring of ``add`` shows) is a
    TypeError that names it and says which to use, not an error from inside evaluate."""
    for name in kwargs:
        if name in _ONE_EXAMPLE:
            raise TypeError(
                f"`{name}`: add() takes one example, as `{_ONE_EXAMPLE[name]}=`; "
                f"pass a batch with add_batch({name}=...)"
            )


class TrainerResults:
    """Mixin for every metric of the collection: ``compute(..., for_trainer=True)``.

    With ``for_trainer=True`` (or a prefix string such as ``for_trainer="val_anls"``) ``compute``
    returns only numbers under metric-prefixed keys (``trainer_scores``), ready for
    ``Trainer(compute_metrics=...)``, ``trainer.log_metrics`` and ``hyperparameter_search``, and
    mergeable with another metric's result; raw counts (det_f1's tp/fp/fn) are left out. The signature of
    that call stays available as ``metric.last_signature`` (every ``compute`` sets it). ``higher_is_better``
    maps every result key to True / False (CER, FID: lower is better) / None (a raw count), for
    ``metric_for_best_model`` with ``greater_is_better`` and ``hyperparameter_search``'s ``direction``.
    """

    last_signature = None
    library = None

    @property
    def higher_is_better(self) -> dict:
        """The metric's ``HIGHER_IS_BETTER`` table: ``{key: True | False | None}`` (a key ending in ``*`` covers
        every key with that prefix; ``<key>_ci_low``/``_high`` follow ``<key>``)."""
        return directions_of(self.library.__name__.rpartition(".")[2])

    def compute(self, *, for_trainer=False, **kwargs):
        """Like ``evaluate.Metric.compute``; ``for_trainer=True`` (or a key prefix string) returns
        only the numbers, keys prefixed with the metric name; the signature is kept in
        ``self.last_signature``."""
        if for_trainer is not False:
            if for_trainer is True:
                prefix = self.name
            elif isinstance(for_trainer, str) and for_trainer.strip():
                prefix = for_trainer
            else:
                raise TypeError(
                    f"`for_trainer` must be True, False or a non-empty key prefix, got {for_trainer!r}"
                )
            if kwargs.get("return_per_example", False) is not False:
                raise ValueError(
                    "`return_per_example=True` cannot be combined with `for_trainer`: Trainer logs only numbers; "
                    "call compute without `for_trainer` to get the per-example scores"
                )
        with metric_lock(self):  # one computation at a time per object (threads share nothing else)
            result = super().compute(**kwargs)
            if result is None:  # a non-main process of a distributed run
                return None
            self.last_signature = result.get("signature")
        if for_trainer is False:
            return result
        return trainer_scores(result, prefix, self.higher_is_better if self.library is not None else None)


class TextPairInputs(TrainerResults, OptionsCheckedFirst):
    """Mixin for an ``evaluate.Metric`` whose example is one predicted string and one or more
    reference strings (``class Anls(TextPairInputs, evaluate.Metric)``), with ``for_trainer``
    (``TrainerResults``) and options checked first (``OptionsCheckedFirst``: the module defines ``_options``).

    It declares the two feature schemas (references as a list of strings or as one string) and
    checks every batch, with errors naming the argument and the example index, while converting it
    to the Arrow arrays evaluate stores; single references are stored as lists of one. A module
    that sets ``info.format = "arrow"`` reads its inputs in ``_compute`` with ``text_pairs`` (flat
    references) or ``text_pair_lists``.
    """

    check_system = staticmethod(check_text_system)  # compare checks both systems before scoring either

    @staticmethod
    def input_features() -> list:
        """The two feature schemas: references as a list of strings or as one string per example."""
        import datasets

        string = datasets.Value("string")
        # add_batch below checks every value, so evaluate's per-value encoding is skipped
        return checked_features(
            [
                datasets.Features({"predictions": string, "references": datasets.Sequence(string)}),
                datasets.Features({"predictions": string, "references": string}),
            ]
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check the batch (errors name the argument and example index) while converting it to the
        Arrow arrays that evaluate's writer stores as they are (``ArrowColumn``)."""
        predictions, pred_array = strings_to_arrow(predictions, "predictions")
        flat, counts, ref_array = reference_lists_to_arrow(references, "references")
        check_same_length("predictions", predictions, "references", counts)
        result = super().add_batch(
            predictions=ArrowColumn(pred_array), references=ArrowColumn(ref_array), **kwargs
        )
        if self._mm_direct:  # a direct compute (OptionsCheckedFirst): keep the checked inputs for text_pairs
            self._mm_inputs = (predictions, flat, counts)
        return result

    def text_pairs(self, predictions, references):
        """``(predictions, flat references, counts)`` for ``_compute`` under ``info.format = "arrow"``:
        the checked inputs of a direct ``compute`` (``OptionsCheckedFirst``: given the whole data, one
        process; they are what the Arrow columns hold), else the Arrow columns read back
        (``read_strings``, ``read_flat_references``: data added in batches or gathered from several
        processes)."""
        direct = self._mm_inputs
        if direct is not None and len(direct[0]) == len(predictions):
            return direct
        flat, counts = read_flat_references(references)
        return read_strings(predictions), flat, counts

    def text_pair_lists(self, predictions, references):
        """``(predictions, references as lists of strings)`` for ``_compute``: ``text_pairs`` for a core
        that takes one list of references per example."""
        direct = self._mm_inputs
        if direct is not None and len(direct[0]) == len(predictions):
            return direct[0], nest(direct[1], direct[2])
        return read_strings(predictions), read_reference_lists(references)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (checked like a batch of one)."""
        check_one_example(kwargs)
        return self.add_batch(predictions=[prediction], references=[reference], **kwargs)


class PairedComparison:
    """Mixin for an ``evaluate.Metric`` (listed before it): each ``compute`` keeps the sufficient
    statistics and the signature of its result (``_last_statistic``, set by ``LibraryMetric.scored``);
    ``compare`` runs the paired test of two systems on the same references."""

    _last_statistic = None
    check_system = None  # compare's check of one system's predictions (inputs.check_text_system), or None

    def compute(self, *args, **kwargs):
        """Like ``evaluate.Metric.compute``; the resampling options are checked before anything is cached."""
        split_resampling(kwargs)
        return super().compute(*args, **kwargs)

    def compare(
        self,
        *,
        predictions_a=None,
        predictions_b=None,
        references=None,
        test="approximate_randomization",
        n_resamples=None,
        seed=None,
        confidence=0.95,
        p_value=DEFAULT_P_VALUE,
        **kwargs,
    ) -> dict | None:
        """Paired significance test of system A against system B on the same references.

        Both systems are scored by ``compute`` with the same options (``kwargs``: the metric's options
        and per-example inputs). ``test``: "approximate_randomization" (default; sacrebleu paired-ar's
        draws, ``n_resamples`` = 10000 trials by default) or "paired_bootstrap" (sacrebleu paired-bs's
        resamples, 1000); ``seed`` default 12345; ``p_value``: "ge" (default: null statistics at least as
        extreme as the observed one count, ties included) or "sacrebleu" (sacrebleu's strict count, which
        rejects about 10% of equally good systems at 0.05 on 0/1 scores). Returns a flat dict: per score key ``<key>_a``, ``<key>_b``,
        ``<key>_difference`` (A - B), ``<key>_difference_ci_low``/``_high`` (paired bootstrap interval of
        A - B at ``confidence``, 1000 resamples for the randomisation test) and ``<key>_p_value``
        (two-sided), then ``signature`` (the scoring signature plus the test, its size, seed and p-value
        rule ``p:ge`` / ``p:sacrebleu``).

        In evaluate's distributed mode (``num_process`` > 1) it works like ``compute``: every process calls
        it with its share of the examples, process 0 returns the comparison of all of them (gathered in
        process order) and the others None; a process other than 0 returns from each of the two scoring
        runs once process 0 has finished it (as from every ``compute``), so the runs meet at evaluate's
        rendez-vous and a ``compute`` may follow at once.
        """
        gathered_elsewhere = self.num_process > 1 and self.process_id != 0  # process 0 gathers and scores
        runs = []

        def score(predictions, references, **options):
            # stats.compare_scores has checked the test, the p-value rule, the options and both systems
            if self.num_process > 1 and not direct_path_supported():
                raise ValueError(
                    "compare in distributed mode (`num_process` > 1) waits on evaluate's cache locks by their "
                    "names in evaluate 0.4.6; with another evaluate call compute on each system and compare the "
                    "results"
                )
            self._last_statistic = None
            self.compute(predictions=predictions, references=references, **options)  # waits for process 0
            runs.append(self._last_statistic)
            if gathered_elsewhere:
                if len(runs) == 2:  # both runs have met process 0's, which compares them
                    raise _GatheredElsewhere
                return None
            if self._last_statistic is None:
                raise RuntimeError("compute did not record its sufficient statistics")
            return _Scored(self.name, *self._last_statistic)

        systems = (predictions_a, predictions_b, references)
        test_options = dict(test=test, n_resamples=n_resamples, seed=seed, confidence=confidence)
        with metric_lock(self):  # the statistics read back are this call's own
            try:
                return compare_scores(
                    score, *systems, p_value=p_value, check_system=self.check_system, **test_options, **kwargs
                )
            except _GatheredElsewhere:
                return None


class _Scored(NamedTuple):
    """What ``stats.compare_scores`` reads of one scoring run of ``PairedComparison.compare``."""

    metric: str
    statistic: Statistic
    signature: Signature


class _GatheredElsewhere(Exception):
    """Ends ``compare`` in a process other than 0 once both scoring runs have met process 0's."""


def documented(description: str, inputs_description: str):
    """Class decorator of a metric script, ``@documented(_DESCRIPTION, _KWARGS_DESCRIPTION)``: evaluate's
    ``add_start_docstrings`` (the class docstring is the two texts: its examples run as doctests) and the
    two texts kept as ``script_docs`` for the ``MetricInfo`` (``LibraryMetric._info``)."""
    from evaluate.utils.file_utils import add_start_docstrings

    def document(cls):
        cls = add_start_docstrings(description, inputs_description)(cls)
        cls.script_docs = (description, inputs_description)
        return cls

    return document


class LibraryMetric:
    """Mixin linking a thin ``evaluate.Metric`` script to its library module.

    The script sets ``library`` to the metric's module (``multimodal_metrics.anls``), which holds the
    option table ``OPTIONS``; ``_options`` resolves and checks through it (``OptionsCheckedFirst`` runs it
    before evaluate touches its cache). ``_info`` checks the preset first and builds the
    ``evaluate.MetricInfo``: the script's docs (:func:`documented`), the features of ``input_features()``
    (defined by the input mixin), stored as Arrow when ``arrow_inputs``, and the citation, home page and
    references of the metric's row of :data:`~multimodal_metrics.hf.sources.SOURCES`. ``_compute`` hands
    the stored inputs to the library's ``score_checked`` (:meth:`score_stored`) and keeps the result's
    statistic for ``compare``.
    """

    library = None
    script_docs = ("", "")  # (description, inputs description) of the script: set by documented
    arrow_inputs = False  # _compute reads the stored columns as Arrow (info.format = "arrow")
    extra_inputs = ()  # the stored input columns after predictions and references, passed to score_stored

    def _options(self, passed: Mapping[str, object]) -> dict:
        """The preset's options updated with the passed ones (None = not passed), all checked."""
        return self.library.OPTIONS.resolve(self.config_name, passed)

    def _info(self):
        """evaluate's ``MetricInfo`` of the script: the docs given to :func:`documented`, the features of the
        preset (``input_features``, the preset checked first), the metric's sources."""
        import evaluate

        self.library.OPTIONS.check_preset(self.config_name)
        sources = SOURCES[self.library.__name__.rpartition(".")[2]]
        info = evaluate.MetricInfo(
            features=self.input_features(),
            description=self.script_docs[0],
            citation=sources.citation,
            inputs_description=self.script_docs[1],
            homepage=sources.homepage,
            reference_urls=list(sources.reference_urls),
        )
        if self.arrow_inputs:
            # Set after construction: MetricInfo refuses a format for non-Value features.
            info.format = "arrow"
        return info

    def _compute(
        self,
        predictions,
        references,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
        **options,
    ):
        # **options: compute() has already refused unknown options (OptionsCheckedFirst); the stored inputs
        # arrive as Arrow columns under arrow_inputs
        resampling = Resampling(confidence, n_resamples, seed)
        inputs = (predictions, references, *(options.pop(name) for name in self.extra_inputs))
        opts = self._options(options)
        return self.scored(
            self.score_stored(
                inputs, opts, resampling, return_per_example, default_resamples=n_resamples is None
            )
        )

    def score_stored(self, inputs, options, resampling, return_per_example, default_resamples):
        """The library's ``Result`` of the stored ``inputs`` (predictions, references, ``extra_inputs``) with
        the checked ``options``; ``default_resamples``: ``n_resamples`` was not passed."""
        return self.library.score_checked(*inputs, self.config_name, options, resampling, return_per_example)

    def scored(self, result) -> dict:
        """The dict ``compute`` returns for a library ``Result``; its statistic (None: no per-example
        scores to pair) is kept for ``compare``."""
        self._last_statistic = (
            None if result.statistic is None else (result.statistic, result.get_signature())
        )
        return result.to_dict()


class TextPairMetric(LibraryMetric, TextPairInputs, PairedComparison):
    """A text-pair metric (one prediction, one or more references per example) over its library module,
    whose ``score_checked(predictions, flat_references, counts, preset, options, resampling,
    return_per_example)`` returns a ``Result``. ``class Anls(TextPairMetric, evaluate.Metric)``."""

    arrow_inputs = True  # add_batch stores Arrow arrays; text_pairs reads them back

    def score_stored(self, inputs, options, resampling, return_per_example, default_resamples):
        predictions, references = inputs
        return super().score_stored(
            self.text_pairs(predictions, references),
            options,
            resampling,
            return_per_example,
            default_resamples,
        )
